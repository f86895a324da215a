package io.deltasink.proc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.util.clusters.EmbeddedKafkaCluster;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.deltasink.testing.Producers;
import io.deltasink.testing.S3ProxyServer;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.TableLocation;

/**
 * Exactly-once across hard crashes: a Connect worker in its own JVM is SIGKILLed several times
 * while a producer keeps writing, each time at a different point of the write cycle, and
 * restarted with the same group and internal topics. At the end the table must hold every
 * record of the topic exactly once, and its txn versions must equal the topic's end offsets.
 *
 * <p>The kill moments: just after a commit landed (typically before the worker committed the
 * consumer offsets, so only the table knows where to resume), in the middle of a batch (Parquet
 * files written, no commit), right after a restarted task reached RUNNING (during assignment and
 * the first batch), mid-batch followed by 8 s of downtime, and while the restarted task works
 * through the backlog that built up meanwhile.
 *
 * <p>Once with the table on local disk (the local preset), once on S3 (the MinIO preset pointed
 * at an S3Proxy server; the kill moments are found by watching the server's backend folder).
 */
class WorkerKillIT {
    private static final String TOPIC = "sensor-events";
    private static final int PARTITIONS = 3;
    private static final int EVENTS = 12_000;
    private static final int EVENTS_PER_SECOND = 150;
    private static final Duration CATCH_UP = Duration.ofSeconds(90);

    @TempDir
    Path tmp;

    private final List<String> killLog = new ArrayList<>();
    /** Kills after which the table held offsets the consumer group did not: resuming relied on the table. */
    private int tableAheadOfGroup;

    /** Where the table is written. */
    enum Storage {
        LOCAL, S3
    }

    @ParameterizedTest(name = "table on {0}")
    @EnumSource(Storage.class)
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void sigkilledWorkerNeitherLosesNorDuplicatesRecords(Storage storage) throws Exception {
        EmbeddedKafkaCluster kafka = new EmbeddedKafkaCluster(1, new Properties());
        kafka.start();
        S3ProxyServer s3 = storage == Storage.S3 ? new S3ProxyServer(tmp.resolve("s3"), "sensor-data").start() : null;
        Preset preset;
        TableLocation table;
        if (s3 != null) {
            // the MinIO preset as shipped (its table path too), pointed at the test server
            preset = Preset.sensorEventsMinio().with(s3.connectorSettings());
            table = TableLocation.onS3(s3, "delta/sensor_events");
            assertEquals(table.uri(), preset.config().get("table.location"));
        } else {
            table = TableLocation.local(tmp.resolve("sensor_events"));
            preset = Preset.sensorEventsLocal().with("table.location", table.uri());
        }
        preset = preset.withExtraColumns("kafka_topic:string=@topic", "kafka_partition:int=@partition",
                        "kafka_offset:long=@offset");
        String connector = preset.name();
        WorkerProcess worker = new WorkerProcess(kafka.bootstrapServers(), "proc-kill", tmp.resolve("worker"), "512m");
        try (Admin admin = kafka.createAdminClient()) {
            kafka.createTopic(TOPIC, PARTITIONS);
            worker.start();
            worker.putConnectorConfig(connector, preset.config());
            worker.awaitTasksRunning(connector, 1, Duration.ofSeconds(60));

            int events;
            try (PacedProducer producer = new PacedProducer(kafka.bootstrapServers(), TOPIC, PARTITIONS,
                    EVENTS_PER_SECOND)) {
                // 1: right after a commit landed, before the worker's own offset commit
                long v = awaitVersionAbove(table, 2, worker);
                killAndRestart("just after commit of version " + v, worker, admin, table, connector);

                // 2: mid-batch: rows in open Parquet files, half a flush interval after a commit
                v = awaitVersionAbove(table, table.latestVersion() + 2, worker);
                Thread.sleep(500);
                killAndRestart("mid-batch, 500 ms after version " + v, worker, admin, table, connector);

                // 3: during assignment / the first batch of a restarted task
                worker.awaitTasksRunning(connector, 1, Duration.ofSeconds(60));
                killAndRestart("right after the restarted task reached RUNNING", worker, admin, table, connector);

                // 4: mid-batch again, at another phase of the flush interval; then 8 s down, so the
                //    producer builds a backlog
                v = awaitVersionAbove(table, table.latestVersion() + 2, worker);
                Thread.sleep(250);
                killAndRestart("mid-batch, 250 ms after version " + v + "; restarted after 8 s down", worker, admin,
                        table, connector, Duration.ofSeconds(8));

                // 5: while the restarted task works through that backlog
                v = awaitVersionAbove(table, table.latestVersion(), worker);
                Thread.sleep(300);
                killAndRestart("catching up the backlog, 300 ms after version " + v, worker, admin, table, connector);

                events = producer.finish(EVENTS, Duration.ofMinutes(3));
            }

            Map<TopicPartition, Long> ends = TableProgress.endOffsets(admin, TableProgress.partitions(TOPIC, PARTITIONS));
            assertEquals(events, ends.values().stream().mapToLong(Long::longValue).sum(), "records in the topic");
            Map<TopicPartition, Optional<Long>> txn = TableProgress.awaitCaughtUp(table, connector, ends, CATCH_UP,
                    () -> "kills: " + killLog + "\nworker log:\n" + worker.logTail(60));
            long version = table.version();
            System.out.println("[WorkerKillIT] table on " + storage + ", kills:\n  " + String.join("\n  ", killLog)
                    + "\n[WorkerKillIT] caught up at table version " + version + ", txn " + txn + ", end offsets " + ends
                    + "\n[WorkerKillIT] kills after which the table was ahead of the consumer group: " + tableAheadOfGroup
                    + "\n[WorkerKillIT] Parquet files on disk " + parquetFiles(table) + ", referenced by the log "
                    + referencedFiles(table, version) + " (the rest: orphans of killed batches, for vacuum)");

            verifyExactlyOnce(table, connector, ends, events);
        } finally {
            worker.kill();
            kafka.stop();
            table.close();
            if (s3 != null) {
                s3.close();
            }
        }
    }

    /**
     * The connector's own compaction (every 2 s and every 5 commits, no minimum age, so it races the
     * streaming commits all along) while the worker is SIGKILLed twice: every record once, and once
     * writing stops, each table partition down to fewer files than a compaction takes on.
     */
    @org.junit.jupiter.api.Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void autoCompactionUnderKillsKeepsEveryRecordOnceAndFilesBounded() throws Exception {
        int events;
        EmbeddedKafkaCluster kafka = new EmbeddedKafkaCluster(1, new Properties());
        kafka.start();
        TableLocation table = TableLocation.local(tmp.resolve("sensor_events"));
        Preset preset = Preset.sensorEventsLocal().with("table.location", table.uri())
                .with(Map.of("compaction.interval.ms", "2000", "compaction.interval.commits", "5",
                        "compaction.min.age.ms", "0"))
                .withExtraColumns("kafka_topic:string=@topic", "kafka_partition:int=@partition",
                        "kafka_offset:long=@offset");
        String connector = preset.name();
        WorkerProcess worker = new WorkerProcess(kafka.bootstrapServers(), "proc-compact", tmp.resolve("worker"), "256m");
        try (Admin admin = kafka.createAdminClient()) {
            kafka.createTopic(TOPIC, PARTITIONS);
            worker.start();
            worker.putConnectorConfig(connector, preset.config());
            worker.awaitTasksRunning(connector, 1, Duration.ofSeconds(60));
            try (PacedProducer producer = new PacedProducer(kafka.bootstrapServers(), TOPIC, PARTITIONS, 200)) {
                awaitCompaction(table, worker);
                long v = awaitVersionAbove(table, table.latestVersion() + 1, worker);
                killAndRestart("after a compaction, just after version " + v, worker, admin, table, connector);
                awaitCompaction(table, worker);
                v = awaitVersionAbove(table, table.latestVersion() + 1, worker);
                Thread.sleep(400);
                killAndRestart("after another compaction, mid-batch 400 ms after version " + v, worker, admin, table,
                        connector);
                events = producer.finish(6_000, Duration.ofMinutes(2));
            }
            Map<TopicPartition, Long> ends = TableProgress.endOffsets(admin, TableProgress.partitions(TOPIC, PARTITIONS));
            TableProgress.awaitCaughtUp(table, connector, ends, CATCH_UP,
                    () -> "kills: " + killLog + "\nworker log:\n" + worker.logTail(60));
            int bound = io.deltasink.maintenance.CompactionOptions.DEFAULT_MIN_FILES;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            Map<String, Integer> files = liveFilesPerPartition(table);
            while (files.values().stream().anyMatch(n -> n >= bound)) {
                if (System.nanoTime() > deadline || !worker.isAlive()) {
                    throw new AssertionError("files per table partition " + files + " not below " + bound
                            + "; worker log:\n" + worker.logTail(60));
                }
                Thread.sleep(200);
                files = liveFilesPerPartition(table);
            }
            long compactions = compactionVersions(table);
            System.out.println("[WorkerKillIT] auto-compaction: kills:\n  " + String.join("\n  ", killLog)
                    + "\n[WorkerKillIT] table version " + table.version() + ", compaction commits " + compactions
                    + ", files per table partition at the end " + files + ", Parquet files on disk "
                    + parquetFiles(table));
            verifyExactlyOnce(table, connector, ends, events);
        } finally {
            worker.kill();
            kafka.stop();
            table.close();
        }
    }

    /** Waits for the next compaction commit in the log. */
    private static void awaitCompaction(TableLocation table, WorkerProcess worker) throws InterruptedException {
        long seen = compactionVersions(table);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (compactionVersions(table) <= seen) {
            if (System.nanoTime() > deadline || !worker.isAlive()) {
                throw new AssertionError("no compaction commit; worker log:\n" + worker.logTail(60));
            }
            Thread.sleep(100);
        }
    }

    /** Commits whose removes are all dataChange=false with adds: the compactions. */
    private static long compactionVersions(TableLocation table) {
        long count = 0;
        for (long v = 0; v <= table.latestVersion(); v++) {
            List<com.fasterxml.jackson.databind.JsonNode> actions = table.actions(v);
            boolean removes = actions.stream().anyMatch(a -> a.has("remove"));
            boolean allRewrites = actions.stream().filter(a -> a.has("remove") || a.has("add"))
                    .allMatch(a -> !(a.has("add") ? a.get("add") : a.get("remove")).path("dataChange").asBoolean(true));
            count += removes && allRewrites ? 1 : 0;
        }
        return count;
    }

    /** Data files of the latest version per table partition, from the log's add and remove actions. */
    private static Map<String, Integer> liveFilesPerPartition(TableLocation table) {
        Map<String, String> live = new HashMap<>();
        for (long v = 0; v <= table.latestVersion(); v++) {
            for (var action : table.actions(v)) {
                if (action.has("add")) {
                    live.put(action.get("add").get("path").asText(), action.get("add").get("partitionValues").toString());
                } else if (action.has("remove")) {
                    live.remove(action.get("remove").get("path").asText());
                }
            }
        }
        Map<String, Integer> out = new TreeMap<>();
        live.values().forEach(p -> out.merge(p, 1, Integer::sum));
        return out;
    }

    private void verifyExactlyOnce(TableLocation table, String connector, Map<TopicPartition, Long> ends, int events) {
        List<Map<String, Object>> rows = table.rows();

        Set<String> seen = new HashSet<>();
        Map<Integer, Long> rowsPerPartition = new TreeMap<>();
        List<String> duplicates = new ArrayList<>();
        List<String> mismatches = new ArrayList<>();
        for (Map<String, Object> row : rows) {
            String topic = (String) row.get("kafka_topic");
            int partition = ((Number) row.get("kafka_partition")).intValue();
            long offset = ((Number) row.get("kafka_offset")).longValue();
            assertEquals(TOPIC, topic);
            assertTrue(offset >= 0 && offset < ends.get(new TopicPartition(topic, partition)),
                    "offset " + offset + " of partition " + partition + " is beyond the topic's end");
            if (!seen.add(topic + "/" + partition + "@" + offset) && duplicates.size() < 20) {
                duplicates.add(topic + "/" + partition + "@" + offset);
            }
            rowsPerPartition.merge(partition, 1L, Long::sum);
            // the producer sent event seq to partition seq % 3, in order: the row must hold that event
            SensorEvents.Event sent = SensorEvents.event(offset * PARTITIONS + partition);
            if (!sent.deviceId().equals(row.get("device_id")) || !sent.ingestedAt().equals(row.get("event_time"))) {
                mismatches.add(topic + "/" + partition + "@" + offset + " holds " + row.get("device_id") + " "
                        + row.get("event_time") + ", expected " + sent.deviceId() + " " + sent.ingestedAt());
            }
        }
        assertTrue(duplicates.isEmpty(), (rows.size() - seen.size()) + " rows are records written again, e.g. "
                + duplicates);
        assertTrue(mismatches.isEmpty(), mismatches.size() + " rows do not hold their record's values, e.g. "
                + mismatches.subList(0, Math.min(5, mismatches.size())));
        // unique and all below the end offset, and as many as the end offset: every offset once
        for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            assertEquals(e.getValue(), rowsPerPartition.getOrDefault(e.getKey().partition(), 0L),
                    "rows of partition " + e.getKey());
            assertEquals(Optional.of(e.getValue()), table.txnVersion(TableProgress.appId(connector, e.getKey())),
                    "txn version of " + e.getKey());
        }
        assertEquals(events, rows.size(), "rows in the table (one per record)");
    }

    /** Parquet files in the table's folder (for S3: the objects in the server's backend). */
    private static long parquetFiles(TableLocation table) throws IOException {
        try (Stream<Path> files = Files.walk(table.files())) {
            return files.filter(p -> p.toString().endsWith(".parquet")).count();
        }
    }

    private static long referencedFiles(TableLocation table, long version) {
        long files = 0;
        for (long v = 0; v <= version; v++) {
            for (var action : table.actions(v)) {
                files += action.has("add") ? 1 : action.has("remove") ? -1 : 0;
            }
        }
        return files;
    }

    /** Waits until the table's version is above {@code version}, polling fast so a kill lands right after. */
    private static long awaitVersionAbove(TableLocation table, long version, WorkerProcess worker)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
            long latest = table.latestVersion();
            if (latest > version) {
                return latest;
            }
            if (System.nanoTime() > deadline || !worker.isAlive()) {
                throw new AssertionError("Table stuck at version " + latest + " (waiting for > " + version
                        + "); worker log:\n" + worker.logTail(60));
            }
            Thread.sleep(10);
        }
    }

    private void killAndRestart(String moment, WorkerProcess worker, Admin admin, TableLocation table,
                                String connector) throws Exception {
        killAndRestart(moment, worker, admin, table, connector, Duration.ZERO);
    }

    private void killAndRestart(String moment, WorkerProcess worker, Admin admin, TableLocation table,
                                String connector, Duration downtime) throws Exception {
        long pid = worker.pid();
        worker.kill();
        long version = table.latestVersion();
        Map<TopicPartition, Optional<Long>> txn = TableProgress.txnVersions(table, connector,
                TableProgress.partitions(TOPIC, PARTITIONS));
        Map<TopicPartition, Long> group = groupOffsets(admin, "connect-" + connector);
        boolean ahead = txn.entrySet().stream().anyMatch(e -> e.getValue().isPresent()
                && e.getValue().get() > group.getOrDefault(e.getKey(), -1L));
        if (ahead) {
            tableAheadOfGroup++;
        }
        killLog.add("kill " + (killLog.size() + 1) + " (pid " + pid + ") " + moment + ": table version " + version
                + ", txn " + txn + ", consumer group " + group + (ahead ? "  <- table ahead of the group" : ""));
        Thread.sleep(downtime.toMillis());
        worker.start();
    }

    private static Map<TopicPartition, Long> groupOffsets(Admin admin, String group)
            throws InterruptedException, ExecutionException {
        Map<TopicPartition, Long> out = new TreeMap<>((a, b) -> Integer.compare(a.partition(), b.partition()));
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get();
        offsets.forEach((tp, om) -> {
            if (om != null) {
                out.put(tp, om.offset());
            }
        });
        return out;
    }

    /**
     * Produces sensor events round-robin over the partitions at a steady rate, in its own thread, until
     * {@link #finish} says how many: the kill points of a test wait for new commits, so the events keep
     * coming however slowly the worker restarts on a loaded machine.
     */
    private static final class PacedProducer implements AutoCloseable {
        private final KafkaProducer<String, String> producer;
        private final Thread thread;
        private volatile Throwable failure;
        private volatile boolean stopped;
        /** How many events to send; unbounded until {@link #finish}. */
        private volatile long limit = Long.MAX_VALUE;
        /** Events handed to the producer so far (written by its thread only). */
        private volatile int sent;

        PacedProducer(String bootstrap, String topic, int partitions, int perSecond) {
            producer = new KafkaProducer<>(Producers.settings(bootstrap), new StringSerializer(), new StringSerializer());
            thread = new Thread(() -> {
                try {
                    int chunk = Math.max(1, perSecond / 10);
                    while (sent < limit && !stopped) {
                        long started = System.nanoTime();
                        for (int i = 0; i < chunk && sent < limit; i++) {
                            int seq = sent;
                            SensorEvents.Event e = SensorEvents.event(seq);
                            producer.send(new ProducerRecord<>(topic, seq % partitions, e.deviceId(), e.json()),
                                    (md, ex) -> {
                                        if (ex != null) {
                                            failure = ex;
                                        }
                                    });
                            sent = seq + 1;
                        }
                        long wait = 100 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                        if (wait > 0) {
                            Thread.sleep(wait);
                        }
                    }
                    producer.flush();
                } catch (Throwable t) {
                    failure = t;
                }
            }, "paced-producer");
            thread.setDaemon(true);
            thread.start();
        }

        /**
         * Lets the producer stop once it has sent at least {@code atLeast} events (at once if it has),
         * waits until they are acknowledged and returns how many it sent.
         */
        int finish(int atLeast, Duration timeout) throws InterruptedException {
            limit = Math.max(atLeast, sent);
            thread.join(timeout.toMillis());
            if (thread.isAlive()) {
                throw new AssertionError("Producer not done after " + timeout + ": " + sent + " events sent");
            }
            if (failure != null) {
                throw new AssertionError("Producer failed", failure);
            }
            return sent;
        }

        @Override
        public void close() throws InterruptedException {
            stopped = true;
            thread.join(10_000);
            producer.close(Duration.ofSeconds(10));
        }
    }
}
