package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SinkRecords;

/**
 * columns=auto with schema.evolution=add-columns, through sessions as a task builds them: a record
 * with a field the table lacks adds a nullable column in a commit of its own before any file
 * holding it is committed; rows before read null there; a value that does not fit a column the
 * table has is a bad record naming the column and both types; two tasks adding different fields
 * at once end with both columns; a task that dies after adding columns loses no row.
 */
class AutoSchemaEvolutionTest {
    private static final String TOPIC = "readings";
    private static final TopicPartition TP0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition TP1 = new TopicPartition(TOPIC, 1);

    @RegisterExtension
    final Sessions sessions = Sessions.of("auto-evolving", Map.of(DeltaSinkConfig.COLUMNS, "auto",
            DeltaSinkConfig.ERRORS_TOLERANCE, "all"));

    private static final Map<String, String> EVOLVE = Map.of(DeltaSinkConfig.SCHEMA_EVOLUTION, "add-columns");

    /** A reading of partition {@code p}: seq = p * 1000 + offset, plus {@code extra} JSON members. */
    private static SinkRecord reading(int p, long offset, String extra) {
        return SinkRecords.of(TOPIC, p, offset, "{\"seq\":" + (p * 1000 + offset) + ",\"temp\":20.5"
                + (extra.isEmpty() ? "" : "," + extra) + "}");
    }

    private Map<Long, Map<String, Object>> rowsBySeq() {
        Map<Long, Map<String, Object>> rows = new TreeMap<>();
        for (Map<String, Object> row : DeltaTableReader.readAll(sessions.table())) {
            assertNull(rows.put((Long) row.get("seq"), row), "seq " + row.get("seq") + " twice");
        }
        return rows;
    }

    /** Versions of the log holding a metaData action after the first, and those holding add actions. */
    private List<Long> versionsWith(String action) {
        List<Long> out = new ArrayList<>();
        long last = DeltaTableReader.version(sessions.table());
        for (long v = 1; v <= last; v++) {
            if (DeltaTableReader.actions(sessions.table(), v).stream().anyMatch(a -> a.has(action))) {
                out.add(v);
            }
        }
        return out;
    }

    private Map<String, JsonNode> fields() {
        List<JsonNode> meta = new ArrayList<>();
        long last = DeltaTableReader.version(sessions.table());
        for (long v = 0; v <= last; v++) {
            DeltaTableReader.actions(sessions.table(), v).stream().filter(a -> a.has("metaData"))
                    .forEach(a -> meta.add(a.get("metaData")));
        }
        try {
            JsonNode schema = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(meta.get(meta.size() - 1).get("schemaString").asText());
            Map<String, JsonNode> out = new HashMap<>();
            schema.get("fields").forEach(f -> out.put(f.get("name").asText(), f));
            return out;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void recordsThatGainFieldsAddNullableColumnsBeforeTheirFilesAreCommitted() {
        RecordingContext ctx = new RecordingContext(true);
        SinkSession s = sessions.create(ctx, EVOLVE);
        s.open(List.of(TP0));
        List<SinkRecord> batch = new ArrayList<>();
        for (long o = 0; o < 5; o++) {
            batch.add(reading(0, o, ""));
        }
        for (long o = 5; o < 10; o++) {
            batch.add(reading(0, o, "\"hum\":" + (40 + o) + ",\"fw\":{\"v\":\"1." + o + "\"},\"later\":null"));
        }
        batch.add(reading(0, 10, "\"hum\":\"wet\"")); // does not fit the column hum (long) now has
        batch.add(SinkRecords.of(TOPIC, 0, 11, "{\"seq\":11,\"temp\":\"warm\"}")); // nor temp (double)
        s.put(batch);
        assertEquals(Map.of(TP0, new OffsetAndMetadata(12)), s.commit(Map.of()));

        Map<String, JsonNode> fields = fields();
        assertEquals("long", fields.get("hum").get("type").asText());
        assertEquals("string", fields.get("fw_v").get("type").asText());
        assertTrue(fields.get("hum").get("nullable").asBoolean() && fields.get("fw_v").get("nullable").asBoolean());
        assertFalse(fields.containsKey("later"), "a field that was only null gives no column (its type is unknown)");
        List<Long> schemaChanges = versionsWith("metaData");
        List<Long> appends = versionsWith("add");
        assertEquals(1, schemaChanges.size());
        assertEquals(1, appends.size());
        assertTrue(schemaChanges.get(0) < appends.get(0), "the columns are in the table before the files holding them");

        Map<Long, Map<String, Object>> rows = rowsBySeq();
        assertEquals(10, rows.size());
        for (long o = 0; o < 10; o++) {
            Map<String, Object> row = rows.get(o);
            assertEquals(o < 5 ? null : 40 + o, row.get("hum"), row.toString());
            assertEquals(o < 5 ? null : "1." + o, row.get("fw_v"), row.toString());
        }
        assertEquals(List.of(10L, 11L), ctx.reported.stream().map(SinkRecord::kafkaOffset).toList());
        String hum = ctx.reportedErrors.get(0).getMessage();
        assertTrue(hum.contains("hum") && hum.contains("long") && hum.contains("text"), hum);
        String temp = ctx.reportedErrors.get(1).getMessage();
        assertTrue(temp.contains("temp") && temp.contains("double") && temp.contains("text"), temp);
    }

    @Test
    void withoutEvolutionAutoKeepsTheTablesColumns() {
        SinkSession s = sessions.create(new RecordingContext(true), Map.of());
        s.open(List.of(TP0));
        s.put(List.of(reading(0, 0, ""), reading(0, 1, "\"hum\":41")));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(2)), s.commit(Map.of()));
        assertEquals(List.of("seq", "temp"), DeltaTableReader.columnNames(sessions.table()));
        assertEquals(2, rowsBySeq().size());
    }

    @Test
    void twoTasksAddingDifferentFieldsAtOnceEndWithBothColumnsAndEveryRow() throws Exception {
        SinkSession a = sessions.create(new RecordingContext(true), EVOLVE);
        SinkSession b = sessions.create(new RecordingContext(true), EVOLVE);
        a.open(List.of(TP0));
        b.open(List.of(TP1));
        a.put(List.of(reading(0, 0, "")));
        b.put(List.of(reading(1, 0, "")));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(1)), a.commit(Map.of()));
        assertEquals(Map.of(TP1, new OffsetAndMetadata(1)), b.commit(Map.of()));

        // at the same moment each task meets a field of its own, then the other's
        CyclicBarrier together = new CyclicBarrier(2);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<?> fa = threads.submit(() -> {
                together.await();
                a.put(List.of(reading(0, 1, "\"hum\":41"), reading(0, 2, "\"hum\":42,\"note\":\"a2\"")));
                return a.commit(Map.of());
            });
            Future<?> fb = threads.submit(() -> {
                together.await();
                b.put(List.of(reading(1, 1, "\"note\":\"b1\""), reading(1, 2, "\"note\":\"b2\",\"hum\":1042")));
                return b.commit(Map.of());
            });
            assertEquals(Map.of(TP0, new OffsetAndMetadata(3)), fa.get());
            assertEquals(Map.of(TP1, new OffsetAndMetadata(3)), fb.get());
        } finally {
            threads.shutdownNow();
        }
        Map<String, JsonNode> fields = fields();
        assertEquals("long", fields.get("hum").get("type").asText());
        assertEquals("string", fields.get("note").get("type").asText());
        Map<Long, Map<String, Object>> rows = rowsBySeq();
        assertEquals(List.of(0L, 1L, 2L, 1000L, 1001L, 1002L), new ArrayList<>(rows.keySet()));
        assertEquals(41L, rows.get(1L).get("hum"));
        assertEquals("a2", rows.get(2L).get("note"));
        assertEquals("b1", rows.get(1001L).get("note"));
        assertEquals(1042L, rows.get(1002L).get("hum"));
        assertNull(rows.get(0L).get("hum"));
        assertNull(rows.get(1000L).get("note"));
    }

    @Test
    void aTaskThatDiesAfterAddingColumnsLosesNoRowAndAddsNothingTwice() {
        SinkSession first = sessions.create(new RecordingContext(true), EVOLVE);
        first.open(List.of(TP0));
        first.put(List.of(reading(0, 0, "")));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(1)), first.commit(Map.of()));
        // rows before and after the new field in one batch: the columns are added, then the task dies
        first.put(List.of(reading(0, 1, ""), reading(0, 2, "\"hum\":42"), reading(0, 3, "\"hum\":43")));
        first.stop();
        assertTrue(DeltaTableReader.columnNames(sessions.table()).contains("hum"));
        assertEquals(1, rowsBySeq().size(), "nothing of the batch was committed");

        RecordingContext ctx = new RecordingContext(true);
        SinkSession restarted = sessions.create(ctx, EVOLVE);
        restarted.open(List.of(TP0));
        restarted.put(List.of(reading(0, 1, ""), reading(0, 2, "\"hum\":42"), reading(0, 3, "\"hum\":43")));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(4)), restarted.commit(Map.of()));
        Map<Long, Map<String, Object>> rows = rowsBySeq();
        assertEquals(List.of(0L, 1L, 2L, 3L), new ArrayList<>(rows.keySet()));
        assertNull(rows.get(1L).get("hum"));
        assertEquals(43L, rows.get(3L).get("hum"));
        assertEquals(1, versionsWith("metaData").size(), "the columns were added once");
        assertTrue(ctx.reported.isEmpty());
    }
}
