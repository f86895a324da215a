package io.deltasink.commit;

import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What failures leave behind for the task's next calls (the policy itself is {@link Failures}):
 * a permanent failure is kept and thrown by every later {@code put()}; a transient one outside
 * {@code put()} (a commit, which must not throw) makes the next {@code put()} ask the worker to
 * wait; consecutive transient failures make the wait grow ({@link Backoff}).
 */
final class Recovery {
    private static final Logger log = LoggerFactory.getLogger(Recovery.class);

    private final Failures failures;
    private final SinkTaskContext context;
    private final long backoffMs;

    private ConnectException fatal;
    /** A transient failure outside put(): the next put() makes the worker wait and redeliver. */
    private Throwable retryCause;
    private int consecutiveFailures;

    Recovery(Failures failures, SinkTaskContext context, long backoffMs) {
        this.failures = failures;
        this.context = context;
        this.backoffMs = backoffMs;
    }

    /** The failure that stopped the task, or null. */
    ConnectException fatal() {
        return fatal;
    }

    /** Whether {@code e} is permanent; if so it is kept (every later put() throws it) and logged. */
    boolean stops(Throwable e) {
        ConnectException permanent = failures.fatal(e);
        if (permanent == null) {
            return false;
        }
        fatal = permanent;
        log.error("Task stops: {}", permanent.getMessage());
        return true;
    }

    /** A transient failure where nothing may be thrown: the next put() raises it (see {@link #takeLater()}). */
    void later(Throwable cause) {
        retryCause = cause;
    }

    /** The transient failure kept by {@link #later}, forgotten now; null when there is none. */
    Throwable takeLater() {
        Throwable cause = retryCause;
        retryCause = null;
        return cause;
    }

    /** Storage answered again: the next failure waits the shortest time. */
    void recovered() {
        consecutiveFailures = 0;
    }

    /**
     * Sets the worker's wait before it delivers the batch again (commit.retry.backoff.ms, doubling
     * per consecutive failure, capped) and returns the exception for put() to throw.
     */
    RetriableException retry(Throwable cause) {
        long wait = Backoff.delay(backoffMs, consecutiveFailures);
        consecutiveFailures++;
        context.timeout(wait);
        return new RetriableException(failures.describe(cause) + "; retrying in " + wait + " ms", cause);
    }

    /** A failure for the log: what happened to the table. */
    String describe(Throwable t) {
        return failures.describe(t);
    }
}
