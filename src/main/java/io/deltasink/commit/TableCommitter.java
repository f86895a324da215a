package io.deltasink.commit;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.apache.kafka.connect.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.deltasink.model.DataFile;
import io.deltasink.table.CommitConflictException;
import io.deltasink.table.DeltaTable;
import io.deltasink.table.TableSnapshot;

/**
 * Commits one flush: new files plus the txn version of each Kafka partition, as ONE Delta
 * commit, fenced against other writers of the same partitions.
 *
 * <p>Before each attempt the latest snapshot is loaded and every partition's txn version must
 * still equal the version this batch started from. If one moved, another writer (a zombie task,
 * a duplicate connector) got there first and the batch is refused ({@link Fenced}). If only
 * unrelated commits landed, the commit is rebuilt on the new snapshot, with backoff, up to the
 * configured number of retries.
 */
final class TableCommitter {
    private static final Logger log = LoggerFactory.getLogger(TableCommitter.class);
    static final long MAX_BACKOFF_MS = 30_000L;

    sealed interface Outcome permits Committed, Fenced {
    }

    /** The commit landed at {@code version}. */
    record Committed(long version, int attempts) implements Outcome {
    }

    /** Another writer moved some of the partitions: their versions as the table has them now. */
    record Fenced(Map<String, Optional<Long>> tableVersions, long tableVersion) implements Outcome {
    }

    public interface Sleeper {
        void sleep(long ms) throws InterruptedException;
    }

    private final DeltaTable table;
    private final String engineInfo;
    private final int maxRetries;
    private final long backoffMs;
    private final Sleeper sleeper;
    private final java.util.function.Consumer<TableSnapshot> beforeAttempt;

    TableCommitter(DeltaTable table, String engineInfo, int maxRetries, long backoffMs, Sleeper sleeper) {
        this(table, engineInfo, maxRetries, backoffMs, sleeper, snapshot -> { });
    }

    /** @param beforeAttempt called with the snapshot an attempt builds on, after the fencing check (a test seam) */
    TableCommitter(DeltaTable table, String engineInfo, int maxRetries, long backoffMs, Sleeper sleeper,
                   java.util.function.Consumer<TableSnapshot> beforeAttempt) {
        this.beforeAttempt = beforeAttempt;
        this.table = table;
        this.engineInfo = engineInfo;
        this.maxRetries = maxRetries;
        this.backoffMs = backoffMs;
        this.sleeper = sleeper;
    }

    /**
     * @param files       the data files of this flush (may be empty when only offsets moved)
     * @param expected    appId -> the txn version this batch started from (empty: the table had none)
     * @param newVersions appId -> the txn version to record (next offset to read)
     */
    Outcome commit(List<DataFile> files, Map<String, Optional<Long>> expected, Map<String, Long> newVersions) {
        for (int attempt = 0; ; attempt++) {
            TableSnapshot snapshot = table.latest().orElseThrow(() -> new IllegalStateException(
                    "the table at " + table.path() + " disappeared while the connector was writing to it"));
            Map<String, Optional<Long>> moved = new HashMap<>();
            for (Map.Entry<String, Optional<Long>> e : expected.entrySet()) {
                Optional<Long> actual = snapshot.txnVersion(e.getKey());
                if (!Objects.equals(actual, e.getValue())) {
                    moved.put(e.getKey(), actual);
                }
            }
            if (!moved.isEmpty()) {
                Map<String, Optional<Long>> now = new HashMap<>();
                for (String appId : expected.keySet()) {
                    now.put(appId, snapshot.txnVersion(appId));
                }
                log.warn("Fenced at table version {}: another writer moved {} (expected {})",
                        snapshot.version(), moved, expected);
                return new Fenced(now, snapshot.version());
            }
            beforeAttempt.accept(snapshot);
            try {
                long version = table.commitAppend(snapshot, files, newVersions, engineInfo);
                return new Committed(version, attempt + 1);
            } catch (CommitConflictException e) {
                if (attempt >= maxRetries) {
                    throw new RetriableException("Commit to " + table.path() + " lost the race for a new version "
                            + (attempt + 1) + " times in a row; giving up for now (commit.max.retries=" + maxRetries
                            + ")", e);
                }
                long wait = Math.min(MAX_BACKOFF_MS, backoffMs << Math.min(attempt, 16));
                log.info("Version {} of {} was taken by another writer; retrying on the new snapshot in {} ms",
                        snapshot.version() + 1, table.path(), wait);
                try {
                    sleeper.sleep(wait);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new RetriableException("interrupted while retrying a commit", ie);
                }
            }
        }
    }
}
