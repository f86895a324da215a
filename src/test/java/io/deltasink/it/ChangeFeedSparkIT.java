package io.deltasink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
import java.util.concurrent.TimeUnit;
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

/**
 * A table with the change data feed on, written by the connector on a real worker over several
 * commits, compacted, and widened by a schema change through {@code PUT /connectors/<name>/config},
 * then read by Spark's {@code readChangeFeed} (Delta Lake 4.4 on Spark 4.2, in a JVM of its own:
 * src/test/spark) as the seeds' CDF to MERGE pipeline reads it: each produced event once, as an
 * insert, at the version of the commit whose txn positions cover its offset; nothing for the
 * compaction or the schema change. Runs in failsafe after the Spark class path is resolved.
 */
class ChangeFeedSparkIT {
    private static final int BATCH = 100;
    private static final ObjectMapper JSON = new ObjectMapper();

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

        List<JsonNode> changes = readChangeFeed(table, dir);

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

    /** Spark's readChangeFeed from version 0, in a JVM on the class path of src/test/spark/pom.xml. */
    private static List<JsonNode> readChangeFeed(Path table, Path dir) throws IOException, InterruptedException {
        String classpathFile = System.getProperty("spark.reader.classpath");
        assertNotNull(classpathFile, "system property spark.reader.classpath is not set: run this test through "
                + "failsafe (mvn verify), which resolves Spark's class path first");
        String classpath = Files.readString(Path.of(classpathFile)).trim();
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx1g");
        command.addAll(SPARK_JAVA_OPTIONS);
        command.add("-cp");
        command.add(classpath);
        command.add(Path.of("src", "test", "spark", "ChangeFeedReader.java").toAbsolutePath().toString());
        command.add(table.toAbsolutePath().toString());
        command.add("0");
        Path out = dir.resolve("spark.out");
        Path err = dir.resolve("spark.err");
        Process spark = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!spark.waitFor(5, TimeUnit.MINUTES)) {
            spark.destroyForcibly();
            throw new AssertionError("Spark did not read the change feed in 5 minutes:\n" + tail(err));
        }
        assertEquals(0, spark.exitValue(), () -> "Spark failed:\n" + tail(err));
        List<JsonNode> changes = new ArrayList<>();
        Integer count = null;
        for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
            if (line.startsWith("CHANGE ")) {
                changes.add(JSON.readTree(line.substring("CHANGE ".length())));
            } else if (line.startsWith("CHANGES ")) {
                count = Integer.parseInt(line.substring("CHANGES ".length()));
            }
        }
        assertEquals(count, changes.size(), () -> "the reader's output is incomplete:\n" + tail(err));
        return changes;
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    /** What Spark's launcher adds on Java 17 (its JavaModuleOptions). */
    private static final List<String> SPARK_JAVA_OPTIONS = List.of(
            "-XX:+IgnoreUnrecognizedVMOptions",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.net=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
            "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
            "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
            "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
            "-Djdk.reflect.useDirectMethodHandle=false",
            "-Dio.netty.tryReflectionSetAccessible=true");
}
