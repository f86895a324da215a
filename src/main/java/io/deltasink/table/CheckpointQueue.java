package io.deltasink.table;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the checkpoints of a task's tables on a thread of their own, so that a commit returns as
 * soon as its log entry is written and the task's next batch does not wait for a checkpoint (a
 * table's first one loads a few hundred classes of Parquet's writer; a large table's takes longer
 * as the table grows). A checkpoint only speeds up reading the log: one that is late, skipped or
 * fails leaves every commit, and the offsets in it, as they are.
 *
 * <p>Per table, a checkpoint asked for while the table's previous one still waits to start takes
 * its place: the newer version's checkpoint makes the older one useless. Checkpoints run one at a
 * time, in the order asked for.
 */
public final class CheckpointQueue implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CheckpointQueue.class);

    private final ExecutorService thread;
    private final Duration closeWait;
    /** Per table path, the checkpoint asked for that has not started yet. */
    private final Map<String, Runnable> waiting = new ConcurrentHashMap<>();
    /** The table whose checkpoint is being written, else null. */
    private volatile String running;

    /**
     * @param thread    runs the checkpoints: one thread, owned by the queue from now on
     * @param closeWait how long {@link #close()} waits for the checkpoints asked for to end
     */
    public CheckpointQueue(ExecutorService thread, Duration closeWait) {
        this.thread = thread;
        this.closeWait = closeWait;
    }

    /** Runs {@code checkpoint} of {@code table} on the queue's thread unless a newer one replaces it first. */
    void submit(String table, Runnable checkpoint) {
        if (waiting.put(table, checkpoint) != null) {
            return; // a run of this table is queued and not started: it takes this checkpoint
        }
        try {
            thread.execute(() -> {
                Runnable latest = waiting.remove(table);
                if (latest != null) {
                    running = table;
                    try {
                        latest.run();
                    } finally {
                        running = null;
                    }
                }
            });
        } catch (RejectedExecutionException e) {
            waiting.remove(table, checkpoint);
            log.debug("Checkpoint of {} skipped: the task is stopping", table);
        }
    }

    /**
     * Lets the checkpoints asked for run and waits for them at most the bound given; returns then
     * even if one goes on (a daemon thread: once the task's storage is closed it fails, and the
     * next commit's checkpoint, by this task or the next owner, covers the table). Idempotent.
     */
    @Override
    public void close() {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(closeWait.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("A checkpoint of {} was still being written {} ms after the task stopped; left to end on "
                        + "its own (the commits are unaffected)", running, closeWait.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
