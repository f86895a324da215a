package io.deltasink.commit;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;

import io.deltasink.storage.StorageErrors;
import io.deltasink.table.TableErrors;
import io.deltasink.table.UnusableTableException;

/**
 * The one exception policy.
 *
 * <p>Fatal: a problem the user must fix. A permanent storage problem (S3 access denied, no such
 * bucket, an endpoint host that does not resolve, a store without conditional writes) fails the
 * task at once with a message from {@link StorageErrors} naming the setting to change; a table the
 * connector cannot use as it is (a protocol or table feature beyond its Delta Kernel, a gap in the
 * log, a damaged commit file or checkpoint: {@link UnusableTableException}, from
 * {@link TableErrors}) with a message naming the table, the version and what to do; so do
 * configuration errors, a table that does not match, a bad record without tolerance.
 *
 * <p>Retriable: storage blips (connection refused or reset, timeouts, HTTP 5xx, throttling), also
 * while reading the log or a checkpoint, a log listing that contradicts itself, and commit races
 * lost too often. The session drops what it buffered and rewinds to the table's
 * offsets; the wait happens in the worker, not in the task thread: {@code put()} hands the
 * rewinds to {@code context.offset}, sets {@code context.timeout} (exponential from
 * commit.retry.backoff.ms, capped) and throws {@link RetriableException}, so the worker pauses
 * the partitions, waits in its poll (keeping the group membership) and delivers the same batch
 * again. A failure in {@code preCommit} or {@code open} is remembered and raised by the next
 * {@code put()}, because neither may throw: Connect would rewind to its own committed offsets
 * (preCommit) or kill the task (open).
 */
final class Failures {
    private final StorageErrors storage;

    Failures(StorageErrors storage) {
        this.storage = storage;
    }

    /** The error that stops the task for this failure, or null when it is worth retrying. */
    ConnectException fatal(Throwable t) {
        StorageErrors.Problem problem = StorageErrors.classify(t);
        if (problem.permanent()) {
            return new ConnectException(storage.message(t), t);
        }
        UnusableTableException unusable = TableErrors.unusable(t, storage.tableUri());
        if (unusable != null) {
            return unusable;
        }
        if (problem == StorageErrors.Problem.UNREACHABLE || t instanceof RetriableException) {
            return null;
        }
        boolean fatal = t instanceof ConfigException
                || t instanceof DataException
                || t instanceof ConnectException
                || t instanceof IllegalArgumentException
                || t instanceof IllegalStateException
                || t instanceof UnsupportedOperationException
                || t instanceof Error;
        if (!fatal) {
            return null;
        }
        return t instanceof ConnectException ce ? ce : new ConnectException(t.getMessage(), t);
    }

    /** A retriable failure, for the log: what happened to the table (names s3.endpoint when unreachable). */
    String describe(Throwable t) {
        if (t instanceof RetriableException && StorageErrors.classify(t) == StorageErrors.Problem.TRANSIENT) {
            return t.getMessage();
        }
        return storage.message(t);
    }
}
