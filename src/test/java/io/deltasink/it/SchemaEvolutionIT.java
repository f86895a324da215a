package io.deltasink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.deltasink.it.ConnectHarness.Coordinates;
import io.deltasink.it.ConnectHarness.Kind;
import io.deltasink.it.ConnectHarness.Message;
import io.deltasink.it.ConnectHarness.Sent;
import io.deltasink.it.SensorFeed.ExpectedRow;
import io.deltasink.it.TableState.Commit;
import io.deltasink.testing.DeltaTableReader;

/**
 * Issue 11's acceptance for schema evolution on a real worker: the records of a topic gain two
 * fields mid-stream and the mapping is updated through {@code PUT /connectors/<name>/config}
 * (schema.evolution=add-columns) while records keep flowing. The table gains both columns in a
 * commit of its own; rows committed before it read null there, rows of records delivered after it
 * carry the values; each (partition, offset) is in the table once. Read back by a Kernel scan and
 * by DuckDB's Parquet reader over the files the log names.
 */
class SchemaEvolutionIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NEW_COLUMNS = "firmware:string=payload.firmware, rssi:int=payload.rssi";

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension("schema-evolution", 1);

    @Test
    void recordsGainTwoFieldsWhileTheMappingIsUpdatedThroughRest(@TempDir Path root) throws Exception {
        String connector = "delta-evolving";
        String topic = "evolving.sensors";
        Path table = root.resolve("table");
        cluster.harness().createTopic(topic);
        Map<String, String> config = ConnectHarness.presetConfig(topic, table);
        config.put("compaction.enabled", "false");
        config.put("vacuum.enabled", "false");
        assertEquals("add-columns", config.get("schema.evolution"));

        List<Sent> sent = Collections.synchronizedList(new ArrayList<>());
        sent.addAll(cluster.harness().produce(topic, SensorFeed.good(0, 600)));
        cluster.harness().startConnector(connector, config);
        sent.addAll(cluster.harness().produce(topic, SensorFeed.good(600, 300)));
        cluster.harness().awaitTableCaughtUp(connector, topic, table);
        // mid-stream the records gain the fields, under the old mapping first
        sent.addAll(cluster.harness().produce(topic, gained(900, 300)));

        ExecutorService thread = Executors.newSingleThreadExecutor(r -> new Thread(r, "it-producer-" + topic));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger next = new AtomicInteger(1_200);
        Future<?> producing = thread.submit(() -> {
            while (!stop.get() || next.get() < 2_400) {
                sent.addAll(cluster.harness().produce(topic, gained(next.getAndAdd(100), 100)));
                Thread.sleep(100);
            }
            return null;
        });
        try {
            Map<String, String> updated = new HashMap<>(config);
            updated.put("columns", config.get("columns") + ", " + NEW_COLUMNS);
            cluster.harness().startConnector(connector, updated); // PUT /connectors/<name>/config
            ConnectHarness.awaitCondition(() -> DeltaTableReader.columnNames(table.toString()).contains("rssi"),
                    ConnectHarness.CATCH_UP_TIMEOUT, () -> "the table did not gain the columns");
            Thread.sleep(2_000); // records keep flowing into the evolved table
            stop.set(true);
            ConnectHarness.get(producing);
        } finally {
            stop.set(true);
            thread.shutdownNow();
        }
        sent.addAll(cluster.harness().produce(topic, gained(next.get(), 300)));

        Map<Coordinates, ExpectedRow> expected = SensorFeed.expectedRows(List.copyOf(sent));
        assertEquals(sent.size(), expected.size());
        ExactlyOnce.awaitAndAssert(cluster.harness(), connector, topic, table, expected);

        // the columns were added in a commit of their own, holding no file
        List<Commit> commits = TableState.commits(table);
        List<Commit> schemaCommits = commits.stream()
                .filter(c -> c.version() > 0 && c.actions().stream().anyMatch(a -> a.has("metaData"))).toList();
        assertEquals(1, schemaCommits.size(), "one schema change");
        Commit schemaCommit = schemaCommits.get(0);
        assertEquals(0, schemaCommit.addCount());
        JsonNode schema = JSON.readTree(schemaCommit.actions().stream().filter(a -> a.has("metaData")).findFirst()
                .orElseThrow().get("metaData").get("schemaString").asText());
        Map<String, JsonNode> fields = new HashMap<>();
        schema.get("fields").forEach(f -> fields.put(f.get("name").asText(), f));
        assertEquals("string", fields.get("firmware").get("type").asText());
        assertEquals("integer", fields.get("rssi").get("type").asText());
        assertTrue(fields.get("firmware").get("nullable").asBoolean());
        assertTrue(fields.get("rssi").get("nullable").asBoolean());
        for (Commit commit : commits) {
            if (commit.version() < schemaCommit.version()) {
                commit.actions().stream().filter(a -> a.has("add")).forEach(a -> assertFalse(
                        a.get("add").get("stats").asText().contains("rssi"), "a file before the change has rssi"));
            }
        }

        // positions when the columns were added: records before them were written under the old mapping
        Map<Integer, Long> before = new HashMap<>();
        for (Commit commit : commits) {
            if (commit.version() < schemaCommit.version()) {
                commit.actions().stream().filter(a -> a.has("txn")).forEach(a -> before.put(
                        partitionOf(a.get("txn").get("appId").asText()), a.get("txn").get("version").asLong()));
            }
        }
        Map<Coordinates, JsonNode> payloads = new HashMap<>();
        for (Sent s : sent) {
            payloads.put(s.at(), JSON.readTree(JSON.readTree(s.message().value()).get("payload").asText()));
        }

        Map<Coordinates, Object[]> kernel = new HashMap<>();
        for (Map<String, Object> row : TableState.rows(table)) {
            kernel.put(ExactlyOnce.coordinates(row), new Object[] {row.get("firmware"), row.get("rssi")});
        }
        Map<Coordinates, Object[]> duck = duckDbRows(table, commits);
        assertEquals(expected.keySet(), kernel.keySet());
        assertEquals(expected.keySet(), duck.keySet());

        int oldNull = 0;
        int gainedNull = 0;
        int carried = 0;
        for (Coordinates at : expected.keySet()) {
            JsonNode payload = payloads.get(at);
            boolean afterChange = at.offset() >= before.getOrDefault(at.partition(), 0L);
            for (Map<Coordinates, Object[]> reader : List.of(kernel, duck)) {
                Object[] got = reader.get(at);
                String who = (reader == kernel ? "Kernel" : "DuckDB") + " at " + at;
                if (!payload.has("rssi") || !afterChange) {
                    assertNull(got[0], who);
                    assertNull(got[1], who);
                } else {
                    assertEquals(payload.get("firmware").asText(), got[0], who);
                    assertEquals(payload.get("rssi").asInt(), ((Number) got[1]).intValue(), who);
                }
            }
            if (!payload.has("rssi")) {
                oldNull++;
            } else if (afterChange) {
                carried++;
            } else {
                gainedNull++;
            }
        }
        assertTrue(oldNull >= 900 && carried >= 1_000, "old rows " + oldNull + ", rows with values " + carried
                + ", rows with the fields written under the old mapping " + gainedNull);
    }

    /** Good events {@code first..first+count-1}, their payload holding two more fields. */
    private static List<Message> gained(int first, int count) {
        List<Message> out = new ArrayList<>(count);
        for (Message m : SensorFeed.good(first, count)) {
            try {
                ObjectNode envelope = (ObjectNode) JSON.readTree(m.value());
                ObjectNode payload = (ObjectNode) JSON.readTree(envelope.get("payload").asText());
                int i = first + out.size();
                payload.put("firmware", "fw-" + (i % 5) + ".2");
                payload.put("rssi", -40 - i % 50);
                envelope.put("payload", payload.toString());
                out.add(new Message(m.partition(), m.key(), envelope.toString(), Kind.GOOD));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return out;
    }

    private static int partitionOf(String appId) {
        return Integer.parseInt(appId.substring(appId.lastIndexOf('/') + 1));
    }

    /** (partition, offset) -> firmware, rssi, as DuckDB reads the files the log names (missing columns null). */
    private static Map<Coordinates, Object[]> duckDbRows(Path table, List<Commit> commits) throws Exception {
        Set<String> files = new LinkedHashSet<>();
        for (Commit commit : commits) {
            for (JsonNode action : commit.actions()) {
                if (action.has("add")) {
                    files.add(table.resolve(java.net.URLDecoder.decode(action.get("add").get("path").asText(),
                            java.nio.charset.StandardCharsets.UTF_8)).toString());
                } else if (action.has("remove")) {
                    files.remove(table.resolve(java.net.URLDecoder.decode(action.get("remove").get("path").asText(),
                            java.nio.charset.StandardCharsets.UTF_8)).toString());
                }
            }
        }
        String list = String.join(", ", files.stream().map(f -> "'" + f.replace("'", "''") + "'").toList());
        Map<Coordinates, Object[]> out = new HashMap<>();
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:");
             Statement st = duck.createStatement();
             ResultSet rs = st.executeQuery("SELECT kafka_topic, kafka_partition, kafka_offset, firmware, rssi "
                     + "FROM read_parquet([" + list + "], union_by_name = true, hive_partitioning = false)")) {
            while (rs.next()) {
                Coordinates at = new Coordinates(rs.getString(1), rs.getInt(2), rs.getLong(3));
                Object[] previous = out.put(at, new Object[] {rs.getString(4), rs.getObject(5)});
                assertNull(previous, "DuckDB reads " + at + " twice");
            }
        }
        return out;
    }
}
