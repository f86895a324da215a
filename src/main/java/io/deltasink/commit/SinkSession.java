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
import io.deltasink.convert.ConverterFactory;
import io.deltasink.convert.RecordConversionException;
import io.deltasink.convert.RecordConverter;
import io.deltasink.metrics.PluginSinkMetrics;
import io.deltasink.metrics.SinkMetrics;
import io.deltasink.model.DataFile;
import io.deltasink.storage.StorageErrors;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;
import io.deltasink.table.TableSnapshot;
import io.deltasink.write.PartitionedWriter;
import io.deltasink.write.RowRejectedException;
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
    private final ConverterFactory converterFactory;
    private final BadRecords badRecords;
    private final String engineInfo;
    private final TableCommitter committer;
    private final Ownership ownership;
    private final SinkMetrics metrics;
    private final Failures failures;

    private RecordConverter converter;
    private PartitionedWriter writer;
    private boolean tableChecked;

    private final PartitionPositions positions = new PartitionPositions();
    /** Partitions resumed from another connector's position, until the first commit retires its appId. */
    private final Map<TopicPartition, Ownership.Adopt> adopted = new HashMap<>();
    /** Assigned partitions whose table position is not known yet (storage failed in open()). */
    private final Set<TopicPartition> unresolved = new TreeSet<>(PartitionPositions.ORDER);
    private ConnectException fatal;
    /** A transient failure outside put() (a commit): the next put() makes the worker wait and redeliver. */
    private Throwable retryCause;
    private int consecutiveFailures;
    private long tombstones;

    /**
     * @param converterFactory gives the converter: first called with null, which gives the converter
     *                         of a configured mapping or null in "auto" mode; in auto mode the
     *                         converter then comes from the existing table's columns, else from the
     *                         first record (one that gives no columns is a bad record)
     */
    public SinkSession(DeltaSinkConfig config, StorageSettings storage, ConverterFactory converterFactory,
                       SinkTaskContext context, Clock clock, TableCommitter.Sleeper sleeper, String engineInfo) {
        this.config = config;
        this.storage = storage;
        this.context = context;
        this.clock = clock;
        this.converterFactory = converterFactory;
        this.engineInfo = engineInfo;
        this.table = new DeltaTable(storage.createEngine(), storage.tableUri());
        this.badRecords = new BadRecords(config.toleratesErrors(), errantReporter(context));
        this.committer = new TableCommitter(table, config.commitMaxRetries(), config.retryBackoffMs(), sleeper);
        this.ownership = new Ownership(config.appIdTemplate(), config.connectorName(), config.adoptConnectors());
        this.converter = converterFactory.create(null);
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
        Map<TopicPartition, Long> seeks;
        try {
            seeks = place(partitions, readTable()); // reading the positions may fail too
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
        handSeeks(seeks);
    }

    /**
     * The latest snapshot, the table created or checked first when the columns are known (in auto
     * mode an existing table gives the columns), with every appId's position read: all storage
     * access of placing partitions happens here.
     */
    private Optional<TableSnapshot> readTable() {
        Optional<TableSnapshot> snapshot;
        if (converter == null) {
            snapshot = table.latest();
            if (takeTableColumns(snapshot)) {
                snapshot = Optional.of(ensureTable());
            }
        } else {
            snapshot = Optional.of(ensureTable());
        }
        snapshot.ifPresent(TableSnapshot::allTxnVersions);
        return snapshot;
    }

    /**
     * Takes the partitions' positions from the snapshot; returns where the consumer must seek. A
     * partition whose position another connector keeps in the table is taken over when that
     * connector is named in txn.adopt.connectors; otherwise the task stops (both would write every
     * record).
     */
    private Map<TopicPartition, Long> place(Collection<TopicPartition> partitions, Optional<TableSnapshot> snapshot) {
        Map<TopicPartition, Long> seeks = new HashMap<>();
        Map<TopicPartition, String> report = new TreeMap<>(PartitionPositions.ORDER);
        Map<TopicPartition, Map<String, Long>> refused = new TreeMap<>(PartitionPositions.ORDER);
        Map<String, Long> txn = snapshot.map(TableSnapshot::allTxnVersions).orElse(Map.of()); // read already
        for (TopicPartition tp : partitions) {
            Optional<Long> version = Optional.ofNullable(txn.get(appId(tp)));
            adopted.remove(tp);
            if (snapshot.isPresent()) {
                Ownership.Claim claim = ownership.claim(tp, version, txn);
                if (claim instanceof Ownership.Refuse r) {
                    refused.put(tp, r.others());
                    continue;
                }
                if (claim instanceof Ownership.Adopt a) {
                    adopted.put(tp, a);
                    version = Optional.of(a.version());
                }
            }
            positions.assign(tp, version); // NO_POSITION included: a commit must expect it
            if (version.filter(PartitionPositions::isPosition).isPresent()) {
                seeks.put(tp, version.get());
                Ownership.Adopt a = adopted.get(tp);
                report.put(tp, "offset " + version.get() + (a == null ? " (from the table)"
                        : " (adopted from appId " + a.appId() + ", retired at the first commit)"));
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
        if (!refused.isEmpty()) {
            throw new ConnectException(othersWrite(refused));
        }
        log.info("Assigned {} partition(s) for table {} at version {}; resuming at {}", partitions.size(),
                storage.tableUri(), snapshot.map(s -> Long.toString(s.version())).orElse("(none yet)"), report);
        return seeks;
    }

    private String othersWrite(Map<TopicPartition, Map<String, Long>> refused) {
        Map.Entry<TopicPartition, Map<String, Long>> first = refused.entrySet().iterator().next();
        String names = ownership.connectorsOf(first.getKey(), first.getValue().keySet());
        return "Delta table " + storage.tableUri() + " holds positions of " + refused.keySet() + " under other "
                + "appIds than this connector's (" + appId(first.getKey()) + " ...): " + refused.values()
                + ". Another connector writes (or wrote) these Kafka partitions into this table; if both wrote, every "
                + "record would be in the table twice. If this connector was renamed from "
                + (names.isEmpty() ? "another one" : "'" + names + "'") + ", set " + DeltaSinkConfig.TXN_ADOPT_CONNECTORS
                + "=" + (names.isEmpty() ? "<its name>" : names) + " to continue from its positions (its appIds are "
                + "then retired, which fences it should it still run); otherwise stop the other connector or set "
                + DeltaSinkConfig.TABLE_LOCATION + " to another table";
    }

    /**
     * Reads the positions open() could not (at the start of put(), before any record is looked at):
     * the rewinds are handed to the worker at the end of this put() and records ahead of them are
     * skipped meanwhile. Throws while storage stays down.
     */
    private void resolvePositions() {
        Map<TopicPartition, Long> seeks;
        try {
            seeks = place(unresolved, readTable());
        } catch (RuntimeException e) {
            if (stopsTheTask(e)) {
                throw fatal;
            }
            log.warn("Still cannot read the positions of {} from the table: {}", unresolved, failures.describe(e));
            throw retry(e);
        }
        positions.rewind(seeks);
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
        partitions.forEach(adopted::remove);
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
            positions.landedBelowSeek(tp, offset).ifPresent(sought -> log.warn("Kafka delivered {}@{} after the "
                    + "consumer was sent to offset {} (table position {}): the partition no longer holds the records "
                    + "there (topic deleted and created again, or its log truncated, e.g. by an unclean leader "
                    + "election). Records below the table position are taken as already in table {} and skipped; if "
                    + "they are new records, set the position through the worker's offsets API (PATCH "
                    + "/connectors/{}/offsets)", tp, offset, sought, positions.tableOffset(tp).map(String::valueOf)
                    .orElse("none"), storage.tableUri(), config.connectorName()));
            if (!positions.admit(tp, offset)) {
                if (positions.belowTablePosition(tp)) {
                    metrics.skippedBelowPosition();
                }
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
        handSeeks(positions.takeSeeks());
    }

    /**
     * Asks the worker to move the consumer (see {@link PartitionPositions#seekTarget} for why a
     * table position is sought one record early) and notes where it was sent.
     */
    private void handSeeks(Map<TopicPartition, Long> positionsToRead) {
        if (positionsToRead.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> targets = new HashMap<>();
        positionsToRead.forEach((tp, offset) -> targets.put(tp, positions.seekTarget(tp, offset)));
        positions.sought(targets);
        context.offset(targets);
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
        if (converter == null && !chooseConverter(record)) {
            return;
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
        PartitionedWriter w = writer();
        try {
            w.write(row);
        } catch (RowRejectedException e) { // a value the table cannot hold, e.g. a partition value too long for a folder
            badRecords.handle(record, new RecordConversionException(record, e.column(), e.value(), e.problem(), e));
            metrics.badRecord();
        }
    }

    /**
     * Auto mode, first record: the converter of the table, if another task created it meanwhile,
     * else the one derived from the record. False when the record gives no columns: it was handled
     * as a bad record (the next record tries again).
     */
    private boolean chooseConverter(SinkRecord record) {
        RecordConverter derived;
        try {
            derived = converterFactory.create(record);
        } catch (DataException e) {
            badRecords.handle(record, e);
            metrics.badRecord();
            return false;
        }
        if (!takeTableColumns(table.latest())) {
            converter = derived;
            log.info("Columns derived from {}/{}@{}: {}", record.topic(), record.kafkaPartition(),
                    record.kafkaOffset(), converter.schema());
        }
        return true;
    }

    /** Auto mode: an existing table's columns are the mapping; false when there is no table. */
    private boolean takeTableColumns(Optional<TableSnapshot> existing) {
        RecordConverter fromTable = existing.map(s -> converterFactory.forTable(s.rowSchema())).orElse(null);
        if (fromTable == null) {
            return false;
        }
        converter = fromTable;
        log.info("Columns taken from the existing table {} (version {}): {}", storage.tableUri(),
                existing.get().version(), converter.schema());
        return true;
    }

    private PartitionedWriter writer() throws IOException {
        if (writer == null) {
            WriterSettings settings = new WriterSettings(config.compression(), config.rowGroupBytes(),
                    config.pageBytes(), config.fileTargetBytes(), config.bufferMaxBytes(), config.statsColumns());
            writer = new PartitionedWriter(settings, converter.schema(), config.partitionColumns(),
                    storage.tablePath(), storage.hadoopConf(), clock);
        }
        return writer;
    }

    private TableSnapshot ensureTable() {
        if (!config.autoCreate()) {
            TableSnapshot s = table.checkExisting(converter.schema(), config.partitionColumns(), config.tableProperties(),
                    engineInfo).orElseThrow(() -> new ConnectException("No Delta table at " + storage.tableUri()
                    + " and table.auto.create=false: create it or set table.auto.create=true"));
            tableChecked = true;
            return s;
        }
        TableSnapshot s = table.createOrCheck(converter.schema(), config.partitionColumns(), config.tableProperties(),
                engineInfo);
        tableChecked = true;
        return s;
    }

    // ---- commit ---------------------------------------------------------------------------------

    /**
     * Commits the batch (if any) and returns the offsets the table now holds for assigned
     * partitions, leaving out those the worker has not consumed up to yet.
     *
     * @param consumed the worker's consumed offsets (the next offset per partition), as preCommit gets them
     */
    public Map<TopicPartition, OffsetAndMetadata> commit(Map<TopicPartition, OffsetAndMetadata> consumed) {
        if (fatal == null && hasPendingWork()) {
            commitBatch();
        }
        return positions.tableOffsets(consumed);
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
                Ownership.Adopt a = adopted.get(e.getKey());
                expected.put(appId, a != null ? a.ownVersion() : positions.tableOffset(e.getKey()));
                versions.put(appId, e.getValue());
                if (a != null) { // the first commit after taking over retires the other connector's appId
                    expected.put(a.appId(), Optional.of(a.version()));
                    versions.put(a.appId(), TableSnapshot.NO_POSITION);
                }
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
            List<DataFile> batchFiles = files;
            TableCommitter.Outcome outcome = committer.commit(expected,
                    base -> table.commitAppend(base, batchFiles, versions, engineInfo));
            if (outcome instanceof TableCommitter.Committed c) {
                positions.committed(advanced);
                advanced.keySet().forEach(adopted::remove);
                consecutiveFailures = 0;
                long rows = files.stream().mapToLong(f -> f.stats().numRecords()).sum();
                metrics.committed(files.size(), rows, clock.millis() - started, c.attempts());
                log.info("Committed version {} of {}: {} file(s), {} row(s), {} ms, {} attempt(s), offsets {}",
                        c.version(), storage.tableUri(), files.size(), rows, clock.millis() - started, c.attempts(),
                        advanced);
            } else {
                TableCommitter.Fenced f = (TableCommitter.Fenced) outcome;
                deleteFiles(files); // no attempt of this batch landed: nothing references them
                for (Ownership.Adopt a : adopted.values()) {
                    if (f.moved().contains(a.appId())) {
                        stopsTheTask(new ConnectException("The connector that wrote appId " + a.appId() + " into table "
                                + storage.tableUri() + " still runs: it committed again after this connector took over "
                                + "its position (" + DeltaSinkConfig.TXN_ADOPT_CONNECTORS + "). Stop it, then restart "
                                + "this connector's task"));
                        return;
                    }
                }
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
        handSeeks(positions.pendingSeeks());
        long wait = Backoff.delay(config.retryBackoffMs(), consecutiveFailures);
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
