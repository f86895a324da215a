package io.deltasink.write;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Threads of a task's own beside its thread (the writer thread, conversion helpers). */
public final class TaskThreads {
    /** An idle pool thread ends after this long, so a task without records for a while holds none. */
    static final long IDLE_SECONDS = 60;

    private TaskThreads() {
    }

    /**
     * A pool of {@code threads} daemon threads (they never keep a worker JVM alive) started as work
     * comes, each ending after {@link #IDLE_SECONDS} idle; named {@code name}, or {@code name-1},
     * {@code name-2}.. when there are several. Work waits in an unbounded queue: the callers bound it.
     */
    public static ExecutorService pool(String name, int threads) {
        AtomicInteger count = new AtomicInteger();
        ThreadPoolExecutor executor = new ThreadPoolExecutor(threads, threads, IDLE_SECONDS, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, threads == 1 ? name : name + "-" + count.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }
}
