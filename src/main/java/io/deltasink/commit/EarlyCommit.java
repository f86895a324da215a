package io.deltasink.commit;

import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * When a task asks the worker for a commit before its offset flush timer ({@code
 * offset.flush.interval.ms}): once {@code flush.max.records} rows are buffered, and once the consumer
 * has caught up (a backlog drained) while at least a tenth of that many rows wait, or any rows wait
 * after a commit that {@code flush.max.records} asked for (the rest of that backlog). Without the
 * second rule the last rows of a backlog wait up to a whole flush interval in closed-enough files.
 *
 * <p>Caught up is seen as a {@code put()} without records: the worker calls {@code put()} after
 * every poll of its consumer, also an empty one. Its poll waits until the next timed commit, so
 * after a {@code put()} that leaves at least the tenth buffered the task shortens that one wait to
 * {@link #IDLE_POLL_MS} ({@code context.timeout}, which the worker applies to its next poll only): a
 * consumer with records answers at once, a drained one after that wait. A stream that buffers fewer
 * rows than the tenth between two timed commits, and never reaches {@code flush.max.records}, is
 * never asked anything: it commits exactly as often as before. After a full batch the rest of the
 * backlog, however small, is committed once the consumer finds nothing, then that rule ends until the
 * next full batch: at most one such commit per full one. The request only brings the worker's
 * {@code preCommit} forward; what a commit stores (the rows in its files, the offsets of those rows)
 * is unchanged.
 */
final class EarlyCommit {
    /** The poll wait after a put() that leaves at least a tenth of flush.max.records rows buffered. */
    static final long IDLE_POLL_MS = 100;

    private final SinkTaskContext context;
    private final long maxRows;
    private final long drainedRows;
    /** A full batch asked for a commit and the consumer has not come back empty since: a backlog. */
    private boolean backlog;

    /** @param maxRows flush.max.records; 0 turns both rules off (commits on the worker's timer only) */
    EarlyCommit(SinkTaskContext context, long maxRows) {
        this.context = context;
        this.maxRows = maxRows;
        this.drainedRows = maxRows <= 0 ? Long.MAX_VALUE : Math.max(1, maxRows / 10);
    }

    /**
     * After a put() whose rows are all written ({@code records} as the worker delivered them,
     * skipped ones included).
     */
    void afterPut(int records, long rowsBuffered) {
        if (maxRows > 0 && rowsBuffered >= maxRows) {
            backlog = true;
            context.requestCommit();
        } else if (rowsBuffered >= drainedRows || backlog && rowsBuffered > 0) {
            if (records == 0) {
                context.requestCommit(); // the consumer found nothing within the short wait: drained
            } else {
                context.timeout(IDLE_POLL_MS);
            }
        }
        if (records == 0) {
            backlog = false;
        }
    }
}
