package io.deltasink.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The CPU time a process spent between two snapshots, in all and by what its threads do (the JIT's
 * compilers, the collector, the sink task's threads), from Linux's {@code /proc/<pid>/stat} and
 * {@code /proc/<pid>/task/<tid>/stat}: user plus system time in the kernel's clock ticks, 1/100 s.
 * A thread is put in a group by its name as the kernel keeps it (the first 15 bytes of the Java
 * thread's name). A thread that ended between the snapshots counts in the total and in "other".
 * Where there is no {@code /proc}, every figure is NaN.
 *
 * <p>Beside the CPU time, the time each thread spent runnable but waiting for a core, from
 * {@code /proc/<pid>/task/<tid>/schedstat} (its second field, in nanoseconds): on a machine whose
 * cores are all busy, the figure that says how much of a run a thread lost to the others. A kernel
 * without scheduler statistics has no such file; the waits are then not measured.
 *
 * @param total   seconds of the whole process
 * @param byGroup seconds per group, in {@link #GROUPS} order
 * @param waits   seconds waiting for a core per group, in {@link #GROUPS} order ("other" holding the
 *                threads alive at the end that are in no other group); empty when not measured
 */
record ThreadCpu(double total, Map<String, Double> byGroup, Map<String, Double> waits) {
    /** Clock ticks per second of the times in /proc (USER_HZ, 100 on Linux's x86 and arm64). */
    static final double TICKS_PER_SECOND = 100;
    static final List<String> GROUPS = List.of("JIT", "task", "writer", "convert", "GC", "other");
    static final ThreadCpu UNKNOWN = new ThreadCpu(Double.NaN, Map.of(), Map.of());

    /** A thread's name, its ticks so far and its nanoseconds waiting for a core so far (-1: unknown). */
    record ThreadTicks(String name, long ticks, long waitNanos) {
    }

    /** Ticks of a process and of each of its threads by thread id. */
    record Snapshot(long processTicks, Map<Long, ThreadTicks> threads) {
    }

    /** A snapshot of process {@code pid}; null where /proc cannot be read (another OS, the process gone). */
    static Snapshot take(long pid) {
        Path proc = Path.of("/proc", Long.toString(pid));
        try (Stream<Path> tasks = Files.list(proc.resolve("task"))) {
            Map<Long, ThreadTicks> threads = new LinkedHashMap<>();
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    long tid = Long.parseLong(task.getFileName().toString());
                    threads.put(tid, new ThreadTicks(name(stat), ticks(stat), waitNanos(task)));
                } catch (NoSuchFileException ended) {
                    // the thread ended while the folder was read
                }
            }
            return new Snapshot(ticks(Files.readString(proc.resolve("stat"))), threads);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The CPU time from {@code before} to {@code after} (snapshots of one process). */
    static ThreadCpu between(Snapshot before, Snapshot after) {
        if (before == null || after == null) {
            return UNKNOWN;
        }
        Map<String, Double> groups = new LinkedHashMap<>();
        Map<String, Double> waits = new LinkedHashMap<>();
        GROUPS.forEach(g -> groups.put(g, 0.0));
        GROUPS.forEach(g -> waits.put(g, 0.0));
        boolean waitsKnown = true;
        double grouped = 0;
        for (Map.Entry<Long, ThreadTicks> t : after.threads.entrySet()) {
            ThreadTicks now = t.getValue();
            ThreadTicks was = before.threads.get(t.getKey());
            long ticks = now.ticks() - (was == null ? 0 : was.ticks());
            String group = group(now.name());
            if (!group.equals("other")) {
                groups.merge(group, ticks / TICKS_PER_SECOND, Double::sum);
                grouped += ticks / TICKS_PER_SECOND;
            }
            if (now.waitNanos() < 0 || was != null && was.waitNanos() < 0) {
                waitsKnown = false;
            } else {
                waits.merge(group, (now.waitNanos() - (was == null ? 0 : was.waitNanos())) / 1e9, Double::sum);
            }
        }
        double total = (after.processTicks - before.processTicks) / TICKS_PER_SECOND;
        groups.put("other", Math.max(0, total - grouped));
        return new ThreadCpu(total, groups, waitsKnown && !after.threads.isEmpty() ? waits : Map.of());
    }

    /** The group of a thread by its name in /proc (at most 15 bytes). */
    static String group(String name) {
        if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
            return "JIT";
        }
        if (name.startsWith("task-thread-")) {
            return "task";
        }
        if (name.startsWith("delta-writer-")) {
            return "writer";
        }
        if (name.startsWith("delta-convert-")) {
            return "convert";
        }
        if (name.startsWith("GC Thread") || name.startsWith("G1 ") || name.startsWith("VM Thread")) {
            return "GC";
        }
        return "other";
    }

    /** The thread's name: between the first '(' and the last ')', which may hold both. */
    static String name(String stat) {
        return stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    }

    /** The nanoseconds the thread has waited for a core: the second field of its schedstat; -1 without one. */
    static long waitNanos(Path task) {
        try {
            return waitNanos(Files.readString(task.resolve("schedstat")));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The second of schedstat's three fields: time on a core, time waiting for one, time slices. */
    static long waitNanos(String schedstat) {
        return Long.parseLong(schedstat.trim().split(" ")[1]);
    }

    /** utime + stime: fields 14 and 15 of stat, counted from the pid as field 1. */
    static long ticks(String stat) {
        String[] rest = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        return Long.parseLong(rest[11]) + Long.parseLong(rest[12]); // rest[0] is field 3, the state
    }

    /** "12.3 s: JIT 5.7, task 3.8, ..." or "not measured". */
    String describe() {
        if (Double.isNaN(total)) {
            return "not measured (no /proc)";
        }
        return String.format(Locale.ROOT, "%.1f s: ", total) + bySeconds(byGroup);
    }

    /** "JIT 2.8, task 2.6, writer 0.9, ..." (seconds), or "not measured". */
    String describeWaits() {
        return waits.isEmpty() ? "not measured (no scheduler statistics)" : bySeconds(waits);
    }

    /** "JIT 2.8, task 2.6, ...": seconds per group, in {@link #GROUPS} order. */
    private static String bySeconds(Map<String, Double> seconds) {
        StringBuilder out = new StringBuilder();
        for (String g : GROUPS) {
            out.append(out.length() == 0 ? "" : ", ").append(g).append(String.format(Locale.ROOT, " %.1f", seconds.get(g)));
        }
        return out.toString();
    }
}
