package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.proc.Preset;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * The shipped seed presets, read from their files and run by the session: a sensor event
 * without its device, its timestamp or its payload goes to the dead letter queue, never to a
 * row of nulls or a {@code __HIVE_DEFAULT_PARTITION__} folder.
 */
class SeedPresetTest {
    private static final String TOPIC = "sensor-events";
    private static final TopicPartition TP0 = new TopicPartition(TOPIC, 0);
    private static final Set<String> REQUIRED = Set.of("device_id", "device_type", "event_time", "raw_payload", "event_date");
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    final Sessions sessions = Sessions.of("seed", Map.of());

    /** A session configured as the preset file says (the table moved into the test's folder), built as the task builds it. */
    private SinkSession session(Preset preset, RecordingContext context) {
        Map<String, String> props = new LinkedHashMap<>(preset.with(DeltaSinkConfig.TABLE_LOCATION,
                sessions.dir().resolve("table").toString()).config());
        props.keySet().removeIf(k -> k.startsWith("s3."));
        props.put("name", preset.name());
        return sessions.create(context, props);
    }

    private String table() {
        return sessions.table();
    }

    private static String edited(long seq, Consumer<ObjectNode> edit) {
        try {
            ObjectNode n = (ObjectNode) JSON.readTree(SensorEvents.event(seq).json());
            edit.accept(n);
            return n.toString();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Envelopes missing what a sensor event cannot do without, each with the column it must be reported for. */
    private static Map<String, String[]> incomplete() {
        Map<String, String[]> out = new LinkedHashMap<>();
        out.put("no device_id", new String[] {edited(1, n -> n.remove("device_id")), "device_id"});
        out.put("device_id null", new String[] {edited(2, n -> n.putNull("device_id")), "device_id"});
        out.put("no device_type", new String[] {edited(3, n -> n.remove("device_type")), "device_type"});
        out.put("device_type null", new String[] {edited(4, n -> n.putNull("device_type")), "device_type"});
        out.put("no ingested_at", new String[] {edited(5, n -> n.remove("ingested_at")), "event_time"});
        out.put("ingested_at null", new String[] {edited(6, n -> n.putNull("ingested_at")), "event_time"});
        out.put("no payload", new String[] {edited(7, n -> n.remove("payload")), "raw_payload"});
        out.put("payload null", new String[] {edited(8, n -> n.putNull("payload")), "raw_payload"});
        out.put("payload JSON text of null", new String[] {edited(9, n -> n.put("payload", "null")), "raw_payload"});
        return out;
    }

    /** The value as the preset's value converter (ByteArrayConverter) hands it to the task: the UTF-8 bytes. */
    private static byte[] asPresetGivesIt(Preset preset, String json) {
        assertEquals("org.apache.kafka.connect.converters.ByteArrayConverter", preset.config().get("value.converter"));
        return json.getBytes(StandardCharsets.UTF_8);
    }

    private void recordsMissingWhatAnEventNeedsGoToTheDeadLetterQueue(Preset preset) throws IOException {
        assertEquals(REQUIRED, Set.copyOf(List.of(preset.config().get(DeltaSinkConfig.COLUMNS_NOT_NULL).split(","))),
                "columns.not.null of " + preset);
        assertEquals("all", preset.config().get("errors.tolerance"));
        RecordingContext ctx = new RecordingContext(true);
        SinkSession s = session(preset, ctx);
        s.open(List.of(TP0));
        Map<String, String[]> bad = incomplete();
        List<SinkRecord> batch = new ArrayList<>();
        batch.add(SinkRecords.of(TOPIC, 0, 0, asPresetGivesIt(preset, SensorEvents.event(0).json())));
        long offset = 1;
        for (String[] b : bad.values()) {
            batch.add(SinkRecords.of(TOPIC, 0, offset++, asPresetGivesIt(preset, b[0])));
        }
        batch.add(SinkRecords.of(TOPIC, 0, offset, asPresetGivesIt(preset, SensorEvents.event(10).json())));
        s.put(batch);
        assertEquals(Map.of(TP0, new OffsetAndMetadata(offset + 1)), s.commit(Map.of()));

        Map<Long, String> reported = new TreeMap<>();
        for (int i = 0; i < ctx.reported.size(); i++) {
            SinkRecord r = ctx.reported.get(i);
            reported.put(r.kafkaOffset(), ctx.reportedErrors.get(i).getMessage());
            assertArrayEquals((byte[]) batch.get((int) r.kafkaOffset()).value(), assertInstanceOf(byte[].class, r.value()),
                    "the reported record holds the bytes as read");
        }
        long at = 1;
        for (Map.Entry<String, String[]> e : bad.entrySet()) {
            String message = reported.get(at++);
            assertTrue(message != null && message.contains("column '" + e.getValue()[1] + "'")
                    && message.contains("required"), e.getKey() + ": " + message + "\nreported: " + reported);
        }
        assertEquals(bad.size(), reported.size(), reported.toString());

        List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
        assertEquals(2, rows.size(), rows.toString());
        for (Map<String, Object> row : rows) {
            for (String column : REQUIRED) {
                assertTrue(row.get(column) != null, column + " in " + row);
            }
        }
        try (Stream<Path> files = Files.walk(sessions.dir().resolve("table"))) {
            assertFalse(files.anyMatch(p -> p.toString().contains("__HIVE_DEFAULT_PARTITION__")),
                    "no partition folder for a null device_type or event_date");
        }
    }

    @Test
    void theLocalPresetSendsIncompleteEventsToTheDeadLetterQueue() throws IOException {
        recordsMissingWhatAnEventNeedsGoToTheDeadLetterQueue(Preset.sensorEventsLocal());
    }

    @Test
    void theMinioPresetRequiresTheSameColumns() throws IOException {
        recordsMissingWhatAnEventNeedsGoToTheDeadLetterQueue(Preset.sensorEventsMinio());
    }
}
