package io.deltasink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.it.ConnectHarness.Coordinates;
import io.deltasink.it.ConnectHarness.Sent;
import io.deltasink.it.SensorFeed.ExpectedRow;
import io.deltasink.maintenance.CompactionOptions;
import io.deltasink.maintenance.CompactionResult;
import io.deltasink.maintenance.Compactor;
import io.deltasink.storage.StorageSettings;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.SparkTables;

/**
 * A table with the change data feed on, written by the connector on a real worker over several
 * commits, compacted, and widened by a schema change through {@code PUT /connectors/<name>/config},
 * then read by Spark's {@code readChangeFeed} (Delta Lake 4.4 on Spark 4.2, in a JVM of its own:
 * {@link SparkTables}) as the seeds' CDF to MERGE pipeline reads it: each produced event once, as an
 * insert, at the version of the commit whose txn positions cover its offset; nothing for the
 * compaction or the schema change. Runs in failsafe after the Spark class path is resolved.
 */
class ChangeFeedSparkIT {
    private static final int BATCH = 100;

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension("change-feed", 1);

    @Test
    void sparkReadsEveryAppendAsOneInsertAndNothingForCompactionOrSchemaChange(@TempDir Path dir) throws Exception {
        Path table = dir.resolve("table");
        String topic = "sensor-events-cdf";
        String connector = "delta-cdf";
        ConnectHarness harness = cluster.harness();
        harness.createTopic(topic);
        Map<String, String> config = ConnectHarness.presetConfig(topic, table);
        config.put("delta.table.property.delta.enableChangeDataFeed", "true");
        config.put("compaction.enabled", "false"); // compacted below, at a known point
        config.put("vacuum.enabled", "false");
        harness.startConnector(connector, config);

        // three commits at least: each batch is committed before the next is produced
        List<Sent> sent = new ArrayList<>();
        for (int batch = 0; batch < 3; batch++) {
            sent.addAll(harness.produce(topic, SensorFeed.good(batch * BATCH, BATCH)));
            harness.awaitTableCaughtUp(connector, topic, table);
        }
        CompactionResult compaction;
        try (StorageSettings storage = new StorageSettings(table.toString(), Map.of())) {
            compaction = new Compactor(storage, Clock.systemUTC())
                    .run(CompactionOptions.defaults().withMinAge(Duration.ZERO).withMinFiles(2));
        }
        assertTrue(compaction.version() > 0 && compaction.filesRemoved() > 0, compaction.toText());

        // the mapping gains a column: the task adds it to the table in a commit of its own
        config.put("columns", config.get("columns") + ", signal:int=payload.linkquality");
        harness.startConnector(connector, config);
        // the restarted task adds the column at its first open(), before it converts a record: once the
        // table has it, no record is converted under the old mapping
        ConnectHarness.awaitCondition(() -> {
            harness.failOnFailedTask(connector);
            return DeltaTableReader.columnNames(table.toUri().toString()).contains("signal");
        }, ConnectHarness.CATCH_UP_TIMEOUT, () -> "the table did not gain the column 'signal'");
        List<Sent> later = new ArrayList<>();
        for (int batch = 3; batch < 5; batch++) {
            later.addAll(harness.produce(topic, SensorFeed.good(batch * BATCH, BATCH)));
            harness.awaitTableCaughtUp(connector, topic, table);
        }
        sent.addAll(later);
        Map<Coordinates, ExpectedRow> expected = SensorFeed.expectedRows(sent);
        assertEquals(5 * BATCH, expected.size());
        Set<Coordinates> widened = SensorFeed.expectedRows(later).keySet();

        // what the log says: the version of each commit, what it is, and the txn positions it holds
        List<TableState.Commit> commits = TableState.commits(table);
        Long schemaChange = null;
        List<Long> appends = new ArrayList<>();
        Map<Integer, TreeMap<Long, Long>> positions = new HashMap<>(); // partition -> (next offset -> version)
        for (TableState.Commit commit : commits) {
            boolean metaData = commit.actions().stream().anyMatch(a -> a.has("metaData"));
            if (metaData && commit.version() > 0) {
                schemaChange = commit.version();
            }
            if (commit.actions().stream().anyMatch(a -> a.has("add") && a.get("add").get("dataChange").asBoolean())) {
                appends.add(commit.version());
            }
            for (JsonNode a : commit.actions()) {
                if (a.has("txn")) {
                    String appId = a.get("txn").get("appId").asText();
                    int partition = Integer.parseInt(appId.substring(appId.lastIndexOf('/') + 1));
                    positions.computeIfAbsent(partition, p -> new TreeMap<>())
                            .put(a.get("txn").get("version").asLong(), commit.version());
                }
            }
        }
        assertNotNull(schemaChange, "no schema change commit in the log");
        assertTrue(appends.size() >= 5, "appends: " + appends);
        assertFalse(appends.contains(compaction.version()), "the compaction is no append");
        assertTrue(appends.stream().anyMatch(v -> v < compaction.version())
                && appends.stream().anyMatch(v -> v > compaction.version()), "appends " + appends + " around "
                + compaction.version());

        List<JsonNode> changes = readChangeFeed(table);

        Map<Coordinates, JsonNode> byCoordinates = new TreeMap<>();
        Set<Long> versions = new TreeSet<>();
        for (JsonNode change : changes) {
            Coordinates at = new Coordinates(change.get("kafka_topic").asText(), change.get("kafka_partition").asInt(),
                    change.get("kafka_offset").asLong());
            assertEquals(null, byCoordinates.put(at, change), "read twice: " + at);
            assertEquals("insert", change.get("_change_type").asText(), change.toString());
            long version = change.get("_commit_version").asLong();
            versions.add(version);
            // the commit whose txn position is the first beyond this offset is the one that wrote it
            Map.Entry<Long, Long> covering = positions.get(at.partition()).higherEntry(at.offset());
            assertNotNull(covering, "no commit holds a position beyond " + at);
            assertEquals(covering.getValue(), version, "commit version of " + at);
            ExpectedRow want = expected.get(at);
            assertNotNull(want, "a change for an event never produced: " + change);
            assertEquals(want.deviceId(), change.get("device_id").asText());
            assertEquals(want.linkquality(), change.get("linkquality").asInt());
            if (widened.contains(at)) {
                assertEquals(want.linkquality(), change.path("signal").asInt(-1), "signal of " + at);
            } else {
                assertFalse(change.has("signal") && !change.get("signal").isNull(), "signal of an older row: " + change);
            }
        }
        assertEquals(expected.keySet(), byCoordinates.keySet());
        assertEquals(new TreeSet<>(appends), versions, "versions with changes");
        assertFalse(versions.contains(compaction.version()));
        assertFalse(versions.contains(schemaChange));
    }

    /** Spark's readChangeFeed from version 0 (in the Spark of {@link SparkTables}). */
    private static List<JsonNode> readChangeFeed(Path table) throws IOException, InterruptedException {
        SparkTables.Read feed = SparkTables.read(Map.of("feed", "cdf:0:-:-:" + table.toAbsolutePath())).get("feed");
        assertNull(feed.error(), () -> "Spark failed: " + feed.error());
        return feed.rows();
    }
}
