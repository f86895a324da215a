package io.deltasink.commit;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

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
 *
 * <p>Reading a txn version is a log replay per appId. After a commit of this committer landed at
 * version V, the txn versions of V are known without one: those the commit wrote, and those the check
 * before it read (V is built on the snapshot they were read from). They are used only while the latest
 * snapshot is still V; once any other commit landed (another writer, offsets set through the REST
 * API, a compaction) the version differs and they are read from the log again. A call that does not
 * land (fenced, lost races, an exception, an unknown outcome) forgets them.
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

    /** The race for a new version was lost more than the configured number of times in a row. */
    static final class RacesLost extends RetriableException {
        RacesLost(String message, Throwable cause) {
            super(message, cause);
        }
    }

    public interface Sleeper {
        void sleep(long ms) throws InterruptedException;
    }

    /**
     * What a commit writes: the txn versions, and one attempt on top of a snapshot, which returns the
     * version it landed at and throws as {@link DeltaTable#commitAppend} does.
     *
     * @param writes appId -> the txn version the attempt writes
     */
    record Attempt(Map<String, Long> writes, ToLongFunction<TableSnapshot> commitOn) {
        Attempt {
            Objects.requireNonNull(writes, "writes");
            Objects.requireNonNull(commitOn, "commitOn");
        }
    }

    private final DeltaTable table;
    private final int maxRetries;
    private final long backoffMs;
    private final Sleeper sleeper;
    private final Consumer<TableSnapshot> beforeAttempt;
    /** The txn versions of table version {@code knownVersion}, as this committer's last landed commit left them. */
    private Map<String, Optional<Long>> known = Map.of();
    private long knownVersion = -1;

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
     * @throws RacesLost                       when the race for a new version was lost more than
     *                                         {@code maxRetries} times in a row
     * @throws RetriableException              when the table cannot be read meanwhile (see
     *                                         {@link DeltaTable#latest}) or the wait is interrupted
     * @throws CommitOutcomeUnknownException   when an attempt may or may not have landed
     */
    Outcome commit(Map<String, Optional<Long>> expected, Attempt attempt) {
        Map<String, Optional<Long>> lastKnown = known;
        long lastKnownVersion = knownVersion;
        forget(); // until this call lands
        for (int attempts = 0; ; attempts++) {
            TableSnapshot snapshot = table.latest().orElseThrow(() -> new IllegalStateException(
                    "the table at " + table.path() + " disappeared while the connector was writing to it"));
            Map<String, Optional<Long>> now = new HashMap<>();
            Set<String> moved = new TreeSet<>();
            for (Map.Entry<String, Optional<Long>> e : expected.entrySet()) {
                Optional<Long> actual = snapshot.version() == lastKnownVersion && lastKnown.containsKey(e.getKey())
                        ? lastKnown.get(e.getKey())
                        : snapshot.txnVersion(e.getKey());
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
                long version = attempt.commitOn().applyAsLong(snapshot);
                if (version == snapshot.version() + 1) { // always so: an attempt never rebases
                    remember(version, now, attempt.writes());
                }
                return new Committed(version, attempts + 1);
            } catch (CommitConflictException e) {
                if (attempts >= maxRetries) {
                    throw new RacesLost("Commit to " + table.path() + " lost the race for a new version "
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

    /** The txn versions of {@code version}, a commit of ours on a snapshot that held {@code checked}. */
    private void remember(long version, Map<String, Optional<Long>> checked, Map<String, Long> writes) {
        Map<String, Optional<Long>> k = new HashMap<>(checked);
        writes.forEach((appId, v) -> k.put(appId, Optional.of(v)));
        known = k;
        knownVersion = version;
    }

    private void forget() {
        known = Map.of();
        knownVersion = -1;
    }
}
