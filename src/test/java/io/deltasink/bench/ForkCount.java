package io.deltasink.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Child processes a JVM started, counted from its Flight Recorder file by the
 * {@code jdk.ProcessStart} event (JDK 17.0.15 and later updates, 22+), with who started them: the
 * first frame of each start's stack outside {@code java.*}.
 *
 * @param processes the count, -1 when the JDK that recorded has no such event
 * @param byCaller  the count per calling method ({@code class.method})
 */
record ForkCount(long processes, Map<String, Long> byCaller) {

    /** The processes started at or after {@code from}. */
    static ForkCount read(Path recording, Instant from) throws IOException {
        long count = 0;
        Map<String, Long> byCaller = new TreeMap<>();
        try (RecordingFile file = new RecordingFile(recording)) {
            if (file.readEventTypes().stream().noneMatch(t -> t.getName().equals("jdk.ProcessStart"))) {
                return new ForkCount(-1, Map.of());
            }
            while (file.hasMoreEvents()) {
                RecordedEvent e = file.readEvent();
                if (e.getEventType().getName().equals("jdk.ProcessStart") && !e.getStartTime().isBefore(from)) {
                    count++;
                    byCaller.merge(caller(e), 1L, Long::sum);
                }
            }
        }
        return new ForkCount(count, byCaller);
    }

    private static String caller(RecordedEvent e) {
        if (e.getStackTrace() == null) {
            return "(no stack)";
        }
        for (RecordedFrame frame : e.getStackTrace().getFrames()) {
            String type = frame.getMethod().getType().getName();
            if (frame.isJavaFrame() && !type.startsWith("java.")) {
                return type + "." + frame.getMethod().getName();
            }
        }
        return "(java.* only)";
    }
}
