package io.deltasink.commit;

import java.io.IOException;
import java.time.Clock;
import java.util.List;

import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.deltasink.metrics.SinkMetrics;

/**
 * One table under a task's {@link SinkSession}: its batch ({@link TableBatch}: rows, files, the
 * commit) and the positions of the Kafka partitions that feed it ({@link Assignment}: the txn
 * versions the table holds and the batch will write and expect). The session routes each record
 * to the route of its table; every route commits, fails and rewinds on its own.
 */
final class TableRoute {
    private static final Logger log = LoggerFactory.getLogger(TableRoute.class);

    /** What committing the route's batch came to. */
    enum Outcome { NOTHING, LANDED, FENCED }

    final String tableUri;
    final Assignment assignment;
    final TableBatch batch;
    private final SinkMetrics metrics;
    private final Clock clock;
    private long landed;

    TableRoute(String tableUri, Assignment assignment, TableBatch batch, SinkMetrics metrics, Clock clock) {
        this.tableUri = tableUri;
        this.assignment = assignment;
        this.batch = batch;
        this.metrics = metrics;
        this.clock = clock;
    }

    boolean hasPendingWork() {
        return assignment.batchMoved() || batch.rowsBuffered() > 0;
    }

    /** How many of this route's batches landed as commits. */
    long landed() {
        return landed;
    }

    /**
     * Commits the batch with its partitions' txn versions. Throws what the commit throws; the
     * caller then drops the batch ({@link #discard}).
     */
    Outcome commit() throws IOException {
        long started = clock.millis();
        Assignment.BatchTxn txn = assignment.batchTxn();
        TableBatch.Result result = batch.commit(txn.expected(), txn.versions());
        if (result instanceof TableBatch.Landed c) {
            assignment.committed(txn);
            landed++;
            metrics.committed(c.files(), c.rows(), clock.millis() - started, c.attempts());
            log.info("Committed version {} of {}: {} file(s), {} row(s), {} ms, {} attempt(s), offsets {}",
                    c.version(), tableUri, c.files(), c.rows(), clock.millis() - started, c.attempts(),
                    txn.advanced());
            return Outcome.LANDED;
        }
        if (result instanceof TableBatch.Refused r) {
            var seeks = assignment.fenced(txn, r.fenced());
            metrics.fenced();
            log.warn("Batch dropped: another writer committed these partitions first (table version {}); "
                    + "resuming from the table at {}", r.fenced().tableVersion(), seeks);
            return Outcome.FENCED;
        }
        return Outcome.NOTHING; // only offsets moved while there is no table yet: they wait for the first rows
    }

    /**
     * Drops the uncommitted batch and rewinds (at the end of the next put) every partition it touched
     * and those of {@code unread} (records of this route's partitions).
     */
    void discard(List<SinkRecord> unread) {
        if (hasPendingWork()) {
            metrics.batchDropped();
        }
        batch.discard();
        assignment.dropBatch(unread);
    }
}
