package io.deltasink.maintenance;

/**
 * When the connector's compaction and vacuum are due: compaction every interval and/or after a number
 * of the task's commits, vacuum every interval; each first run one interval after the task started,
 * but no later than {@link #FIRST_RUN_CAP_MS}, so a worker restarted more often than a daily
 * interval still vacuums. Intervals count from the start of the previous run. Not thread-safe: its
 * owner guards it.
 */
final class MaintenancePace {
    static final long FIRST_RUN_CAP_MS = 5 * 60_000L;
    private static final long NEVER = Long.MAX_VALUE;

    private final boolean compaction;
    private final long compactionIntervalMs;
    private final int compactionCommits;
    private final long vacuumIntervalMs;
    private long nextCompactionAt;
    private long nextVacuumAt;
    private int commits;

    /**
     * @param compactionIntervalMs 0: time does not trigger compaction
     * @param compactionCommits    0: commits do not trigger compaction
     * @param vacuumIntervalMs     0: no vacuum
     */
    MaintenancePace(boolean compaction, long compactionIntervalMs, int compactionCommits, long vacuumIntervalMs,
                    long startMs) {
        this.compaction = compaction;
        this.compactionIntervalMs = compactionIntervalMs;
        this.compactionCommits = compactionCommits;
        this.vacuumIntervalMs = vacuumIntervalMs;
        this.nextCompactionAt = compaction && compactionIntervalMs > 0
                ? startMs + Math.min(compactionIntervalMs, FIRST_RUN_CAP_MS) : NEVER;
        this.nextVacuumAt = vacuumIntervalMs > 0 ? startMs + Math.min(vacuumIntervalMs, FIRST_RUN_CAP_MS) : NEVER;
    }

    /** One of the task's batches landed as a commit. */
    void committed() {
        commits++;
    }

    boolean compactionDue(long nowMs) {
        return compaction && (nowMs >= nextCompactionAt || compactionCommits > 0 && commits >= compactionCommits);
    }

    boolean vacuumDue(long nowMs) {
        return nowMs >= nextVacuumAt;
    }

    void compactionStarted(long nowMs) {
        commits = 0;
        nextCompactionAt = compactionIntervalMs > 0 ? nowMs + compactionIntervalMs : NEVER;
    }

    void vacuumStarted(long nowMs) {
        nextVacuumAt = nowMs + vacuumIntervalMs;
    }

    /** The earliest time something is due by the clock (commits aside); {@link Long#MAX_VALUE} if never. */
    long nextDueAt() {
        return Math.min(nextCompactionAt, nextVacuumAt);
    }
}
