package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SinkRecords;
import io.deltasink.testing.SparkTables;
import io.deltasink.testing.SparkTables.Read;

/**
 * Spark (Delta Lake 4.4 on Spark 4.2, in a JVM of its own: {@link SparkTables}) reads
 * back what the connector's write path (sessions as a task builds them) wrote: a table widened with
 * {@code schema.evolution=add-columns,widen-types} (int to long, float to double; rows before and
 * after; extreme values, NaN, -0.0), also through readChangeFeed, and a table of struct, array and
 * map columns with nulls at every level and empty lists and maps. Spark must return every value as
 * written, as Kernel does. Runs in failsafe after the Spark class path is resolved.
 */
class ReadBackSparkIT {
    private static final String TOPIC = "readings";
    private static final TopicPartition TP0 = new TopicPartition(TOPIC, 0);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Two appends, then the schema commit that widens. */
    private static final long WIDENING_VERSION = 3;

    @RegisterExtension
    final Sessions sessions = Sessions.of("spark-read-back", Map.of());

    @Test
    void sparkReadsWidenedAndNestedTablesAsWritten() throws Exception {
        Path widened = sessions.dir().resolve("widened");
        Path widenedCdf = sessions.dir().resolve("widened-cdf");
        Path nested = sessions.dir().resolve("nested");
        Map<Long, JsonNode> wideExpected = writeWidened(widened, Map.of());
        assertEquals(wideExpected, writeWidened(widenedCdf,
                Map.of(DeltaSinkConfig.TABLE_PROPERTY_PREFIX + "delta.enableChangeDataFeed", "true")));
        Map<Long, JsonNode> nestedExpected = writeNested(nested);
        assertEquals(List.of("metaData", "protocol"), DeltaTableReader.actions(widenedCdf.toString(), WIDENING_VERSION)
                .stream().map(a -> a.fieldNames().next()).filter(n -> !n.equals("commitInfo")).sorted().toList());
        JsonNode protocol = DeltaTableReader.actions(widenedCdf.toString(), WIDENING_VERSION).stream()
                .filter(a -> a.has("protocol")).findFirst().orElseThrow().get("protocol");
        assertTrue(protocol.get("writerFeatures").toString().contains("changeDataFeed")
                && protocol.get("readerFeatures").toString().contains("typeWidening"), "the widening keeps the feed: "
                + protocol);
        // the comparison below tells -0.0 from 0.0 and takes NaN as equal to NaN
        assertNotEquals(normalize(DoubleNode.valueOf(0.0)), normalize(DoubleNode.valueOf(-0.0)));
        assertEquals(normalize(DoubleNode.valueOf(Double.NaN)), normalize(JSON.getNodeFactory().textNode("NaN")));

        // Kernel first: what the connector's tests already trust
        assertEquals(wideExpected, byKey(kernelRows(widened), "o"), "Kernel, widened");
        assertEquals(nestedExpected, byKey(kernelRows(nested), "id"), "Kernel, nested");

        Map<String, Read> spark = SparkTables.read(Map.of(
                "widened", widened.toString(),
                "feed-across", "cdf:0:-:-:" + widenedCdf,
                "feed-before", "cdf:0:" + (WIDENING_VERSION - 1) + ":-:" + widenedCdf,
                "feed-after", "cdf:" + WIDENING_VERSION + ":-:-:" + widenedCdf,
                "nested", nested.toString()));

        Read wide = spark.get("widened");
        assertNull(wide.error(), "Spark refused the widened table: " + wide.error());
        assertEquals("long", wide.type("x"));
        assertEquals("double", wide.type("f"));
        assertEquals(wideExpected, byKey(wide.rows(), "o"), "Spark, widened");

        // readChangeFeed across the widening: Delta 4.4 refuses it (batch change reads take the latest
        // schema and refuse versions whose data schema differs), also for a range that ends before it
        for (String range : List.of("feed-across", "feed-before")) {
            Read refused = spark.get(range);
            assertNotNull(refused.error(), range + ": Spark now reads the feed across the widening: " + refused.rows());
            assertTrue(refused.error().contains("DELTA_CHANGE_DATA_FEED_INCOMPATIBLE_DATA_SCHEMA"), refused.error());
        }
        // from the widening's version on, the feed reads: each later row once, as an insert
        Read after = spark.get("feed-after");
        assertNull(after.error(), "Spark refused the feed after the widening: " + after.error());
        Map<Long, JsonNode> changes = new TreeMap<>();
        for (JsonNode change : after.rows()) {
            assertEquals("insert", change.get("_change_type").asText(), change.toString());
            assertEquals(WIDENING_VERSION + 1, change.get("_commit_version").asLong(), change.toString());
            ObjectNode row = change.deepCopy();
            row.remove(List.of("_change_type", "_commit_version", "_commit_timestamp"));
            assertNull(changes.put(row.get("o").asLong(), normalize(row)), "read twice: " + change);
        }
        assertEquals(new TreeMap<>(((TreeMap<Long, JsonNode>) wideExpected).tailMap(9L)), changes, "Spark's feed after the widening");

        Read nest = spark.get("nested");
        assertNull(nest.error(), "Spark refused the nested table: " + nest.error());
        assertEquals(nestedExpected, byKey(nest.rows(), "id"), "Spark, nested");
        assertEquals(JSON.readTree("{\"type\":\"array\",\"elementType\":{\"type\":\"struct\",\"fields\":["
                + "{\"name\":\"x\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{}},"
                + "{\"name\":\"labels\",\"type\":{\"type\":\"array\",\"elementType\":\"string\",\"containsNull\":true},"
                + "\"nullable\":true,\"metadata\":{}}]},\"containsNull\":true}"), nest.field("points").get("type"));
        assertEquals(JSON.readTree("{\"type\":\"map\",\"keyType\":\"string\",\"valueType\":\"double\","
                + "\"valueContainsNull\":true}"), nest.field("attrs").get("type"));
    }

    /**
     * Writes int and float rows in two commits, widens (x to long, f to double) and writes long and
     * double rows; returns every row as Spark's JSON shows it, by offset.
     */
    private Map<Long, JsonNode> writeWidened(Path table, Map<String, String> properties) {
        Map<Long, JsonNode> expected = new TreeMap<>();
        Map<String, String> narrow = new HashMap<>(properties);
        narrow.put(DeltaSinkConfig.TABLE_LOCATION, table.toString());
        narrow.put(DeltaSinkConfig.COLUMNS, "o:long=@offset, x:int=x, f:float=f");
        narrow.put(DeltaSinkConfig.SCHEMA_EVOLUTION, "add-columns,widen-types");
        Object[][] before = {
            {0, 0.0f}, {Integer.MIN_VALUE, -0.0f}, {Integer.MAX_VALUE, Float.NaN}, {-1, Float.MAX_VALUE},
            {null, Float.MIN_VALUE}, {7, Float.POSITIVE_INFINITY}, {-7, Float.NEGATIVE_INFINITY}, {1, 0.1f}, {2, null},
        };
        SinkSession first = sessions.create(new RecordingContext(true), narrow);
        first.open(List.of(TP0));
        for (int commit = 0; commit < 2; commit++) {
            List<SinkRecord> records = new ArrayList<>();
            for (int i = commit * 5; i < Math.min(before.length, commit * 5 + 5); i++) {
                records.add(reading(i, before[i][0], before[i][1]));
                expected.put((long) i, row(i, before[i][0] == null ? null : ((Integer) before[i][0]).longValue(),
                        before[i][1] == null ? null : (double) (Float) before[i][1]));
            }
            first.put(records);
            assertEquals(Map.of(TP0, new OffsetAndMetadata(before.length > commit * 5 + 5 ? commit * 5 + 5
                    : before.length)), first.commit(Map.of()));
        }
        first.stop();

        Map<String, String> wide = new HashMap<>(narrow);
        wide.put(DeltaSinkConfig.COLUMNS, "o:long=@offset, x:long=x, f:double=f");
        Object[][] after = {
            {Long.MIN_VALUE, -0.0}, {Long.MAX_VALUE, Double.NaN}, {(long) Integer.MAX_VALUE + 1, 0.1},
            {null, Double.MIN_VALUE}, {-(1L << 40), Double.MAX_VALUE}, {3L, (double) Float.MAX_VALUE * 2},
        };
        SinkSession second = sessions.create(new RecordingContext(true), wide);
        second.open(List.of(TP0));
        List<SinkRecord> records = new ArrayList<>();
        for (int j = 0; j < after.length; j++) {
            int offset = before.length + j;
            records.add(reading(offset, after[j][0], after[j][1]));
            expected.put((long) offset, row(offset, (Long) after[j][0], (Double) after[j][1]));
        }
        second.put(records);
        assertEquals(Map.of(TP0, new OffsetAndMetadata(before.length + after.length)), second.commit(Map.of()));
        second.stop();
        assertTrue(DeltaTableReader.allActions(table.toString(), "protocol").toString().contains("typeWidening"),
                "the table was not widened");
        return expected;
    }

    private static SinkRecord reading(long offset, Object x, Object f) {
        Map<String, Object> value = new HashMap<>();
        value.put("x", x);
        value.put("f", f);
        return SinkRecords.of(TOPIC, 0, offset, value);
    }

    private static JsonNode row(long o, Long x, Double f) {
        ObjectNode row = JSON.createObjectNode();
        row.put("o", o);
        row.set("x", x == null ? JsonNodeFactory.instance.nullNode() : LongNode.valueOf(x));
        row.set("f", f == null ? JsonNodeFactory.instance.nullNode() : DoubleNode.valueOf(f));
        return row;
    }

    /** Struct, array, map and array of struct of array columns, nulls at every level, in two commits. */
    private Map<Long, JsonNode> writeNested(Path table) {
        Map<String, String> settings = Map.of(DeltaSinkConfig.TABLE_LOCATION, table.toString(),
                DeltaSinkConfig.COLUMNS, "id:long=id, address:struct<street:string,zip:int>=address, "
                        + "tags:array<string>=tags, attrs:map<string,double>=attrs, "
                        + "points:array<struct<x:int,labels:array<string>>>=points");
        List<Map<String, Object>> values = new ArrayList<>();
        Map<String, Object> attrs = new LinkedHashMap<>();
        attrs.put("p", 0.5);
        attrs.put("q", null);
        attrs.put("", -0.0);
        attrs.put("nan", Double.NaN);
        attrs.put("max", Double.MAX_VALUE);
        attrs.put("\u00e9\u2603 \"quoted\"", Double.MIN_VALUE);
        values.add(nestedValue(0, struct("Main St \u00e9\u2603 \"q\"\n", Integer.MIN_VALUE), Arrays.asList("a", null, ""),
                attrs, Arrays.asList(point(1, Arrays.asList("l", null)), null, point(null, null),
                        point(Integer.MAX_VALUE, List.of()))));
        values.add(nestedValue(1, null, null, null, null));
        values.add(nestedValue(2, struct(null, null), List.of(), Map.of(), List.of()));
        Map<String, Object> nullValue = new HashMap<>();
        nullValue.put("k", null);
        values.add(nestedValue(3, struct("", 0), Arrays.asList((Object) null), nullValue, Arrays.asList((Object) null)));
        values.add(nestedValue(4, struct("x", null), List.of("only"), Map.of("e", 1.0),
                List.of(point(null, Arrays.asList((Object) null)), point(0, List.of("")))));
        values.add(nestedValue(5, null, List.of(), null, List.of(point(null, List.of()))));

        SinkSession session = sessions.create(new RecordingContext(true), settings);
        session.open(List.of(TP0));
        Map<Long, JsonNode> expected = new TreeMap<>();
        for (int commit = 0; commit < 2; commit++) {
            List<SinkRecord> records = new ArrayList<>();
            for (int i = commit * 3; i < commit * 3 + 3; i++) {
                records.add(SinkRecords.of(TOPIC, 0, i, values.get(i)));
                expected.put((long) i, normalize(JSON.valueToTree(values.get(i))));
            }
            session.put(records);
            assertEquals(Map.of(TP0, new OffsetAndMetadata(commit * 3 + 3)), session.commit(Map.of()));
        }
        session.stop();
        return expected;
    }

    private static Map<String, Object> nestedValue(long id, Object address, Object tags, Object attrs, Object points) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("id", id);
        v.put("address", address);
        v.put("tags", tags);
        v.put("attrs", attrs);
        v.put("points", points);
        return v;
    }

    private static Map<String, Object> struct(String street, Integer zip) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("street", street);
        m.put("zip", zip);
        return m;
    }

    private static Map<String, Object> point(Integer x, List<?> labels) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("x", x);
        m.put("labels", labels);
        return m;
    }

    private static List<JsonNode> kernelRows(Path table) {
        List<JsonNode> rows = new ArrayList<>();
        for (Map<String, Object> row : DeltaTableReader.readAll(table.toString())) {
            rows.add(JSON.valueToTree(row));
        }
        return rows;
    }

    /** Rows by the long value of {@code key}, numbers made comparable (every integer a long, every fraction a double). */
    private static Map<Long, JsonNode> byKey(List<JsonNode> rows, String key) {
        Map<Long, JsonNode> byKey = new TreeMap<>();
        for (JsonNode row : rows) {
            JsonNode n = normalize(row);
            assertNull(byKey.put(n.get(key).asLong(), n), "read twice: " + n);
        }
        return byKey;
    }

    /**
     * Integers as longs, fractions as doubles (Jackson's equality then tells -0.0 from 0.0 and NaN
     * equals NaN), and the non-numbers Spark's JSON writes as text ("NaN", "Infinity") as doubles.
     */
    private static JsonNode normalize(JsonNode node) {
        if (node.isObject()) {
            ObjectNode out = JSON.createObjectNode();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> e = it.next();
                out.set(e.getKey(), normalize(e.getValue()));
            }
            return out;
        }
        if (node.isArray()) {
            ArrayNode out = JSON.createArrayNode();
            node.forEach(e -> out.add(normalize(e)));
            return out;
        }
        if (node.isIntegralNumber()) {
            return LongNode.valueOf(node.longValue());
        }
        if (node.isFloatingPointNumber()) {
            return DoubleNode.valueOf(node.doubleValue());
        }
        if (node.isTextual() && List.of("NaN", "Infinity", "-Infinity").contains(node.textValue())) {
            return DoubleNode.valueOf(Double.parseDouble(node.textValue()));
        }
        return node;
    }
}
