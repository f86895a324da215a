package io.deltasink.commit;

import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.ConverterFactory;
import io.deltasink.metrics.PluginSinkMetrics;
import io.deltasink.metrics.SinkMetrics;
import io.deltasink.storage.StorageErrors;
import io.deltasink.storage.StorageSettings;

/**
 * One task's write pipeline: records -> rows -> Parquet files -> one Delta commit per flush,
 * with each Kafka partition's next offset stored in the same commit. It ties together the Kafka
 * side ({@link Assignment}: positions, seeks, who else writes), the table side ({@link TableBatch}:
 * rows, files, the commit) and what failures leave behind ({@link Recovery}).
 *
 * <p>Records below a partition's table position, or below what the batch already holds, are
 * skipped, so a redelivery never duplicates. Whenever buffered work must be dropped (storage
 * failure, lost fencing), the consumer is rewound to the table's positions, so nothing is lost.
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
    private final Clock clock;
    private final BadRecords badRecords;
    private final SinkMetrics metrics;
    private final Assignment assignment;
    private final TableBatch batch;
    private final Recovery recovery;
    private final EarlyCommit earlyCommit;
    private long landed;

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
        this.clock = clock;
        this.metrics = PluginSinkMetrics.of(context);
        this.badRecords = new BadRecords(config.toleratesErrors(), errantReporter(context));
        this.assignment = new Assignment(config, context, metrics, storage.tableUri());
        this.batch = new TableBatch(config, storage, converterFactory, badRecords, metrics, clock, sleeper, engineInfo);
        this.recovery = new Recovery(new Failures(StorageErrors.of(config)), context, config.retryBackoffMs());
        this.earlyCommit = new EarlyCommit(context, config.flushMaxRecords());
        if (!config.s3ConditionalWrites() && StorageErrors.onS3(storage.tableUri())) {
            log.warn("{}=false: commits to {} use Delta's single-JVM S3 log store, without conditional writes. Only ONE "
                    + "connector task in ONE worker may write this table (tasks.max=1, no other writer), or commits can "
                    + "be lost", DeltaSinkConfig.S3_CONDITIONAL_WRITES, storage.tableUri());
        }
    }

    private static ErrantRecordReporter errantReporter(SinkTaskContext context) {
        try {
            return context.errantRecordReporter();
        } catch (NoSuchMethodError | NoClassDefFoundError e) {
            return null; // a worker older than Kafka 2.6
        }
    }

    // ---- assignment -------------------------------------------------------------------------

    public void open(Collection<TopicPartition> partitions) {
        Map<TopicPartition, Long> seeks;
        try {
            seeks = assignment.place(partitions, batch.readTable()); // reading the positions may fail too
        } catch (RuntimeException e) {
            if (stopsTheTask(e)) {
                throw recovery.fatal();
            }
            // Throwing here would kill the task: the next put() reads the positions (the worker waits between tries)
            assignment.defer(partitions);
            log.warn("Assigned {} but cannot read their positions from the table yet: {}; no record of them is "
                    + "taken until the table answers", partitions, recovery.describe(e), e);
            return;
        }
        assignment.seek(seeks);
    }

    /**
     * Reads the positions open() could not (at the start of put(), before any record is looked at):
     * the rewinds are handed to the worker at the end of this put() and records ahead of them are
     * skipped meanwhile. Throws while storage stays down.
     */
    private void resolvePositions() {
        Map<TopicPartition, Long> seeks;
        try {
            seeks = assignment.place(assignment.unresolved(), batch.readTable());
        } catch (RuntimeException e) {
            if (stopsTheTask(e)) {
                throw recovery.fatal();
            }
            log.warn("Still cannot read the positions of {} from the table: {}", assignment.unresolved(),
                    recovery.describe(e));
            throw retry(e);
        }
        assignment.resolved(seeks);
        recovery.recovered();
    }

    public void close(Collection<TopicPartition> partitions) {
        if (hasPendingWork()) {
            // The commit before close did not happen or failed: drop the batch, the table's offsets
            // (what the next owner resumes from) are unaffected; partitions we keep are rewound.
            log.warn("Closing {} with an uncommitted batch of {} rows: dropping it; the records will be read again",
                    partitions, batch.rowsBuffered());
            discardBatch(List.of());
        }
        assignment.unassign(partitions);
    }

    public void stop() {
        batch.close();
    }

    // ---- records ------------------------------------------------------------------------------

    public void put(Collection<SinkRecord> records) {
        if (recovery.fatal() != null) {
            throw recovery.fatal();
        }
        Throwable later = recovery.takeLater();
        if (later != null) {
            throw retry(later); // the records are delivered again after the worker's wait
        }
        if (!assignment.unresolved().isEmpty()) {
            resolvePositions();
        }
        List<SinkRecord> list = records instanceof List<SinkRecord> l ? l : new ArrayList<>(records);
        for (int i = 0; i < list.size(); i++) {
            SinkRecord record = list.get(i);
            TopicPartition tp = new TopicPartition(record.topic(), record.kafkaPartition());
            long offset = record.kafkaOffset();
            if (!assignment.admit(tp, offset)) {
                log.trace("Skipping {}@{}: already in the table or the batch, or ahead of a rewind", tp, offset);
                continue;
            }
            try {
                batch.accept(record);
            } catch (IOException | RuntimeException e) {
                throw writeFailed(e, list.subList(i, list.size()));
            }
            assignment.taken(tp, offset);
        }
        try {
            batch.drain(); // a failure writing this put's rows fails this put
        } catch (IOException | RuntimeException e) {
            throw writeFailed(e, List.of());
        }
        assignment.seekPending();
        earlyCommit.afterPut(list.size(), batch.rowsBuffered());
    }

    /** Drops the batch after rows could not be written; returns what put() throws. */
    private RuntimeException writeFailed(Throwable e, List<SinkRecord> unread) {
        if (stopsTheTask(e)) {
            return recovery.fatal();
        }
        // the worker logs the RetriableException with its cause
        log.warn("Writing data files failed: {}; dropping the batch and reading again from the table's offsets",
                recovery.describe(e));
        discardBatch(unread);
        return retry(e);
    }

    // ---- commit ---------------------------------------------------------------------------------

    /**
     * Commits the batch (if any) and returns the offsets the table now holds for assigned
     * partitions, leaving out those the worker has not consumed up to yet.
     *
     * @param consumed the worker's consumed offsets (the next offset per partition), as preCommit gets them
     */
    public Map<TopicPartition, OffsetAndMetadata> commit(Map<TopicPartition, OffsetAndMetadata> consumed) {
        if (recovery.fatal() == null && hasPendingWork()) {
            commitBatch();
        }
        return assignment.tableOffsets(consumed);
    }

    /** How many of this session's batches landed as commits. */
    public long landedCommits() {
        return landed;
    }

    private boolean hasPendingWork() {
        return assignment.batchMoved() || batch.rowsBuffered() > 0;
    }

    private void commitBatch() {
        long started = clock.millis();
        try {
            Assignment.BatchTxn txn = assignment.batchTxn();
            TableBatch.Result result = batch.commit(txn.expected(), txn.versions());
            if (result instanceof TableBatch.Landed c) {
                assignment.committed(txn);
                recovery.recovered();
                landed++;
                metrics.committed(c.files(), c.rows(), clock.millis() - started, c.attempts());
                log.info("Committed version {} of {}: {} file(s), {} row(s), {} ms, {} attempt(s), offsets {}",
                        c.version(), storage.tableUri(), c.files(), c.rows(), clock.millis() - started, c.attempts(),
                        txn.advanced());
            } else if (result instanceof TableBatch.Refused r) {
                Map<TopicPartition, Long> seeks = assignment.fenced(txn, r.fenced());
                metrics.fenced();
                log.warn("Batch dropped: another writer committed these partitions first (table version {}); "
                        + "resuming from the table at {}", r.fenced().tableVersion(), seeks);
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
                    storage.tableUri(), recovery.describe(e), e);
            discardBatch(List.of());
            recovery.later(e); // preCommit must not throw: the next put() asks the worker to wait
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
        batch.discard();
        assignment.dropBatch(unread);
    }

    /**
     * Makes the worker wait and deliver the current batch again: hands the pending rewinds to it (they
     * stay pending, so the redelivered records ahead of them are skipped and read after the seek) and
     * returns the exception for put() to throw.
     */
    private RetriableException retry(Throwable cause) {
        assignment.seekPendingBeforeRedelivery();
        return recovery.retry(cause);
    }

    /** Whether {@code e} is permanent (see {@link Failures}); if so the task stops and the batch is dropped. */
    private boolean stopsTheTask(Throwable e) {
        if (!recovery.stops(e)) {
            return false;
        }
        discardBatch(List.of());
        return true;
    }

    long tombstones() {
        return batch.tombstones();
    }

    long badRecords() {
        return badRecords.reported();
    }
}
