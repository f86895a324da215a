package io.deltasink.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.deltasink.it.ConnectHarness.Sent;

/**
 * Produces good sensor events in small paced batches on its own thread, so that something can
 * happen to the connector (a rebalance, a storage outage) while records keep arriving. Stops when
 * asked, but not before it has produced a minimum number of events.
 */
final class BackgroundProducer implements AutoCloseable {
    private static final int BATCH = 100;
    private static final long PAUSE_MS = 100;

    private final int batch;

    private final List<Sent> sent = Collections.synchronizedList(new ArrayList<>());
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger produced = new AtomicInteger();
    private final ExecutorService thread;
    private final Future<?> running;

    BackgroundProducer(ConnectHarness harness, String topic, int atLeast) {
        this(harness, topic, atLeast, BATCH);
    }

    /** Produces {@code batch} events every {@value #PAUSE_MS} ms (plus the time a batch takes). */
    BackgroundProducer(ConnectHarness harness, String topic, int atLeast, int batch) {
        this.batch = batch;
        thread = Executors.newSingleThreadExecutor(r -> new Thread(r, "it-producer-" + topic));
        running = thread.submit(() -> {
            while (!stop.get() || produced.get() < atLeast) {
                sent.addAll(harness.produce(topic, SensorFeed.good(produced.get(), batch)));
                produced.addAndGet(batch);
                Thread.sleep(PAUSE_MS);
            }
            return null;
        });
    }

    /** How many events are out so far. */
    int produced() {
        return produced.get();
    }

    /** Waits (bounded) until at least {@code count} events are out. */
    void awaitProduced(int count) {
        ConnectHarness.awaitCondition(() -> produced.get() >= count || running.isDone(), Duration.ofMinutes(1),
                () -> "the background producer sent only " + produced.get() + " events");
        if (running.isDone()) {
            ConnectHarness.get(running); // surfaces the producer's failure
        }
    }

    /** Stops producing (once the minimum is out) and returns every event sent, in order per partition. */
    List<Sent> finish() {
        stop.set(true);
        try {
            ConnectHarness.get(running);
        } finally {
            thread.shutdown();
        }
        return List.copyOf(sent);
    }

    @Override
    public void close() {
        stop.set(true);
        thread.shutdownNow();
    }
}
