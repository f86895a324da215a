package io.deltasink.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.DeltaSinkConnector;
import io.deltasink.DeltaSinkTask;
import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.metrics.PluginMaintenanceMetrics;
import io.deltasink.storage.StorageSettings;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.LogCapture;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.S3ProxyServer;
import io.deltasink.testing.SinkRecords;

/**
 * Compaction and vacuum inside the connector, through real tasks on real tables: only task 0 keeps the
 * table, compaction runs beside streaming commits without losing or doubling a row, its vacuum
 * deletes only aged orphans, a failing compaction is counted and never stops ingestion, stop()
 * returns in bounded time during a run that hangs, and nothing runs by default.
 */
class AutoMaintenanceTest {
    private static final String TOPIC = "events";
    private static final Duration EVENT_WAIT = Duration.ofSeconds(60);

    @TempDir
    Path tmp;

    private final List<DeltaSinkTask> tasks = new ArrayList<>();

    @AfterEach
    void stopTasks() {
        tasks.forEach(DeltaSinkTask::stop);
    }

    private Map<String, String> props(Map<String, String> extra) {
        Map<String, String> p = new HashMap<>();
        p.put(DeltaSinkConfig.CONNECTOR_NAME, "upkeep");
        p.put("topics", TOPIC);
        p.put(DeltaSinkConfig.TABLE_LOCATION, tmp.resolve("table").toString());
        p.put(DeltaSinkConfig.COLUMNS, "id:long=id, day:string=day, kafka_partition:int=@partition, "
                + "kafka_offset:long=@offset");
        p.put(DeltaSinkConfig.PARTITION_COLUMNS, "day");
        p.put(DeltaSinkConfig.COMMIT_RETRY_BACKOFF_MS, "1");
        p.putAll(extra);
        return p;
    }

    /** Task {@code index} of the connector's task configs, started and assigned {@code partitions}. */
    private DeltaSinkTask task(Map<String, String> props, int tasksMax, int index, RecordingContext context,
                               int... partitions) {
        DeltaSinkConnector connector = new DeltaSinkConnector();
        connector.start(props);
        DeltaSinkTask task = new DeltaSinkTask();
        task.initialize(context);
        task.start(connector.taskConfigs(tasksMax).get(index));
        tasks.add(task);
        List<TopicPartition> assigned = new ArrayList<>();
        for (int p : partitions) {
            assigned.add(new TopicPartition(TOPIC, p));
        }
        context.assignment.addAll(assigned);
        task.open(assigned);
        return task;
    }

    /** Puts {@code count} records of partition 0 from {@code offset} on, two days, and commits them. */
    private static void batch(DeltaSinkTask task, long offset, int count) {
        List<SinkRecord> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long o = offset + i;
            records.add(SinkRecords.of(TOPIC, 0, o, Map.of("id", o, "day", o % 2 == 0 ? "2026-01-01" : "2026-01-02")));
        }
        task.put(records);
        task.preCommit(Map.of(new TopicPartition(TOPIC, 0),
                new org.apache.kafka.clients.consumer.OffsetAndMetadata(offset + count)));
    }

    private static List<String> maintenanceThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith("delta-maintenance-")).toList();
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + EVENT_WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("never happened: " + what);
            }
            Thread.sleep(20);
        }
    }

    /** Data files the latest version references, per table partition, from the log's add and remove actions. */
    private static Map<String, Integer> filesPerPartition(String table) {
        Map<String, JsonNode> live = new HashMap<>();
        for (long v = 0; v <= DeltaTableReader.version(table); v++) {
            for (JsonNode action : DeltaTableReader.actions(table, v)) {
                if (action.has("add")) {
                    live.put(action.get("add").get("path").asText(), action.get("add"));
                } else if (action.has("remove")) {
                    live.remove(action.get("remove").get("path").asText());
                }
            }
        }
        Map<String, Integer> out = new TreeMap<>();
        live.values().forEach(add -> out.merge(add.get("partitionValues").toString(), 1, Integer::sum));
        return out;
    }

    /** Each (partition, offset) of [0, count) exactly once, read back by the independent reader. */
    private static void assertEveryOffsetOnce(String table, long count) {
        List<Map<String, Object>> rows = DeltaTableReader.readAll(table);
        Set<Long> offsets = new HashSet<>();
        for (Map<String, Object> row : rows) {
            long offset = ((Number) row.get("kafka_offset")).longValue();
            assertTrue(offsets.add(offset), "offset " + offset + " twice");
            assertEquals(offset, ((Number) row.get("id")).longValue(), "row of offset " + offset);
        }
        assertEquals(count, rows.size(), "rows");
        assertEquals(count, offsets.size(), "distinct offsets");
    }

    @Test
    void offByDefault() {
        DeltaSinkConfig config = new DeltaSinkConfig(props(Map.of(DeltaSinkConfig.TASK_INDEX, "0")));
        assertFalse(config.compactionEnabled());
        assertFalse(config.vacuumEnabled());
        assertFalse(AutoMaintenance.elected(config), "task 0 without compaction or vacuum keeps nothing");
        RecordingContext context = new RecordingContext(false);
        DeltaSinkTask task = task(props(Map.of()), 1, 0, context, 0);
        batch(task, 0, 10);
        assertEquals(List.of(), maintenanceThreads());
        assertTrue(context.metrics.metrics().keySet().stream().noneMatch(n -> n.name().startsWith("delta-compaction")),
                "maintenance metrics registered although off");
    }

    @Test
    void onlyTaskZeroKeepsTheTable() {
        Map<String, String> on = props(Map.of(DeltaSinkConfig.COMPACTION_ENABLED, "true"));
        List<RecordingContext> contexts = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            RecordingContext context = new RecordingContext(false);
            contexts.add(context);
            task(on, 3, i, context, i);
        }
        assertEquals(List.of("delta-maintenance-upkeep-0"), maintenanceThreads());
        for (int i = 0; i < 3; i++) {
            boolean registered = contexts.get(i).metrics.metrics().keySet().stream()
                    .anyMatch(n -> n.name().equals("delta-compaction-total"));
            assertEquals(i == 0, registered, "maintenance metrics of task " + i);
        }
        tasks.get(0).stop();
        tasks.remove(0);
        assertEquals(List.of(), maintenanceThreads(), "stop() ends the thread when no run is going on");
    }

    @Test
    void compactsBesideStreamingCommitsWithoutLosingOrDoublingARow() throws Exception {
        // every 4 commits and every 200 ms: compactions race the task's own commits
        RecordingContext context = new RecordingContext(false);
        DeltaSinkTask task = task(props(Map.of(DeltaSinkConfig.COMPACTION_ENABLED, "true",
                DeltaSinkConfig.COMPACTION_INTERVAL_COMMITS, "4", DeltaSinkConfig.COMPACTION_INTERVAL_MS, "200",
                DeltaSinkConfig.COMPACTION_MIN_AGE_MS, "0",
                DeltaSinkConfig.COMPACTION_TARGET_FILE_BYTES, Long.toString(1 << 20))), 1, 0, context, 0);
        String table = tmp.resolve("table").toString();
        int commits = 40;
        for (int c = 0; c < commits; c++) {
            batch(task, c * 25L, 25);
        }
        assertEquals(Map.of("{\"day\":\"2026-01-01\"}", commits, "{\"day\":\"2026-01-02\"}", commits),
                withoutCompaction(table, commits), "each commit wrote one file per day");
        // after the last commit, a run by the clock compacts what is left
        await("both days compacted to at most 2 files, " + filesPerPartition(table),
                () -> filesPerPartition(table).values().stream().allMatch(n -> n <= 2));
        assertTrue(context.metric("delta-compaction-total") >= 1, "compactions counted");
        assertTrue(context.metric("delta-compaction-bytes-rewritten-total") > 0, "bytes rewritten counted");
        // a run may fail (counted, retried when due): on a local table a reader listing the log while
        // a commit's checkpoint is being written can see the checkpoint half written
        assertEveryOffsetOnce(table, commits * 25L);
        assertEquals(java.util.Optional.of(commits * 25L), DeltaTableReader.txnVersion(table, "upkeep/events/0"),
                "the txn version is the streaming commits' own");
        await("the file count published", () -> context.metric("delta-table-files") <= 4);
    }

    /**
     * vacuum.enabled with vacuum.retention.ms of 1 hour (the floor, under the table's 7 days): the
     * elected task's run deletes an orphan last written 2 hours ago, keeps one of 30 minutes and
     * every referenced file (aged like the orphan, so only the snapshot protects them), every row
     * stays, and the deletion is counted.
     */
    @Test
    void theElectedTasksVacuumDeletesAnAgedOrphanAndKeepsEveryReferencedFileAndRow() throws Exception {
        DeltaSinkTask writer = task(props(Map.of()), 1, 0, new RecordingContext(false), 0);
        for (int c = 0; c < 4; c++) {
            batch(writer, c * 10L, 10);
        }
        writer.stop();
        tasks.remove(writer);
        Path root = tmp.resolve("table");
        String table = root.toString();
        List<Path> referenced = dataFiles(root);
        assertEquals(8, referenced.size(), "4 commits of one file per day: " + referenced);
        Path folder = referenced.get(0).getParent();
        Path old = Files.write(folder.resolve("part-orphan-of-a-killed-batch.parquet"), new byte[] {1, 2, 3});
        Path young = Files.write(folder.resolve("part-being-written.parquet"), new byte[] {4, 5});
        for (Path p : referenced) {
            age(p, Duration.ofHours(2));
        }
        age(old, Duration.ofHours(2));
        age(young, Duration.ofMinutes(30));

        RecordingContext context = new RecordingContext(false);
        task(props(Map.of(DeltaSinkConfig.VACUUM_ENABLED, "true", DeltaSinkConfig.VACUUM_INTERVAL_MS, "1000",
                DeltaSinkConfig.VACUUM_RETENTION_MS, Long.toString(Duration.ofHours(1).toMillis()))), 1, 0, context, 0);
        await("a vacuum deleted a file", () -> context.metric("delta-vacuum-files-deleted-total") >= 1);

        List<Path> left = dataFiles(root);
        assertFalse(left.contains(old), "the orphan older than the retention is deleted: " + left);
        assertTrue(left.contains(young), "the orphan younger than the retention stays: " + left);
        assertTrue(left.containsAll(referenced), "every referenced file stays: " + left);
        assertEquals(referenced.size() + 1, left.size(), left.toString());
        assertEveryOffsetOnce(table, 40);
        assertEquals(1.0, context.metric("delta-vacuum-files-deleted-total"), "one file vacuumed");
        assertEquals(0.0, context.metric("delta-maintenance-failure-total"), "no run failed");
    }

    private static List<Path> dataFiles(Path table) throws IOException {
        try (var files = Files.walk(table)) {
            return files.filter(p -> p.toString().endsWith(".parquet") && !p.toString().contains("_delta_log"))
                    .sorted().toList();
        }
    }

    private static void age(Path file, Duration by) throws IOException {
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(by)));
    }

    /** Files each table partition got from the streaming commits (add actions of STREAMING UPDATE commits). */
    private static Map<String, Integer> withoutCompaction(String table, int commits) {
        Map<String, Integer> out = new TreeMap<>();
        DeltaTableReader.commitOperations(table).forEach((version, operation) -> {
            if ("STREAMING UPDATE".equals(operation)) {
                DeltaTableReader.actions(table, version, "add").forEach(
                        add -> out.merge(add.get("partitionValues").toString(), 1, Integer::sum));
            }
        });
        return out;
    }

    @Test
    void aFailingCompactionIsCountedAndLoggedOnceWhileIngestionGoesOn() throws Exception {
        RecordingContext context = new RecordingContext(false);
        Map<String, String> on = props(Map.of(DeltaSinkConfig.COMPACTION_ENABLED, "true",
                DeltaSinkConfig.COMPACTION_INTERVAL_COMMITS, "1", DeltaSinkConfig.COMPACTION_INTERVAL_MS, "0",
                DeltaSinkConfig.COMPACTION_MIN_AGE_MS, "0"));
        String table = tmp.resolve("table").toString();
        try (LogCapture logs = new LogCapture()) {
            DeltaSinkTask task = task(on, 1, 0, context, 0);
            for (int c = 0; c < 4; c++) {
                batch(task, c * 10L, 10);
            }
            // the table's files vanish from storage: every compaction that reads them fails
            deleteDataFiles(tmp.resolve("table"));
            for (int c = 4; c < 10; c++) {
                batch(task, c * 10L, 10);
            }
            await("a failure counted", () -> context.metric("delta-maintenance-failure-total") >= 1);
            // ingestion went on: every batch's commit landed, and the task never asked the worker to wait
            assertEquals(java.util.Optional.of(100L), DeltaTableReader.txnVersion(table, "upkeep/events/0"));
            batch(task, 100, 10);
            assertEquals(java.util.Optional.of(110L), DeltaTableReader.txnVersion(table, "upkeep/events/0"));
            assertEquals(List.of(), context.timeouts, "the task asked the worker to wait");

            task.stop(); // no run in flight after this: the counts are final
            tasks.remove(task);
            long warnings = logs.lines().stream().filter(l -> l.contains("Table upkeep of") && l.contains("failed ("))
                    .count();
            assertEquals((long) context.metric("delta-maintenance-failure-total"), warnings, "one WARN per failed run");
        }
    }

    private static void deleteDataFiles(Path table) throws IOException {
        try (var files = Files.walk(table)) {
            for (Path p : files.filter(p -> p.toString().endsWith(".parquet")).toList()) {
                Files.delete(p);
            }
        }
    }

    @Test
    void stopDuringARunThatHangsReturnsInBoundedTime() throws Exception {
        // the table on S3, then maintenance pointed at an endpoint that accepts connections and never answers
        try (S3ProxyServer s3 = new S3ProxyServer(tmp.resolve("s3"), "bucket").start();
             BlackHole hole = new BlackHole()) {
            Map<String, String> settings = new HashMap<>(props(s3.connectorSettings()));
            settings.put(DeltaSinkConfig.TABLE_LOCATION, "s3a://bucket/t");
            RecordingContext context = new RecordingContext(false);
            DeltaSinkTask writer = task(settings, 1, 0, context, 0);
            batch(writer, 0, 10);
            long version = DeltaTableReader.version("s3a://bucket/t", s3.hadoopConf());

            settings.put(DeltaSinkConfig.S3_ENDPOINT, hole.endpoint());
            settings.put(DeltaSinkConfig.COMPACTION_ENABLED, "true");
            settings.put(DeltaSinkConfig.COMPACTION_INTERVAL_MS, "1");
            settings.put("delta.hadoop.fs.s3a.connection.timeout", "20000");
            settings.put("delta.hadoop.fs.s3a.attempts.maximum", "1");
            settings.put("delta.hadoop.fs.s3a.retry.limit", "1");
            settings.put(DeltaSinkConfig.TASK_INDEX, "0");
            DeltaSinkConfig config = new DeltaSinkConfig(settings);
            try (StorageSettings storage = StorageSettings.from(config)) {
                AutoMaintenance maintenance = AutoMaintenance.start(config, storage,
                        PluginMaintenanceMetrics.of(new RecordingContext(false)), Clock.systemUTC());
                await("the run reached storage", () -> hole.connections() > 0);
                assertTimeoutPreemptively(AutoMaintenance.STOP_WAIT.plusSeconds(2), maintenance::close,
                        "close() waits at most its bound for a run that hangs");
            }
            assertEquals(version, DeltaTableReader.version("s3a://bucket/t", s3.hadoopConf()),
                    "nothing committed by the stopped run");
        }
    }

    /** A TCP endpoint that accepts connections and never answers: storage that hangs. */
    private static final class BlackHole implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final List<Socket> held = new CopyOnWriteArrayList<>();
        private final Thread acceptor;

        BlackHole() throws IOException {
            acceptor = new Thread(() -> {
                try {
                    while (true) {
                        held.add(server.accept());
                    }
                } catch (IOException e) {
                    // closed
                }
            }, "black-hole");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        String endpoint() {
            return "http://127.0.0.1:" + server.getLocalPort();
        }

        int connections() {
            return held.size();
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket s : held) {
                s.close();
            }
        }
    }
}
