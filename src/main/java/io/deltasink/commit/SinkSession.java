package io.deltasink.commit;

import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.RecordConverter;
import io.deltasink.metrics.PluginSinkMetrics;
import io.deltasink.metrics.SinkMetrics;
import io.deltasink.model.DataFile;
import io.deltasink.storage.StorageErrors;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;
import io.deltasink.table.TableSnapshot;
import io.deltasink.write.PartitionedWriter;
import io.deltasink.write.WriterSettings;

/**
 * One task's write pipeline: records -> rows -> Parquet files -> one Delta commit per flush,
 * with each Kafka partition's next offset stored in the same commit.
 *
 * <p>State per Kafka partition: {@code tableOffsets} is what the table says (the next offset
 * to read, absent when the table has never seen the partition); {@code nextOffsets} is the
 * offset after the last record taken into the current, uncommitted batch. Records below either
 * are already in the table or in the batch and are skipped, so a redelivery never duplicates.
 * Whenever buffered work must be dropped (storage failure, lost fencing), the files are
 * deleted and the consumer is rewound to the table's offsets, so nothing is lost either.
 *
 * <p>Failures follow {@link Failures}: a permanent one stops the task with a message naming the
 * setting to fix; a transient one makes {@code put()} throw {@link RetriableException} after
 * {@code context.timeout}, so the worker waits and redelivers. A partition whose table position
 * could not be read in {@code open()} takes no record until the next {@code put()} has read it.
 */
public final class SinkSession {
    private static final Logger log = LoggerFactory.getLogger(SinkSession.class);

    private final DeltaSinkConfig config;
    private final StorageSettings storage;
    private final DeltaTable table;
    private final SinkTaskContext context;
    private final Clock clock;
    private final Function<SinkRecord, RecordConverter> converterFactory;
    private final BadRecords badRecords;
    private final String engineInfo;
    private final TableCommitter committer;
    private final SinkMetrics metrics;
    private final Failures failures;

    private RecordConverter converter;
    private PartitionedWriter writer;
    private boolean tableChecked;

    private final PartitionPositions positions = new PartitionPositions();
    /** Assigned partitions whose table position is not known yet (storage failed in open()). */
    private final Set<TopicPartition> unresolved = new TreeSet<>(PartitionPositions.ORDER);
    private ConnectException fatal;
    /** A transient failure outside put() (a commit): the next put() makes the worker wait and redeliver. */
    private Throwable retryCause;
    private int consecutiveFailures;
    private long tombstones;

    /**
     * @param converterFactory gives the converter; called with null when the mapping does not need
     *                         a record to know its columns, else with the first record ("auto" mode),
     *                         in which case it may return null for a null argument
     */
    public SinkSession(DeltaSinkConfig config, StorageSettings storage, Function<SinkRecord, RecordConverter> converterFactory,
                       SinkTaskContext context, Clock clock, TableCommitter.Sleeper sleeper, String engineInfo) {
        this.config = config;
        this.storage = storage;
        this.context = context;
        this.clock = clock;
        this.converterFactory = converterFactory;
        this.engineInfo = engineInfo;
        this.table = new DeltaTable(storage.createEngine(), storage.tableUri());
        this.badRecords = new BadRecords(config.toleratesErrors(), errantReporter(context));
        this.committer = new TableCommitter(table, engineInfo, config.commitMaxRetries(), config.retryBackoffMs(), sleeper);
        this.converter = converterFactory.apply(null);
        this.metrics = PluginSinkMetrics.of(context);
        this.failures = new Failures(StorageErrors.of(config));
        if (!config.s3ConditionalWrites() && StorageErrors.onS3(storage.tableUri())) {
            log.warn("{}=false: commits to {} use Delta's single-JVM S3 log store, without conditional writes. Only ONE "
                    + "connector task in ONE worker may write this table (tasks.max=1, no other writer), or commits can "
                    + "be lost", DeltaSinkConfig.S3_CONDITIONAL_WRITES, storage.tableUri());
        }
    }

    private static org.apache.kafka.connect.sink.ErrantRecordReporter errantReporter(SinkTaskContext context) {
        try {
            return context.errantRecordReporter();
        } catch (NoSuchMethodError | NoClassDefFoundError e) {
            return null; // a worker older than Kafka 2.6
        }
    }

    /** The appId under which a partition's position is stored in the table. */
    String appId(TopicPartition tp) {
        return config.appId(tp.topic(), tp.partition());
    }

    // ---- assignment -------------------------------------------------------------------------

    public void open(Collection<TopicPartition> partitions) {
        Optional<TableSnapshot> snapshot;
        try {
            snapshot = readTable();
        } catch (RuntimeException e) {
            if (stopsTheTask(e)) {
                throw fatal;
            }
            // Throwing here would kill the task: the next put() reads the positions (the worker waits between tries)
            unresolved.addAll(partitions);
            log.warn("Assigned {} but cannot read their positions from the table yet: {}; no record of them is "
                    + "taken until the table answers", partitions, failures.describe(e), e);
            return;
        }
        Map<TopicPartition, Long> seeks = place(partitions, snapshot);
        if (!seeks.isEmpty()) {
            context.offset(seeks);
        }
    }

    /** The latest snapshot, the table created or checked first when the columns are known. */
    private Optional<TableSnapshot> readTable() {
        if (converter != null) {
            return Optional.of(ensureTable());
        }
        return table.latest();
    }

    /** Takes the partitions' positions from the snapshot; returns where the consumer must seek. */
    private Map<TopicPartition, Long> place(Collection<TopicPartition> partitions, Optional<TableSnapshot> snapshot) {
        Map<TopicPartition, Long> seeks = new HashMap<>();
        Map<TopicPartition, String> report = new TreeMap<>(PartitionPositions.ORDER);
        for (TopicPartition tp : partitions) {
            Optional<Long> version = snapshot.flatMap(s -> s.txnVersion(appId(tp)));
            positions.assign(tp, version); // NO_POSITION included: a commit must expect it
            if (version.filter(PartitionPositions::isPosition).isPresent()) {
                seeks.put(tp, version.get());
                report.put(tp, "offset " + version.get() + " (from the table)");
            } else {
                String why = version.isPresent() ? "reset in the table" : "not in the table yet";
                if (config.startEarliest()) {
                    seeks.put(tp, 0L);
                    report.put(tp, "earliest (" + why + ")");
                } else {
                    report.put(tp, "the consumer group's offset (" + why + ")");
                }
            }
        }
        log.info("Assigned {} partition(s) for table {} at version {}; resuming at {}", partitions.size(),
                storage.tableUri(), snapshot.map(s -> Long.toString(s.version())).orElse("(none yet)"), report);
        return seeks;
    }

    /**
     * Reads the positions open() could not (at the start of put(), before any record is looked at):
     * the rewinds are handed to the worker at the end of this put() and records ahead of them are
     * skipped meanwhile. Throws while storage stays down.
     */
    private void resolvePositions() {
        Optional<TableSnapshot> snapshot;
        try {
            snapshot = readTable();
        } catch (RuntimeException e) {
            if (stopsTheTask(e)) {
                throw fatal;
            }
            log.warn("Still cannot read the positions of {} from the table: {}", unresolved, failures.describe(e));
            throw retry(e);
        }
        positions.rewind(place(unresolved, snapshot));
        unresolved.clear();
        consecutiveFailures = 0;
    }

    public void close(Collection<TopicPartition> partitions) {
        if (hasPendingWork()) {
            // The commit before close did not happen or failed: drop the batch, the table's offsets
            // (what the next owner resumes from) are unaffected; partitions we keep are rewound.
            log.warn("Closing {} with an uncommitted batch of {} rows: dropping it; the records will be read again",
                    partitions, writer == null ? 0 : writer.rowsBuffered());
            discardBatch(List.of());
        }
        positions.unassign(partitions);
        unresolved.removeAll(partitions);
    }

    public void stop() {
        if (writer != null) {
            try {
                writer.abort();
            } catch (IOException | RuntimeException e) {
                log.warn("Could not remove uncommitted files on stop; vacuum will remove them: {}", e.toString());
                log.debug("Removing uncommitted files failed", e);
            }
        }
    }

    // ---- records ------------------------------------------------------------------------------

    public void put(Collection<SinkRecord> records) {
        if (fatal != null) {
            throw fatal;
        }
        if (retryCause != null) {
            Throwable cause = retryCause;
            retryCause = null;
            throw retry(cause); // the records are delivered again after the worker's wait
        }
        if (!unresolved.isEmpty()) {
            resolvePositions();
        }
        List<SinkRecord> list = records instanceof List<SinkRecord> l ? l : new ArrayList<>(records);
        for (int i = 0; i < list.size(); i++) {
            SinkRecord record = list.get(i);
            TopicPartition tp = new TopicPartition(record.topic(), record.kafkaPartition());
            long offset = record.kafkaOffset();
            if (!positions.admit(tp, offset)) {
                log.trace("Skipping {}@{}: already in the table or the batch, or ahead of a rewind", tp, offset);
                continue;
            }
            try {
                accept(record);
            } catch (IOException | RuntimeException e) {
                if (stopsTheTask(e)) {
                    throw fatal;
                }
                // the worker logs the RetriableException with its cause
                log.warn("Writing data files failed: {}; dropping the batch and reading again from the table's offsets",
                        failures.describe(e));
                discardBatch(list.subList(i, list.size()));
                throw retry(e);
            }
            positions.taken(tp, offset);
        }
        requestPendingSeeks();
        if (writer != null && config.flushMaxRecords() > 0 && writer.rowsBuffered() >= config.flushMaxRecords()) {
            context.requestCommit();
        }
    }

    /** Hands the pending rewinds of still-assigned partitions to the worker (from put() only). */
    private void requestPendingSeeks() {
        Map<TopicPartition, Long> seeks = positions.takeSeeks();
        if (!seeks.isEmpty()) {
            context.offset(seeks);
        }
    }

    private void accept(SinkRecord record) throws IOException {
        if (record.value() == null) {
            if (config.failOnNullValues()) {
                throw new DataException("Record " + record.topic() + "/" + record.kafkaPartition() + "@"
                        + record.kafkaOffset() + " has a null value (tombstone) and behavior.on.null.values=fail");
            }
            tombstones++;
            metrics.tombstone();
            return;
        }
        if (converter == null) {
            converter = converterFactory.apply(record);
            log.info("Columns derived from {}/{}@{}: {}", record.topic(), record.kafkaPartition(),
                    record.kafkaOffset(), converter.schema());
        }
        if (!tableChecked) {
            ensureTable();
        }
        Object[] row;
        try {
            row = converter.convert(record);
        } catch (DataException e) {
            badRecords.handle(record, e);
            metrics.badRecord();
            return;
        }
        writer().write(row);
    }

    private PartitionedWriter writer() throws IOException {
        if (writer == null) {
            WriterSettings settings = new WriterSettings(config.compression(), config.rowGroupBytes(),
                    config.pageBytes(), config.fileTargetBytes(), config.bufferMaxBytes(), config.statsColumns(),
                    config.bufferMaxOpenFiles(), storage.uploadBufferBytesPerFile());
            writer = new PartitionedWriter(settings, converter.schema(), config.partitionColumns(),
                    storage.tablePath(), storage.hadoopConf(), clock);
        }
        return writer;
    }

    private TableSnapshot ensureTable() {
        if (!config.autoCreate()) {
            TableSnapshot s = table.latest().orElseThrow(() -> new ConnectException("No Delta table at "
                    + storage.tableUri() + " and table.auto.create=false: create it or set table.auto.create=true"));
            tableChecked = true;
            return s;
        }
        TableSnapshot s = table.createOrCheck(converter.schema(), config.partitionColumns(), config.tableProperties(),
                engineInfo);
        tableChecked = true;
        return s;
    }

    // ---- commit ---------------------------------------------------------------------------------

    /** Commits the batch (if any) and returns the offsets the table now holds for assigned partitions. */
    public Map<TopicPartition, OffsetAndMetadata> commit() {
        if (fatal == null && hasPendingWork()) {
            commitBatch();
        }
        return positions.tableOffsets();
    }

    private boolean hasPendingWork() {
        return positions.batchMoved() || (writer != null && writer.rowsBuffered() > 0);
    }

    private void commitBatch() {
        long started = clock.millis();
        List<DataFile> files = List.of();
        try {
            files = writer == null ? List.of() : writer.finish();
            Map<String, Optional<Long>> expected = new LinkedHashMap<>();
            Map<String, Long> versions = new LinkedHashMap<>();
            Map<TopicPartition, Long> advanced = positions.batchEnds();
            for (Map.Entry<TopicPartition, Long> e : advanced.entrySet()) {
                String appId = appId(e.getKey());
                expected.put(appId, positions.tableOffset(e.getKey()));
                versions.put(appId, e.getValue());
            }
            if (files.isEmpty() && versions.isEmpty()) {
                return;
            }
            if (!tableChecked) {
                // only offsets moved (tombstones, bad records) before any row gave us a schema
                if (table.latest().isEmpty()) {
                    log.debug("No table yet and no rows: nothing to commit");
                    return;
                }
                tableChecked = true;
            }
            TableCommitter.Outcome outcome = committer.commit(files, expected, versions);
            if (outcome instanceof TableCommitter.Committed c) {
                positions.committed(advanced);
                consecutiveFailures = 0;
                long rows = files.stream().mapToLong(f -> f.stats().numRecords()).sum();
                metrics.committed(files.size(), rows, clock.millis() - started, c.attempts());
                log.info("Committed version {} of {}: {} file(s), {} row(s), {} ms, {} attempt(s), offsets {}",
                        c.version(), storage.tableUri(), files.size(), rows, clock.millis() - started, c.attempts(),
                        advanced);
            } else {
                TableCommitter.Fenced f = (TableCommitter.Fenced) outcome;
                deleteFiles(files);
                Map<TopicPartition, Optional<Long>> now = new HashMap<>();
                for (TopicPartition tp : advanced.keySet()) {
                    now.put(tp, f.tableVersions().getOrDefault(appId(tp), Optional.empty()));
                }
                Map<TopicPartition, Long> seeks = positions.fenced(now);
                metrics.fenced();
                log.warn("Batch dropped: another writer committed these partitions first (table version {}); "
                        + "resuming from the table at {}", f.tableVersion(), seeks);
            }
        } catch (IOException | RuntimeException e) {
            // The outcome of a failed commit may be unknown (the log file may have landed), so its
            // files are left in place: if it landed they are referenced, if not they are orphans for
            // vacuum. Rewinding is safe either way: a commit that did land moved our txn versions,
            // so the next attempt is fenced and re-seeks to them.
            if (stopsTheTask(e)) {
                return;
            }
            log.warn("Commit to {} failed: {}; dropping the batch and reading again from the table's offsets",
                    storage.tableUri(), failures.describe(e), e);
            discardBatch(List.of());
            retryCause = e; // preCommit must not throw: the next put() asks the worker to wait
        }
    }

    // ---- failure handling --------------------------------------------------------------------------

    /**
     * Drops the uncommitted batch and rewinds (at the end of the next put) every partition it touched
     * and those of {@code unread}.
     */
    private void discardBatch(List<SinkRecord> unread) {
        if (hasPendingWork()) {
            metrics.batchDropped();
        }
        if (writer != null) {
            try {
                writer.abort();
            } catch (IOException | RuntimeException e) {
                log.warn("Could not delete uncommitted files; vacuum will remove them: {}", e.toString());
                log.debug("Deleting uncommitted files failed", e);
            }
        }
        positions.dropBatch(unread);
    }

    private void deleteFiles(List<DataFile> files) {
        for (DataFile f : files) {
            try {
                Path p = new Path(storage.tablePath(), f.path());
                FileSystem fs = p.getFileSystem(storage.hadoopConf());
                fs.delete(p, false);
            } catch (IOException | RuntimeException e) {
                log.warn("Could not delete uncommitted file {}; vacuum will remove it: {}", f.path(), e.toString());
                log.debug("Deleting {} failed", f.path(), e);
            }
        }
    }

    /**
     * Makes the worker wait and deliver the current batch again: hands the pending rewinds to it (they
     * stay pending, so the redelivered records ahead of them are skipped and read after the seek),
     * sets the wait (commit.retry.backoff.ms, doubling per consecutive failure, capped) and returns
     * the exception for put() to throw.
     */
    private RetriableException retry(Throwable cause) {
        Map<TopicPartition, Long> seeks = positions.pendingSeeks();
        if (!seeks.isEmpty()) {
            context.offset(seeks);
        }
        long wait = Math.min(TableCommitter.MAX_BACKOFF_MS, config.retryBackoffMs() << Math.min(consecutiveFailures, 16));
        consecutiveFailures++;
        context.timeout(wait);
        return new RetriableException(failures.describe(cause) + "; retrying in " + wait + " ms", cause);
    }

    /**
     * Whether {@code e} is permanent (see {@link Failures}); if so it is kept in {@code fatal} (every
     * later put() throws it), logged, and the batch is dropped.
     */
    private boolean stopsTheTask(Throwable e) {
        ConnectException permanent = failures.fatal(e);
        if (permanent == null) {
            return false;
        }
        fatal = permanent;
        log.error("Task stops: {}", permanent.getMessage());
        discardBatch(List.of());
        return true;
    }

    long tombstones() {
        return tombstones;
    }

    long badRecords() {
        return badRecords.reported();
    }
}
