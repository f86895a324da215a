package io.deltasink.table;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A checkpoint that holds its queue's thread until released. */
final class HeldCheckpoint {
    private final CountDownLatch started = new CountDownLatch(1);
    private final CountDownLatch gate = new CountDownLatch(1);

    private HeldCheckpoint() {
    }

    /** Asks {@code queue} for it as {@code table}'s checkpoint and waits until it runs; once released it runs {@code then}. */
    static HeldCheckpoint hold(CheckpointQueue queue, String table, Runnable then) throws InterruptedException {
        HeldCheckpoint held = new HeldCheckpoint();
        queue.submit(table, () -> {
            held.started.countDown();
            try {
                held.gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            then.run();
        });
        assertTrue(held.started.await(30, TimeUnit.SECONDS), "the held checkpoint did not start");
        return held;
    }

    void release() {
        gate.countDown();
    }
}
