package io.deltasink.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

class ThreadCpuTest {
    /** A thread's stat line whose name holds a space, a parenthesis and a digit. */
    private static final String STAT = "4242 (C2 CompilerThre) S 1 4242 4242 0 -1 4194368 7 0 0 0 "
            + "512 37 0 0 20 0 32 0 1234 0 0";

    @Test
    void timesAreFieldsFourteenAndFifteenAfterTheLastParenthesis() {
        assertEquals("C2 CompilerThre", ThreadCpu.name(STAT));
        assertEquals(512 + 37, ThreadCpu.ticks(STAT));
        String tricky = "7 (a) b (c) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 99 0 0";
        assertEquals("a) b (c", ThreadCpu.name(tricky));
        assertEquals(7, ThreadCpu.ticks(tricky));
    }

    @Test
    void threadsGoToTheirGroups() {
        assertEquals("JIT", ThreadCpu.group("C1 CompilerThre"));
        assertEquals("JIT", ThreadCpu.group("C2 CompilerThre"));
        assertEquals("task", ThreadCpu.group("task-thread-sen"));
        assertEquals("writer", ThreadCpu.group("delta-writer-se"));
        assertEquals("convert", ThreadCpu.group("delta-convert-s"));
        assertEquals("GC", ThreadCpu.group("GC Thread#0"));
        assertEquals("GC", ThreadCpu.group("G1 Conc#0"));
        assertEquals("other", ThreadCpu.group("qtp12345-42"));
    }

    @Test
    void betweenSubtractsPerThreadAndLeavesTheRestToOther() {
        ThreadCpu.Snapshot before = new ThreadCpu.Snapshot(1000, Map.of(
                1L, new ThreadCpu.ThreadTicks("C2 CompilerThre", 300L, 4_000_000_000L),
                2L, new ThreadCpu.ThreadTicks("task-thread-sen", 100L, 1_000_000_000L),
                4L, new ThreadCpu.ThreadTicks("qtp12345-42", 5L, 100_000_000L)));
        ThreadCpu.Snapshot after = new ThreadCpu.Snapshot(1800, Map.of(
                1L, new ThreadCpu.ThreadTicks("C2 CompilerThre", 600L, 5_500_000_000L),
                2L, new ThreadCpu.ThreadTicks("task-thread-sen", 250L, 3_200_000_000L),
                3L, new ThreadCpu.ThreadTicks("delta-writer-se", 120L, 700_000_000L), // born in between: all counts
                4L, new ThreadCpu.ThreadTicks("qtp12345-42", 6L, 400_000_000L)));
        ThreadCpu cpu = ThreadCpu.between(before, after);
        assertEquals(8.0, cpu.total(), 1e-9);
        assertEquals(3.0, cpu.byGroup().get("JIT"), 1e-9);
        assertEquals(1.5, cpu.byGroup().get("task"), 1e-9);
        assertEquals(1.2, cpu.byGroup().get("writer"), 1e-9);
        assertEquals(0.0, cpu.byGroup().get("GC"), 1e-9);
        assertEquals(8.0 - 3.0 - 1.5 - 1.2, cpu.byGroup().get("other"), 1e-9); // threads gone, unnamed ones
        assertEquals("8.0 s: JIT 3.0, task 1.5, writer 1.2, convert 0.0, GC 0.0, other 2.3", cpu.describe());
        assertEquals(1.5, cpu.waits().get("JIT"), 1e-9);
        assertEquals(2.2, cpu.waits().get("task"), 1e-9);
        assertEquals(0.7, cpu.waits().get("writer"), 1e-9);
        assertEquals(0.3, cpu.waits().get("other"), 1e-9);
        assertEquals("JIT 1.5, task 2.2, writer 0.7, convert 0.0, GC 0.0, other 0.3", cpu.describeWaits());
        assertTrue(Double.isNaN(ThreadCpu.between(null, after).total()));
        assertEquals("not measured (no scheduler statistics)", ThreadCpu.between(null, after).describeWaits());
    }

    @Test
    void aThreadWithoutSchedulerStatisticsLeavesTheWaitsUnmeasured() {
        ThreadCpu.Snapshot before = new ThreadCpu.Snapshot(100, Map.of(
                2L, new ThreadCpu.ThreadTicks("task-thread-sen", 10L, -1)));
        ThreadCpu.Snapshot after = new ThreadCpu.Snapshot(200, Map.of(
                2L, new ThreadCpu.ThreadTicks("task-thread-sen", 60L, -1)));
        ThreadCpu cpu = ThreadCpu.between(before, after);
        assertEquals(0.5, cpu.byGroup().get("task"), 1e-9); // the CPU time still counts
        assertTrue(cpu.waits().isEmpty());
        assertEquals("not measured (no scheduler statistics)", cpu.describeWaits());
    }

    @Test
    void theWaitIsSchedstatsSecondField() {
        assertEquals(87_818_534L, ThreadCpu.waitNanos("294263862 87818534 483\n"));
        assertEquals(-1, ThreadCpu.waitNanos(Path.of("/no/such/task")));
    }

    @Test
    void aThreadThatSpinsIsSeenInThisProcess() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux only");
        long pid = ProcessHandle.current().pid();
        ThreadCpu.Snapshot before = ThreadCpu.take(pid);
        assertNotNull(before);
        CountDownLatch spun = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread spinner = new Thread(() -> {
            long end = System.nanoTime() + 300_000_000L;
            long x = 0;
            while (System.nanoTime() < end) {
                x += System.nanoTime() % 7;
            }
            spun.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (x == 42) {
                System.out.println(x);
            }
        }, "task-thread-spin");
        spinner.start();
        spun.await();
        ThreadCpu alive = ThreadCpu.between(before, ThreadCpu.take(pid));
        release.countDown();
        spinner.join();
        ThreadCpu ended = ThreadCpu.between(before, ThreadCpu.take(pid));
        assertTrue(alive.byGroup().get("task") >= 0.2, alive.describe());
        if (Files.exists(Path.of("/proc/self/schedstat"))) { // a kernel with scheduler statistics
            assertTrue(alive.waits().get("task") >= 0 && alive.waits().get("task") < 30, alive.describeWaits());
        }
        // once it has ended its time is still in the process's total, now under "other"
        assertTrue(ended.total() >= 0.2 && ended.byGroup().get("task") < 0.2, ended.describe());
        assertNull(ThreadCpu.take(Long.MAX_VALUE)); // no such process
    }
}
