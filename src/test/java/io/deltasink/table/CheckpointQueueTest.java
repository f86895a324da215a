package io.deltasink.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.deltasink.testing.LogCapture;
import io.deltasink.write.TaskThreads;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class CheckpointQueueTest {
    private static final Duration LONG = Duration.ofSeconds(30);

    private final List<String> ran = new CopyOnWriteArrayList<>();

    private static CheckpointQueue queue(Duration closeWait) {
        return new CheckpointQueue(TaskThreads.pool("checkpoint-test", 1), closeWait);
    }

    @Test
    void aNewerCheckpointOfATableTakesThePlaceOfOneNotStartedAndOthersRunInTurn() throws InterruptedException {
        CheckpointQueue queue = queue(LONG);
        HeldCheckpoint held = HeldCheckpoint.hold(queue, "a", () -> ran.add("a@10"));
        // a@10 runs: a newer one of a waits for it, and is not replaced by the one running
        queue.submit("a", () -> ran.add("a@20"));
        queue.submit("b", () -> ran.add("b@10"));
        queue.submit("a", () -> ran.add("a@30"));
        queue.submit("b", () -> ran.add("b@20"));
        queue.submit("c", () -> ran.add("c@10"));
        held.release();
        queue.close();
        assertEquals(List.of("a@10", "a@30", "b@20", "c@10"), ran);
    }

    @Test
    void aTableAskingAgainAfterItsCheckpointStartedGetsAnotherRun() throws InterruptedException {
        CheckpointQueue queue = queue(LONG);
        HeldCheckpoint held = HeldCheckpoint.hold(queue, "a", () -> ran.add("a@10"));
        queue.submit("a", () -> ran.add("a@20"));
        held.release();
        queue.close();
        assertEquals(List.of("a@10", "a@20"), ran);
    }

    @Test
    void closeLetsTheCheckpointsAskedForEndFirst() {
        CheckpointQueue queue = queue(LONG);
        queue.submit("a", () -> {
            sleep(200);
            ran.add("a");
        });
        queue.submit("b", () -> ran.add("b"));
        queue.close();
        assertEquals(List.of("a", "b"), ran);
    }

    @Test
    void closeReturnsAfterItsBoundWhileACheckpointHangsAndSaysSo() throws InterruptedException {
        CheckpointQueue queue = queue(Duration.ofMillis(100));
        HeldCheckpoint held = null;
        try (LogCapture logs = new LogCapture()) {
            held = HeldCheckpoint.hold(queue, "s3a://bucket/table", () -> ran.add("hung"));
            queue.close();
            assertTrue(ran.isEmpty());
            List<String> warned = logs.linesContaining("still being written");
            assertEquals(1, warned.size(), logs.lines().toString());
            assertTrue(warned.get(0).contains("s3a://bucket/table") && warned.get(0).contains("100 ms"), warned.get(0));
        } finally {
            if (held != null) {
                held.release();
            }
        }
    }

    @Test
    void aCheckpointAskedForAfterCloseIsSkippedQuietly() {
        CheckpointQueue queue = queue(LONG);
        queue.close();
        queue.submit("a", () -> ran.add("a"));
        queue.close(); // idempotent
        assertTrue(ran.isEmpty());
    }

    @Test
    void aCheckpointThatThrowsLeavesTheQueueWorking() {
        CheckpointQueue queue = queue(LONG);
        queue.submit("a", () -> {
            throw new IllegalStateException("boom");
        });
        queue.submit("b", () -> ran.add("b"));
        queue.close();
        assertEquals(List.of("b"), ran);
        queue.submit("c", () -> ran.add("c"));
        assertFalse(ran.contains("c"));
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
