package io.deltasink.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Figures of a {@code -Xlog:gc} file, heap in MB: the largest occupancy when a pause began
 * (everything allocated, garbage included), the largest left after an evacuating (young, mixed)
 * or full collection, the capacity, the number of those collections, and the pause time of every
 * pause (remark and cleanup included).
 */
record GcLog(long maxBefore, long maxAfter, long maxCapacity, int collections, int pauses, double pauseMs) {
    /** A pause line, e.g. "GC(7) Pause Young (Normal) (G1 Evacuation Pause) 51M->9M(256M) 3.123ms". */
    private static final Pattern PAUSE = Pattern.compile(
            "Pause (\\w+).*?(\\d+)M->(\\d+)M\\((\\d+)M\\)\\s+(\\d+(?:\\.\\d+)?)ms");

    static GcLog read(Path file) throws IOException {
        return parse(Files.readAllLines(file));
    }

    static GcLog parse(List<String> lines) {
        long before = 0;
        long after = 0;
        long capacity = 0;
        int collections = 0;
        int pauses = 0;
        double ms = 0;
        for (String line : lines) {
            Matcher m = PAUSE.matcher(line);
            if (!m.find()) {
                continue;
            }
            pauses++;
            ms += Double.parseDouble(m.group(5));
            before = Math.max(before, Long.parseLong(m.group(2)));
            capacity = Math.max(capacity, Long.parseLong(m.group(4)));
            // Remark and Cleanup pauses of a concurrent cycle free little: "after" counts only
            // evacuating (Young, Mixed) and Full collections
            if (m.group(1).equals("Young") || m.group(1).equals("Full")) {
                collections++;
                after = Math.max(after, Long.parseLong(m.group(3)));
            }
        }
        return new GcLog(before, after, capacity, collections, pauses, ms);
    }

    /** Heap left after each full collection (jcmd GC.class_histogram logs "Pause Full (Heap Inspection Initiated GC)"). */
    static List<Long> fullGcHeapsAfter(List<String> lines) {
        List<Long> out = new ArrayList<>();
        for (String line : lines) {
            Matcher m = PAUSE.matcher(line);
            if (line.contains("Pause Full") && m.find()) {
                out.add(Long.parseLong(m.group(3)));
            }
        }
        return out;
    }
}
