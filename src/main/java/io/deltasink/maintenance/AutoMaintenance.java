package io.deltasink.maintenance;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.metrics.MaintenanceMetrics;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;
import io.deltasink.table.TableFile;

/**
 * Compaction and vacuum of the connector's table inside one task, in a background thread of its own,
 * so that put() and preCommit() never wait for them. Only task 0 of a connector runs it (see
 * {@link #elected}): one table per connector, so one compacting task per table; in a rebalance a
 * zombie task 0 may briefly run beside the new one, which compaction's conflict rules make safe (one
 * of two racing compactions gives up, a streaming commit is retried on the new snapshot).
 *
 * <p>Paced by {@link MaintenancePace}; each run rewrites at most compaction.max.bytes.per.run, coldest
 * table partitions first (the {@link Compactor} orders them). A failed run is logged once at WARN and
 * counted; the next run is tried at the next due time; ingestion never notices. {@link #close()}
 * interrupts the run and waits at most a bounded time: a compaction stopped half way has committed
 * nothing, and the files it wrote are orphans that vacuum deletes after the retention.
 */
public final class AutoMaintenance implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AutoMaintenance.class);
    /** How long {@link #close()} waits for a run to end; the worker's task shutdown timeout is 5 s by default. */
    static final Duration STOP_WAIT = Duration.ofSeconds(3);
    /** Longest single wait of the thread, so that a clock that jumps is noticed. */
    private static final long MAX_WAIT_MS = 60_000L;

    private final String table;
    private final StorageSettings storage;
    private final CompactionOptions compaction;
    private final VacuumOptions vacuumOptions;
    private final MaintenanceMetrics metrics;
    private final Clock clock;
    private final MaintenancePace pace;
    private final Duration stopWait;
    private final Thread thread;
    private volatile boolean stopped;

    AutoMaintenance(DeltaSinkConfig config, StorageSettings storage, MaintenanceMetrics metrics, Clock clock,
                    Duration stopWait) {
        this.table = storage.tableUri();
        this.storage = storage;
        this.compaction = MaintenanceConfig.compaction(config);
        this.vacuumOptions = MaintenanceConfig.vacuum(config);
        this.metrics = metrics;
        this.clock = clock;
        this.stopWait = stopWait;
        this.pace = new MaintenancePace(config.compactionEnabled(), config.compactionIntervalMs(),
                config.compactionIntervalCommits(), config.vacuumEnabled() ? config.vacuumIntervalMs() : 0,
                clock.millis());
        this.thread = new Thread(this::loop, "delta-maintenance-" + config.connectorName() + "-" + config.taskIndex());
        thread.setDaemon(true); // never keeps a worker JVM alive
    }

    /** Whether this task keeps the table: task 0, with compaction or vacuum on. */
    public static boolean elected(DeltaSinkConfig config) {
        return config.taskIndex() == 0 && (config.compactionEnabled() || config.vacuumEnabled());
    }

    /** Starts the background thread; the caller owns {@code storage} and closes it after {@link #close()}. */
    public static AutoMaintenance start(DeltaSinkConfig config, StorageSettings storage, MaintenanceMetrics metrics,
                                        Clock clock) {
        return start(config, storage, metrics, clock, STOP_WAIT);
    }

    static AutoMaintenance start(DeltaSinkConfig config, StorageSettings storage, MaintenanceMetrics metrics,
                                 Clock clock, Duration stopWait) {
        AutoMaintenance maintenance = new AutoMaintenance(config, storage, metrics, clock, stopWait);
        maintenance.thread.start();
        log.info("Table upkeep of {} by this task: compaction {}, vacuum {}", maintenance.table,
                config.compactionEnabled() ? "every " + config.compactionIntervalMs() + " ms and/or "
                        + config.compactionIntervalCommits() + " commits, " + maintenance.compaction : "off",
                config.vacuumEnabled() ? "every " + config.vacuumIntervalMs() + " ms, " + maintenance.vacuumOptions
                        : "off");
        return maintenance;
    }

    /** One of the task's batches landed as a commit (counts toward compaction.interval.commits). */
    public synchronized void committed() {
        pace.committed();
        notifyAll();
    }

    /**
     * Stops the background work: interrupts a run and waits for it at most the stop bound. Returns
     * then even if the run goes on (it is a daemon thread and fails once the task's storage is closed).
     */
    @Override
    public void close() {
        stopped = true;
        synchronized (this) {
            notifyAll();
        }
        thread.interrupt();
        try {
            thread.join(stopWait.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            log.warn("Table upkeep of {} still running {} ms after the task stopped; left to end on its own: a "
                    + "compaction that does not commit leaves only orphan files, which vacuum deletes", table,
                    stopWait.toMillis());
        }
    }

    private void loop() {
        try {
            while (true) {
                boolean compact;
                boolean clean;
                synchronized (this) {
                    long now = clock.millis();
                    while (!stopped && !pace.compactionDue(now) && !pace.vacuumDue(now)) {
                        wait(Math.max(1, Math.min(MAX_WAIT_MS, pace.nextDueAt() - now)));
                        now = clock.millis();
                    }
                    if (stopped) {
                        return;
                    }
                    compact = pace.compactionDue(now);
                    clean = pace.vacuumDue(now);
                    if (compact) {
                        pace.compactionStarted(now);
                    }
                    if (clean) {
                        pace.vacuumStarted(now);
                    }
                }
                runOnce(compact, clean);
            }
        } catch (InterruptedException e) {
            // stopped
        }
    }

    /** One run: compaction and/or vacuum, then the file count; failures logged once and counted once. */
    private void runOnce(boolean compact, boolean clean) {
        long started = clock.millis();
        try {
            if (new DeltaTable(storage.createEngine(), table).latest().isEmpty()) {
                log.debug("No table at {} yet: nothing to keep", table);
                return;
            }
        } catch (RuntimeException e) {
            // reading the table failed: the jobs below meet the same failure and report it
        }
        List<String> failures = new ArrayList<>();
        Throwable first = null;
        for (Job job : jobs(compact, clean)) {
            if (stopped) {
                return;
            }
            try {
                job.run();
            } catch (Exception | LinkageError | OutOfMemoryError e) {
                if (stopped) {
                    log.info("Table upkeep of {} stopped during {}: {}", table, job.name(), e.toString());
                    return;
                }
                failures.add(job.name() + ": " + e);
                first = first == null ? e : first;
            }
        }
        long finished = clock.millis();
        metrics.runFinished(finished, finished - started);
        if (!failures.isEmpty()) {
            log.warn("Table upkeep of {} failed ({}); ingestion goes on, the next run is tried when due", table,
                    String.join("; ", failures), first);
            metrics.runFailed();
        }
    }

    private List<Job> jobs(boolean compact, boolean clean) {
        List<Job> jobs = new ArrayList<>();
        if (compact) {
            jobs.add(new Job("compaction", this::compact));
        }
        if (clean) {
            jobs.add(new Job("vacuum", this::vacuum));
        }
        jobs.add(new Job("counting files", this::countFiles));
        return jobs;
    }

    private void compact() {
        long started = clock.millis();
        CompactionResult result = new Compactor(storage, clock).run(compaction);
        if (result.version() < 0) {
            log.debug("Compaction of {}: {}", table, result.outcome());
            return;
        }
        metrics.compacted(result.filesRemoved(), result.bytesRewritten());
        log.info("Compacted {} at version {}: {} table partition(s), {} file(s) into {}, {} bytes, {} rows, {} ms",
                table, result.version(), result.partitions(), result.filesRemoved(), result.filesAdded(),
                result.bytesRewritten(), result.rowsRewritten(), clock.millis() - started);
    }

    private void vacuum() {
        VacuumResult result = new Vacuum(storage, clock).run(vacuumOptions);
        metrics.vacuumed(result.deletedFiles());
        log.info("Vacuumed {}: {} file(s), {} bytes deleted", table, result.deletedFiles(), result.deletedBytes());
    }

    private void countFiles() {
        new DeltaTable(storage.createEngine(), table).latest().ifPresent(snapshot -> {
            List<TableFile> files = snapshot.files();
            long small = files.stream().filter(f -> f.size() < compaction.smallFileBytes()).count();
            metrics.tableFiles(files.size(), small);
        });
    }

    private record Job(String name, Runnable work) {
        void run() {
            work.run();
        }
    }
}
