package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.proc.Preset;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * Writing and committing to a local table starts no process. Hadoop's local file system, without
 * its native library, runs {@code chmod}, {@code ls} or {@code stat} in a child process to set or
 * read permissions (e.g. for every new file, directory and {@code .crc} file); each costs a fork of
 * the worker JVM. The JDK records every process start as a Flight Recorder event
 * ({@code jdk.ProcessStart}, with its command line and stack), recorded here in-process around a
 * task's life on a table: creating it, commits that open new table partitions, a checkpoint, and
 * reopening the table. (Hadoop's one probe for {@code setsid} when its Shell class loads, once per
 * JVM, is made before the recording.)
 */
class LocalTableProcessesTest {
    private static final String TOPIC = "sensor-events";
    private static final TopicPartition TP0 = new TopicPartition(TOPIC, 0);
    private static final int COMMITS = 12;
    private static final int EVENTS_PER_COMMIT = 40;

    @RegisterExtension
    final Sessions sessions = Sessions.of("seed", Map.of());

    private SinkSession session(RecordingContext context) {
        Preset preset = Preset.sensorEventsLocal();
        Map<String, String> props = new LinkedHashMap<>(preset.config());
        props.keySet().removeIf(k -> k.startsWith("s3.") || k.startsWith("compaction.") || k.startsWith("vacuum."));
        props.put(DeltaSinkConfig.TABLE_LOCATION, sessions.dir().resolve("table").toString());
        props.put("delta.table.property.delta.checkpointInterval", "5");
        props.put("name", preset.name());
        return sessions.create(context, props);
    }

    @Test
    void createCommitCheckpointAndReopenStartNoProcess() throws Exception {
        List<RecordedEvent> starts;
        long offset = 0;
        Path dump = sessions.dir().resolve("processes.jfr");
        // Hadoop's Shell probes for setsid once per JVM when the class loads (any Hadoop use loads it):
        // a cost of the worker's start, not of writing
        Class.forName("org.apache.hadoop.util.Shell", true, getClass().getClassLoader());
        try (Recording recording = new Recording()) {
            recording.enable("jdk.ProcessStart").withStackTrace();
            recording.start();
            RecordingContext context = new RecordingContext(true);
            SinkSession first = session(context);
            first.open(List.of(TP0));
            for (int c = 0; c < COMMITS; c++) {
                List<SinkRecord> batch = new ArrayList<>();
                for (int i = 0; i < EVENTS_PER_COMMIT; i++, offset++) {
                    // a new day every commit: new partition folders each time
                    batch.add(SinkRecords.of(TOPIC, 0, offset,
                            SensorEvents.smartPlug(offset, SensorEvents.DAY.plusDays(c)).json()));
                }
                first.put(batch);
                assertEquals(Map.of(TP0, new OffsetAndMetadata(offset)), first.commit(Map.of()));
            }
            first.close(List.of(TP0));
            first.stop();
            SinkSession second = session(new RecordingContext(true));
            second.open(List.of(TP0));
            second.put(List.of(SinkRecords.of(TOPIC, 0, offset, SensorEvents.smartPlug(offset).json())));
            offset++;
            assertEquals(Map.of(TP0, new OffsetAndMetadata(offset)), second.commit(Map.of()));
            second.close(List.of(TP0));
            second.stop();
            recording.stop();
            recording.dump(dump);
        }
        starts = RecordingFile.readAllEvents(dump);

        assertTrue(checkpointWritten(), "the run should have written a checkpoint");
        assertEquals(offset, DeltaTableReader.readAll(sessions.table()).size());
        assertEquals(List.of(), describe(starts), "processes started while writing a local table");
    }

    private boolean checkpointWritten() throws IOException {
        try (Stream<Path> log = Files.list(sessions.dir().resolve("table").resolve("_delta_log"))) {
            return log.anyMatch(p -> p.getFileName().toString().endsWith(".checkpoint.parquet"));
        }
    }

    /** Each process start as its command line and the first frames of our code or Hadoop's that led to it. */
    private static List<String> describe(List<RecordedEvent> starts) {
        List<String> out = new ArrayList<>();
        for (RecordedEvent e : starts) {
            StringBuilder s = new StringBuilder(e.getString("command"));
            if (e.getStackTrace() != null) {
                int shown = 0;
                for (RecordedFrame f : e.getStackTrace().getFrames()) {
                    String type = f.getMethod().getType().getName();
                    if (shown < 10 && !type.startsWith("java.") && !type.startsWith("jdk.")
                            && !type.startsWith("org.apache.hadoop.util.Shell")) {
                        s.append("\n    at ").append(type).append('.').append(f.getMethod().getName())
                                .append(':').append(f.getLineNumber());
                        shown++;
                    }
                }
            }
            out.add(s.toString());
        }
        return out;
    }
}
