package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SinkRecords;

/**
 * columns=auto through the session and the task's own converter factory: a first record that
 * gives no columns is a bad record like any other; once the table exists its columns are the
 * mapping (after a restart, or when another task created it first), whatever shape the first
 * record has, and records that do not fit them are bad records.
 */
class AutoColumnsTest {
    static final String TOPIC = "readings";
    static final TopicPartition TP0 = new TopicPartition(TOPIC, 0);

    @RegisterExtension
    final Sessions sessions = Sessions.of("readings", Map.of(DeltaSinkConfig.COLUMNS, "auto",
            DeltaSinkConfig.PARTITION_COLUMNS, "device_type"));

    private SinkSession session(RecordingContext context, Map<String, String> extra) {
        return sessions.create(context, extra);
    }

    private SinkSession tolerant(RecordingContext context) {
        return session(context, Map.of(DeltaSinkConfig.ERRORS_TOLERANCE, "all"));
    }

    private String table() {
        return sessions.table();
    }

    private static SinkRecord json(long offset, String value) {
        return SinkRecords.of(TOPIC, 0, offset, value);
    }

    /** A reading as JSON text: power a double, a nested flag, a sequence number. */
    private static SinkRecord reading(long offset, String power, String on) {
        return json(offset, "{\"device_id\":\"d" + offset + "\",\"device_type\":\"plug\",\"reading\":{\"power\":" + power
                + (on == null ? "" : ",\"on\":" + on) + "},\"seq\":" + offset + "}");
    }

    private List<Map<String, Object>> rows() {
        List<Map<String, Object>> rows = new ArrayList<>(DeltaTableReader.readAll(table()));
        rows.sort(Comparator.comparing(r -> (Long) r.get("seq")));
        return rows;
    }

    @Test
    void aFirstRecordThatGivesNoColumnsGoesToTheDeadLetterQueue() {
        RecordingContext ctx = new RecordingContext(true);
        SinkSession s = tolerant(ctx);
        s.open(List.of(TP0));
        List<SinkRecord> batch = new ArrayList<>(List.of(json(0, "not json at all"), json(1, "[1, 2]"),
                SinkRecords.of(TOPIC, 0, 2, 42)));
        for (long o = 3; o < 8; o++) {
            batch.add(reading(o, "1.5", "true"));
        }
        s.put(batch);
        assertEquals(Map.of(TP0, new OffsetAndMetadata(8)), s.commit(Map.of()));
        assertEquals(List.of(0L, 1L, 2L), ctx.reported.stream().map(SinkRecord::kafkaOffset).toList());
        assertTrue(ctx.reportedErrors.get(0).getMessage().contains(TOPIC + "/0@0"), ctx.reportedErrors.get(0).getMessage());
        assertEquals(5, rows().size());
    }

    @Test
    void withoutToleranceAFirstRecordThatGivesNoColumnsFailsTheTaskNamingIt() {
        SinkSession s = session(new RecordingContext(true), Map.of());
        s.open(List.of(TP0));
        DataException e = assertThrows(DataException.class, () -> s.put(List.of(json(0, "not json at all"))));
        assertTrue(e.getMessage().contains(TOPIC + "/0@0") && e.getMessage().contains("columns=auto"), e.getMessage());
    }

    @Test
    void afterARestartTheColumnsComeFromTheTableNotFromTheFirstRecord() {
        SinkSession first = tolerant(new RecordingContext(true));
        first.open(List.of(TP0));
        first.put(List.of(reading(0, "1.5", "true"), reading(1, "2.5", "false")));
        first.commit(Map.of());
        first.stop();
        List<String> columns = DeltaTableReader.columnNames(table());

        // the first record after the restart has another shape: an integer power, no flag, one field more
        RecordingContext ctx = new RecordingContext(true);
        SinkSession restarted = tolerant(ctx);
        restarted.open(List.of(TP0));
        restarted.put(List.of(
                json(2, "{\"device_id\":\"d2\",\"device_type\":\"plug\",\"reading\":{\"power\":2},\"seq\":2,\"extra\":\"x\"}"),
                reading(3, "3.5", "true"),
                reading(4, "\"high\"", "true"),        // a power that is not a number: does not fit the table
                json(5, "garbage"),
                reading(6, "6.5", "false")));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(7)), restarted.commit(Map.of()));

        assertEquals(columns, DeltaTableReader.columnNames(table()), "the table keeps its columns");
        assertEquals(List.of(4L, 5L), ctx.reported.stream().map(SinkRecord::kafkaOffset).toList());
        List<Map<String, Object>> rows = rows();
        assertEquals(List.of(0L, 1L, 2L, 3L, 6L), rows.stream().map(r -> (Long) r.get("seq")).toList());
        Map<String, Object> two = rows.get(2);
        assertEquals(2.0, two.get("reading_power"), two.toString());
        assertEquals(null, two.get("reading_on"), two.toString());
        assertEquals(true, rows.get(3).get("reading_on"), "a column the first record lacked is filled later");
        assertEquals(false, rows.get(4).get("reading_on"));
    }

    @Test
    void aTableAnotherTaskCreatedMeanwhileGivesTheColumns() {
        SinkSession a = tolerant(new RecordingContext(true));
        RecordingContext ctx = new RecordingContext(true);
        SinkSession b = tolerant(ctx);
        a.open(List.of(TP0));
        b.open(List.of(new TopicPartition(TOPIC, 1)));
        a.put(List.of(reading(0, "1.5", "true")));
        a.commit(Map.of());

        // b's first record alone would give other types (power long, no flag)
        b.put(List.of(SinkRecords.of(TOPIC, 1, 0,
                "{\"device_id\":\"x\",\"device_type\":\"plug\",\"reading\":{\"power\":7},\"seq\":10}")));
        assertEquals(Map.of(new TopicPartition(TOPIC, 1), new OffsetAndMetadata(1)), b.commit(Map.of()));
        assertTrue(ctx.reported.isEmpty(), ctx.reportedErrors.toString());
        assertEquals(7.0, rows().get(1).get("reading_power"));
    }
}
