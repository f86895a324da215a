package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.table.TableMismatchException;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.LogEdits;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SinkRecords;

/**
 * What Delta's {@code typeWidening} feature (int to long) does with the readers we test, on a real
 * table: the connector writes int32 files, another writer widens the column as the protocol says
 * (protocol 3,7 with the feature, {@code delta.typeChanges} in the field's metadata), the connector
 * writes long values on top. The findings are written in design.md ("Schema evolution", Widening);
 * and a type change that is not widening stays refused naming column, table type and new type.
 */
class TypeWideningFindingTest {
    private static final String TOPIC = "readings";
    private static final TopicPartition TP0 = new TopicPartition(TOPIC, 0);
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    final Sessions sessions = Sessions.of("widening", Map.of());

    private static Map<String, String> mapping(String xType) {
        return Map.of(DeltaSinkConfig.COLUMNS, "o:long=@offset, x:" + xType + "=x");
    }

    private static SinkRecord reading(long offset, long x) {
        return SinkRecords.of(TOPIC, 0, offset, "{\"x\":" + x + "}");
    }

    @Test
    void kernelAndDuckDbReadInt32FilesUnderAWidenedLongColumn() throws Exception {
        SinkSession narrow = sessions.create(new RecordingContext(true), mapping("int"));
        narrow.open(List.of(TP0));
        narrow.put(List.of(reading(0, 7), reading(1, -5), reading(2, Integer.MAX_VALUE), reading(3, Integer.MIN_VALUE)));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(4)), narrow.commit(Map.of()));
        narrow.stop();

        // another writer widens x to long as the protocol's typeWidening feature says
        LogEdits log = new LogEdits(sessions.table());
        long version = DeltaTableReader.version(sessions.table());
        ObjectNode metaData = null;
        for (String line : new String(log.read(LogEdits.commit(0)), java.nio.charset.StandardCharsets.UTF_8).split("\n")) {
            JsonNode action = JSON.readTree(line);
            if (action.has("metaData")) {
                metaData = (ObjectNode) action.get("metaData");
            }
        }
        ObjectNode schema = (ObjectNode) JSON.readTree(metaData.get("schemaString").asText());
        for (JsonNode field : schema.get("fields")) {
            if (field.get("name").asText().equals("x")) {
                ((ObjectNode) field).put("type", "long");
                ArrayNode changes = JSON.createArrayNode();
                changes.addObject().put("fromType", "integer").put("toType", "long");
                ((ObjectNode) field.get("metadata")).set("delta.typeChanges", changes);
            }
        }
        metaData.put("schemaString", schema.toString());
        ((ObjectNode) metaData.get("configuration")).put("delta.enableTypeWidening", "true");
        ObjectNode protocol = JSON.createObjectNode();
        ObjectNode p = protocol.putObject("protocol");
        p.put("minReaderVersion", 3).put("minWriterVersion", 7);
        p.putArray("readerFeatures").add("typeWidening");
        p.putArray("writerFeatures").add("typeWidening").add("appendOnly").add("invariants");
        ObjectNode meta = JSON.createObjectNode();
        meta.set("metaData", metaData);
        log.dropVersionChecksums()
                .write(LogEdits.commit(version + 1), (protocol + "\n" + meta + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));

        // the connector writes long values into the widened table
        SinkSession wide = sessions.create(new RecordingContext(true), mapping("long"));
        wide.open(List.of(TP0));
        wide.put(List.of(reading(4, 1L << 40), reading(5, -(1L << 40))));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(6)), wide.commit(Map.of()));
        wide.stop();

        Map<Long, Object> expected = new TreeMap<>(Map.of(0L, 7L, 1L, -5L, 2L, (long) Integer.MAX_VALUE,
                3L, (long) Integer.MIN_VALUE, 4L, 1L << 40, 5L, -(1L << 40)));
        Map<Long, Object> kernel = new TreeMap<>();
        for (Map<String, Object> row : DeltaTableReader.readAll(sessions.table())) {
            kernel.put((Long) row.get("o"), row.get("x"));
        }
        assertEquals(expected, kernel, "Kernel reads the int32 files as long");

        Map<Long, Object> duck = new TreeMap<>();
        List<String> files;
        try (Stream<Path> walk = Files.walk(sessions.dir().resolve("table"))) {
            files = walk.filter(f -> f.toString().endsWith(".parquet") && !f.toString().contains("_delta_log"))
                    .map(f -> "'" + f + "'").toList();
        }
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT o, x, typeof(x) FROM read_parquet([" + String.join(",", files)
                     + "], union_by_name = true)")) {
            while (rs.next()) {
                assertEquals("BIGINT", rs.getString(3));
                duck.put(rs.getLong(1), rs.getLong(2));
            }
        }
        assertEquals(expected, duck, "DuckDB's Parquet reader unites int32 and int64 files as BIGINT");
    }

    @Test
    void widenTypesWidensIntToLongAndFloatToDoubleWithTheFeatureAndOldRowsReadRight() throws Exception {
        SinkSession narrow = sessions.create(new RecordingContext(true), Map.of(DeltaSinkConfig.COLUMNS,
                "o:long=@offset, x:int=x, f:float=f", DeltaSinkConfig.SCHEMA_EVOLUTION, "add-columns,widen-types"));
        narrow.open(List.of(TP0));
        narrow.put(List.of(SinkRecords.of(TOPIC, 0, 0, "{\"x\":7,\"f\":1.5}"),
                SinkRecords.of(TOPIC, 0, 1, "{\"x\":" + Integer.MIN_VALUE + ",\"f\":-0.25}")));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(2)), narrow.commit(Map.of()));
        narrow.stop();
        long before = DeltaTableReader.version(sessions.table());

        Map<String, String> wider = Map.of(DeltaSinkConfig.COLUMNS, "o:long=@offset, x:long=x, f:double=f");
        SinkSession onlyAdd = sessions.create(new RecordingContext(true),
                Map.of(DeltaSinkConfig.COLUMNS, wider.get(DeltaSinkConfig.COLUMNS), DeltaSinkConfig.SCHEMA_EVOLUTION,
                        "add-columns"));
        RuntimeException refused = assertThrows(RuntimeException.class, () -> onlyAdd.open(List.of(TP0)));
        String why = (refused instanceof TableMismatchException ? refused : refused.getCause()).getMessage();
        assertTrue(why.contains("column 'x' type differs: table says integer, mapping says long"), why);
        assertEquals(before, DeltaTableReader.version(sessions.table()), "add-columns alone changes nothing");

        SinkSession wide = sessions.create(new RecordingContext(true), Map.of(DeltaSinkConfig.COLUMNS,
                wider.get(DeltaSinkConfig.COLUMNS), DeltaSinkConfig.SCHEMA_EVOLUTION, "add-columns,widen-types"));
        wide.open(List.of(TP0));
        wide.put(List.of(SinkRecords.of(TOPIC, 0, 2, "{\"x\":" + (1L << 40) + ",\"f\":0.1}")));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(3)), wide.commit(Map.of()));
        wide.stop();

        // one commit of its own: protocol with the feature, metaData with the widened fields
        List<JsonNode> change = DeltaTableReader.actions(sessions.table(), before + 1);
        JsonNode protocol = change.stream().filter(a -> a.has("protocol")).findFirst().orElseThrow().get("protocol");
        assertEquals(3, protocol.get("minReaderVersion").asInt());
        assertEquals(7, protocol.get("minWriterVersion").asInt());
        assertTrue(protocol.get("readerFeatures").toString().contains("typeWidening"), protocol.toString());
        assertTrue(protocol.get("writerFeatures").toString().contains("typeWidening"), protocol.toString());
        assertTrue(protocol.get("writerFeatures").toString().contains("appendOnly")
                && protocol.get("writerFeatures").toString().contains("invariants"), "the features of (1,2) stay: " + protocol);
        JsonNode metaData = change.stream().filter(a -> a.has("metaData")).findFirst().orElseThrow().get("metaData");
        assertEquals("true", metaData.get("configuration").get("delta.enableTypeWidening").asText());
        Map<String, JsonNode> fields = new TreeMap<>();
        JSON.readTree(metaData.get("schemaString").asText()).get("fields")
                .forEach(f -> fields.put(f.get("name").asText(), f));
        assertEquals("long", fields.get("x").get("type").asText());
        assertEquals(JSON.readTree("[{\"fromType\":\"integer\",\"toType\":\"long\"}]"),
                fields.get("x").get("metadata").get("delta.typeChanges"));
        assertEquals("double", fields.get("f").get("type").asText());
        assertEquals(JSON.readTree("[{\"fromType\":\"float\",\"toType\":\"double\"}]"),
                fields.get("f").get("metadata").get("delta.typeChanges"));
        assertTrue(change.stream().noneMatch(a -> a.has("add")));

        Map<Long, List<Object>> expected = new TreeMap<>(Map.of(0L, List.of(7L, 1.5), 1L,
                List.of((long) Integer.MIN_VALUE, -0.25), 2L, List.of(1L << 40, 0.1)));
        Map<Long, List<Object>> kernel = new TreeMap<>();
        for (Map<String, Object> row : DeltaTableReader.readAll(sessions.table())) {
            kernel.put((Long) row.get("o"), List.of(row.get("x"), row.get("f")));
        }
        assertEquals(expected, kernel, "Kernel reads the old files under the widened types");
        Map<Long, List<Object>> duck = new TreeMap<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT o, x, f FROM read_parquet([" + String.join(",", dataFiles())
                     + "], union_by_name = true)")) {
            while (rs.next()) {
                duck.put(rs.getLong(1), List.of(rs.getLong(2), rs.getDouble(3)));
            }
        }
        assertEquals(expected, duck, "DuckDB reads the old files under the widened types");

        // narrowing back is refused, with widen-types too
        SinkSession back = sessions.create(new RecordingContext(true), Map.of(DeltaSinkConfig.COLUMNS,
                "o:long=@offset, x:int=x, f:double=f", DeltaSinkConfig.SCHEMA_EVOLUTION, "add-columns,widen-types"));
        RuntimeException narrowing = assertThrows(RuntimeException.class, () -> back.open(List.of(TP0)));
        String message = (narrowing instanceof TableMismatchException ? narrowing : narrowing.getCause()).getMessage();
        assertTrue(message.contains("column 'x' type differs: table says long, mapping says integer"), message);
    }

    private List<String> dataFiles() throws java.io.IOException {
        try (Stream<Path> walk = Files.walk(sessions.dir().resolve("table"))) {
            return walk.filter(f -> f.toString().endsWith(".parquet") && !f.toString().contains("_delta_log"))
                    .map(f -> "'" + f + "'").toList();
        }
    }

    @Test
    void aTypeChangeThatIsNotWideningStaysRefusedNamingColumnAndBothTypes() {
        SinkSession first = sessions.create(new RecordingContext(true), mapping("long"));
        first.open(List.of(TP0));
        first.put(List.of(reading(0, 7)));
        first.commit(Map.of());
        first.stop();
        List<String> problems = new ArrayList<>();
        for (String type : List.of("int", "string", "double")) {
            SinkSession changed = sessions.create(new RecordingContext(true),
                    Map.of(DeltaSinkConfig.COLUMNS, "o:long=@offset, x:" + type + "=x",
                            DeltaSinkConfig.SCHEMA_EVOLUTION, "add-columns"));
            RuntimeException e = assertThrows(RuntimeException.class, () -> changed.open(List.of(TP0)));
            Throwable mismatch = e instanceof TableMismatchException ? e : e.getCause();
            String message = mismatch.getMessage();
            String deltaType = type.equals("int") ? "integer" : type;
            assertTrue(message.contains("'x'") && message.contains("table says long")
                    && message.contains("mapping says " + deltaType), message);
            problems.add(message);
        }
        assertEquals(3, problems.size());
    }
}
