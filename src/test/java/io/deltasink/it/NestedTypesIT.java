package io.deltasink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.it.ConnectHarness.Kind;
import io.deltasink.it.ConnectHarness.Message;
import io.deltasink.testing.DeltaTableReader;

/**
 * A real worker with JsonConverter and schemas.enable=true writes a stream of Structs holding a
 * struct, an array and a map (nulls at every level, empty lists and maps) into struct / array /
 * map columns; Kernel reads every value back as sent, and the table's schema is the Delta nested
 * schema.
 */
class NestedTypesIT {
    private static final int EVENTS = 300;
    private static final String SCHEMA = "{\"type\":\"struct\",\"fields\":["
            + "{\"field\":\"id\",\"type\":\"int64\",\"optional\":false},"
            + "{\"field\":\"address\",\"type\":\"struct\",\"optional\":true,\"fields\":["
            + "{\"field\":\"street\",\"type\":\"string\",\"optional\":true},"
            + "{\"field\":\"zip\",\"type\":\"int32\",\"optional\":true}]},"
            + "{\"field\":\"tags\",\"type\":\"array\",\"optional\":true,\"items\":{\"type\":\"string\",\"optional\":true}},"
            + "{\"field\":\"attrs\",\"type\":\"map\",\"optional\":true,\"keys\":{\"type\":\"string\",\"optional\":false},"
            + "\"values\":{\"type\":\"double\",\"optional\":true}},"
            + "{\"field\":\"points\",\"type\":\"array\",\"optional\":true,\"items\":{\"type\":\"struct\",\"optional\":true,"
            + "\"fields\":[{\"field\":\"x\",\"type\":\"int32\",\"optional\":true},"
            + "{\"field\":\"labels\",\"type\":\"array\",\"optional\":true,\"items\":{\"type\":\"string\",\"optional\":true}}]}}"
            + "]}";

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension("nested-types", 1);

    @Test
    void structsWithStructArrayAndMapFieldsLandInNestedColumnsThatKernelReadsBack(@TempDir Path root) throws Exception {
        String connector = "delta-nested";
        String topic = "nested.events";
        cluster.harness().createTopic(topic);
        Path table = root.resolve("nested");
        Map<String, String> config = ConnectHarness.presetConfig(topic, table);
        config.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        config.put("value.converter.schemas.enable", "true");
        config.put("columns", "id:long=id, address:struct<street:string,zip:int>=address, tags:array<string>=tags, "
                + "attrs:map<string,double>=attrs, points:array<struct<x:int,labels:array<string>>>=points, "
                + "zip:int=address.zip");
        config.put("columns.not.null", "id");
        config.remove("partition.columns");
        config.put("compaction.enabled", "false");
        config.put("vacuum.enabled", "false");

        List<Message> messages = new ArrayList<>();
        Map<Long, Map<String, Object>> expected = new TreeMap<>();
        for (long id = 0; id < EVENTS; id++) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", id);
            String payload = payload(id, row);
            messages.add(new Message((int) (id % ConnectHarness.PARTITIONS), "k" + id,
                    "{\"schema\":" + SCHEMA + ",\"payload\":" + payload + "}", Kind.GOOD));
            expected.put(id, row);
        }
        cluster.harness().produce(topic, messages.subList(0, EVENTS / 2));
        cluster.harness().startConnector(connector, config);
        cluster.harness().produce(topic, messages.subList(EVENTS / 2, EVENTS));
        cluster.harness().awaitTableCaughtUp(connector, topic, table);

        Map<Long, Map<String, Object>> actual = new TreeMap<>();
        for (Map<String, Object> row : DeltaTableReader.readAll(table.toString())) {
            Map<String, Object> kept = new LinkedHashMap<>();
            for (String c : List.of("id", "address", "tags", "attrs", "points", "zip")) {
                kept.put(c, row.get(c));
            }
            assertEquals(null, actual.put((Long) row.get("id"), kept), "id " + row.get("id") + " twice");
        }
        assertEquals(expected, actual);
        String schema = DeltaTableReader.actions(table.toString(), 0).stream()
                .filter(a -> a.has("metaData")).findFirst().orElseThrow().get("metaData").get("schemaString").asText();
        assertEquals(true, schema.contains("{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"elementType\":\"string\","
                + "\"containsNull\":true},\"nullable\":true"), schema);
        assertEquals(true, schema.contains("{\"type\":\"map\",\"keyType\":\"string\",\"valueType\":\"double\","
                + "\"valueContainsNull\":true}"), schema);
    }

    /** The payload of event {@code id}, and into {@code row} what Kernel must read back. */
    private static String payload(long id, Map<String, Object> row) {
        int shape = (int) (id % 6);
        // address: a struct, null, or a struct of nulls
        String address;
        Map<String, Object> addr = null;
        if (shape == 1) {
            address = "null";
        } else if (shape == 2) {
            address = "{\"street\":null,\"zip\":null}";
            addr = new HashMap<>();
            addr.put("street", null);
            addr.put("zip", null);
        } else {
            address = "{\"street\":\"Main St " + id + " \u00e9\u2603\",\"zip\":" + (id * 7 - 1000) + "}";
            addr = new HashMap<>();
            addr.put("street", "Main St " + id + " \u00e9\u2603");
            addr.put("zip", (int) (id * 7 - 1000));
        }
        row.put("address", addr == null ? null : new LinkedHashMap<>(Map.of()));
        if (addr != null) {
            Map<String, Object> ordered = new LinkedHashMap<>();
            ordered.put("street", addr.get("street"));
            ordered.put("zip", addr.get("zip"));
            row.put("address", ordered);
        }
        // tags: a list with a null element, empty, or null
        String tags;
        if (shape == 3) {
            tags = "[]";
            row.put("tags", List.of());
        } else if (shape == 4) {
            tags = "null";
            row.put("tags", null);
        } else {
            tags = "[\"a" + id + "\",null,\"\"]";
            row.put("tags", Arrays.asList("a" + id, null, ""));
        }
        // attrs: a map with a null value, empty, or null
        String attrs;
        if (shape == 0) {
            attrs = "{}";
            row.put("attrs", Map.of());
        } else if (shape == 5) {
            attrs = "null";
            row.put("attrs", null);
        } else {
            attrs = "{\"p\":" + (id + 0.5) + ",\"q\":null,\"max\":1.7976931348623157E308}";
            Map<Object, Object> m = new LinkedHashMap<>();
            m.put("p", id + 0.5);
            m.put("q", null);
            m.put("max", Double.MAX_VALUE);
            row.put("attrs", m);
        }
        // points: a list of structs holding a list, with a null element and nested nulls
        String points;
        if (shape == 1) {
            points = "null";
            row.put("points", null);
        } else {
            points = "[{\"x\":" + id + ",\"labels\":[\"l\",null]},null,{\"x\":null,\"labels\":null},{\"x\":1,\"labels\":[]}]";
            List<Object> p = new ArrayList<>();
            p.add(point((int) id, Arrays.asList("l", null)));
            p.add(null);
            p.add(point(null, null));
            p.add(point(1, List.of()));
            row.put("points", p);
        }
        row.put("zip", addr == null ? null : addr.get("zip"));
        return "{\"id\":" + id + ",\"address\":" + address + ",\"tags\":" + tags + ",\"attrs\":" + attrs
                + ",\"points\":" + points + "}";
    }

    private static Map<String, Object> point(Integer x, List<String> labels) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("x", x);
        m.put("labels", labels);
        return m;
    }
}
