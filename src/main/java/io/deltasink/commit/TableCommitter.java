package io.deltasink.commit;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

import org.apache.kafka.connect.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.deltasink.table.CommitConflictException;
import io.deltasink.table.CommitOutcomeUnknownException;
import io.deltasink.table.DeltaTable;
import io.deltasink.table.TableSnapshot;

/**
 * The one fenced commit path: a commit that moves some txn versions (the session's batches, the
 * offsets set through the worker's REST API) lands only if every one of those versions is still
 * what the writer expects.
 *
 * <p>Before each attempt the latest snapshot is loaded and every expected txn version is compared.
 * If one moved, another writer (a zombie task, a duplicate connector, a running task while offsets
 * are set) got there first and the commit is refused ({@link Fenced}): nothing of it is in the
 * table. If only unrelated commits landed, the commit is rebuilt on the new snapshot, with backoff,
 * up to the configured number of retries. An attempt whose outcome cannot be told
 * ({@link CommitOutcomeUnknownException}) ends the call: the caller keeps its data files.
 */
final class TableCommitter {
    private static final Logger log = LoggerFactory.getLogger(TableCommitter.class);

    sealed interface Outcome permits Committed, Fenced {
    }

    /** The commit landed at {@code version}. */
    record Committed(long version, int attempts) implements Outcome {
    }

    /**
     * Some expected txn versions had moved; the commit was not attempted on that snapshot and no
     * earlier attempt of this call landed.
     *
     * @param tableVersions every expected appId -> its version in the table now
     * @param moved         the appIds whose version differs from the expected one
     * @param tableVersion  the table version that showed it
     */
    record Fenced(Map<String, Optional<Long>> tableVersions, Set<String> moved, long tableVersion)
            implements Outcome {
    }

    public interface Sleeper {
        void sleep(long ms) throws InterruptedException;
    }

    /** One commit attempt on top of a snapshot; throws as {@link DeltaTable#commitAppend} does. */
    @FunctionalInterface
    interface Attempt {
        long commitOn(TableSnapshot base);
    }

    private final DeltaTable table;
    private final int maxRetries;
    private final long backoffMs;
    private final Sleeper sleeper;
    private final Consumer<TableSnapshot> beforeAttempt;

    TableCommitter(DeltaTable table, int maxRetries, long backoffMs, Sleeper sleeper) {
        this(table, maxRetries, backoffMs, sleeper, snapshot -> { });
    }

    /** @param beforeAttempt called with the snapshot an attempt builds on, after the fencing check (a test seam) */
    TableCommitter(DeltaTable table, int maxRetries, long backoffMs, Sleeper sleeper,
                   Consumer<TableSnapshot> beforeAttempt) {
        this.table = Objects.requireNonNull(table, "table");
        this.maxRetries = maxRetries;
        this.backoffMs = backoffMs;
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.beforeAttempt = Objects.requireNonNull(beforeAttempt, "beforeAttempt");
    }

    /**
     * @param expected appId -> the txn version the commit expects in the table (empty: none yet)
     * @param attempt  builds and commits the transaction on the snapshot it is given
     * @throws RetriableException              when the race for a new version was lost more than
     *                                         {@code maxRetries} times in a row
     * @throws CommitOutcomeUnknownException   when an attempt may or may not have landed
     */
    Outcome commit(Map<String, Optional<Long>> expected, Attempt attempt) {
        for (int attempts = 0; ; attempts++) {
            TableSnapshot snapshot = table.latest().orElseThrow(() -> new IllegalStateException(
                    "the table at " + table.path() + " disappeared while the connector was writing to it"));
            Map<String, Optional<Long>> now = new HashMap<>();
            Set<String> moved = new TreeSet<>();
            for (Map.Entry<String, Optional<Long>> e : expected.entrySet()) {
                Optional<Long> actual = snapshot.txnVersion(e.getKey());
                now.put(e.getKey(), actual);
                if (!Objects.equals(actual, e.getValue())) {
                    moved.add(e.getKey());
                }
            }
            if (!moved.isEmpty()) {
                log.warn("Fenced at table version {} of {}: another writer moved {} (expected {}, found {})",
                        snapshot.version(), table.path(), moved, expected, now);
                return new Fenced(now, moved, snapshot.version());
            }
            beforeAttempt.accept(snapshot);
            try {
                return new Committed(attempt.commitOn(snapshot), attempts + 1);
            } catch (CommitConflictException e) {
                if (attempts >= maxRetries) {
                    throw new RetriableException("Commit to " + table.path() + " lost the race for a new version "
                            + (attempts + 1) + " times in a row; giving up for now (commit.max.retries=" + maxRetries
                            + ")", e);
                }
                long wait = Backoff.delay(backoffMs, attempts);
                log.info("Version {} of {} was taken by another writer; retrying on the new snapshot in {} ms",
                        e.version(), table.path(), wait);
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
