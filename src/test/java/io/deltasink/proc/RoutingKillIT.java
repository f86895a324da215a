package io.deltasink.proc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
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
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.TableLocation;

/**
 * Exactly once across hard crashes when records go to several tables: a Connect worker in its own
 * JVM is SIGKILLed twice while a producer writes, (a) with {@code topics.regex} over two topics into
 * a table per topic, (b) with one topic routed by {@code device_type} into three tables (each
 * partition feeds all three). At the end the tables together hold every (topic, partition, offset)
 * exactly once, each row in the table its topic or type names and holding the event sent, read back
 * by Kernel; each table's txn versions reach the end offsets of the partitions that fed it.
 * 1.5 to 2.5 minutes per mode on two busy cores (3,000 events, two kills).
 */
class RoutingKillIT {
    private static final int PARTITIONS = 2;
    private static final int EVENTS = 3_000;
    private static final int EVENTS_PER_SECOND = 250;
    private static final List<String> TOPICS = List.of("routed-a", "routed-b");
    private static final String FIELD_TOPIC = "routed-events";
    private static final List<String> TYPES = List.of("smart_plug", "door_window", "smart_plug_meter");

    @TempDir
    Path tmp;

    private final List<String> killLog = new ArrayList<>();

    enum Mode {
        TOPICS_REGEX, FIELD
    }

    /** Where event {@code seq} is sent, and what it is. */
    private static String topicOf(Mode mode, int seq) {
        return mode == Mode.FIELD ? FIELD_TOPIC : TOPICS.get(seq % 2);
    }

    private static int partitionOf(Mode mode, int seq) {
        return mode == Mode.FIELD ? seq % PARTITIONS : (seq / 2) % PARTITIONS;
    }

    private static SensorEvents.Event eventOf(Mode mode, int seq) {
        return mode == Mode.FIELD ? SensorEvents.event(seq, SensorEvents.DAY, TYPES.get(seq % 3)) : SensorEvents.event(seq);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void killedTwiceWhileRecordsFlowEveryOffsetOnceAcrossTheTables(Mode mode) throws Exception {
        EmbeddedKafkaCluster kafka = new EmbeddedKafkaCluster(1, new Properties());
        kafka.start();
        Path root = tmp.resolve("tables");
        Map<String, TableLocation> tables = new LinkedHashMap<>(); // folder -> table
        Map<String, String> config = new LinkedHashMap<>(Preset.sensorEventsLocal()
                .withExtraColumns("kafka_topic:string=@topic", "kafka_partition:int=@partition",
                        "kafka_offset:long=@offset").config());
        config.put("compaction.enabled", "false");
        config.put("vacuum.enabled", "false");
        List<TopicPartition> partitions = new ArrayList<>();
        if (mode == Mode.FIELD) {
            config.put("topics", FIELD_TOPIC);
            config.put("table.location", root + "/${route}");
            config.put("table.route.field", "device_type");
            TYPES.forEach(t -> tables.put(t, TableLocation.local(root.resolve(t))));
            partitions.addAll(TableProgress.partitions(FIELD_TOPIC, PARTITIONS));
        } else {
            config.remove("topics");
            config.put("topics.regex", "routed-.*");
            config.put("table.location", root + "/${topic}");
            TOPICS.forEach(t -> tables.put(t, TableLocation.local(root.resolve(t))));
            TOPICS.forEach(t -> partitions.addAll(TableProgress.partitions(t, PARTITIONS)));
        }
        String connector = "routed-" + mode.name().toLowerCase();
        WorkerProcess worker = new WorkerProcess(kafka.bootstrapServers(), "proc-route", tmp.resolve("worker"), "512m");
        try (Admin admin = kafka.createAdminClient()) {
            for (String topic : mode == Mode.FIELD ? List.of(FIELD_TOPIC) : TOPICS) {
                kafka.createTopic(topic, PARTITIONS);
            }
            worker.start();
            worker.putConnectorConfig(connector, config);
            worker.awaitTasksRunning(connector, 1, Duration.ofSeconds(60));
            Thread producer = produce(mode, kafka.bootstrapServers());
            try {
                // 1: right after a commit of one of the tables, likely between two tables' commits
                long v = awaitAnyVersionAbove(tables, 2, worker);
                killAndRestart("just after a table reached version " + v, worker);
                // 2: mid-batch, 400 ms after a commit
                v = awaitAnyVersionAbove(tables, v + 2, worker);
                Thread.sleep(400);
                killAndRestart("mid-batch, 400 ms after version " + v, worker);
            } finally {
                producer.join(TimeUnit.MINUTES.toMillis(2));
            }
            Map<TopicPartition, Long> ends = TableProgress.endOffsets(admin, partitions);
            assertEquals(EVENTS, ends.values().stream().mapToLong(Long::longValue).sum(), "records in the topics");
            for (Map.Entry<String, TableLocation> t : tables.entrySet()) {
                Map<TopicPartition, Long> fed = new HashMap<>(ends);
                if (mode == Mode.TOPICS_REGEX) {
                    fed.keySet().removeIf(tp -> !tp.topic().equals(t.getKey()));
                }
                TableProgress.awaitCaughtUp(t.getValue(), connector, fed, Duration.ofSeconds(90),
                        () -> "kills: " + killLog + "\nworker log:\n" + worker.logTail(60));
            }
            System.out.println("[RoutingKillIT] " + mode + ", kills:\n  " + String.join("\n  ", killLog));
            verifyExactlyOnce(mode, tables, ends);
        } finally {
            worker.kill();
            kafka.stop();
            tables.values().forEach(TableLocation::close);
        }
    }

    private void verifyExactlyOnce(Mode mode, Map<String, TableLocation> tables, Map<TopicPartition, Long> ends) {
        // the producer sent the events of each partition in seq order: offset k is the k-th of them
        Map<TopicPartition, List<SensorEvents.Event>> sent = new HashMap<>();
        for (int seq = 0; seq < EVENTS; seq++) {
            sent.computeIfAbsent(new TopicPartition(topicOf(mode, seq), partitionOf(mode, seq)), k -> new ArrayList<>())
                    .add(eventOf(mode, seq));
        }
        Set<String> seen = new HashSet<>();
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, TableLocation> t : tables.entrySet()) {
            for (Map<String, Object> row : t.getValue().rows()) {
                TopicPartition tp = new TopicPartition((String) row.get("kafka_topic"),
                        ((Number) row.get("kafka_partition")).intValue());
                long offset = ((Number) row.get("kafka_offset")).longValue();
                String at = tp + "@" + offset;
                if (!seen.add(at)) {
                    problems.add("duplicate " + at);
                    continue;
                }
                if (offset >= ends.get(tp)) {
                    problems.add(at + " beyond the end");
                    continue;
                }
                SensorEvents.Event e = sent.get(tp).get((int) offset);
                if (!e.deviceId().equals(row.get("device_id")) || !e.ingestedAt().equals(row.get("event_time"))) {
                    problems.add(at + " holds " + row.get("device_id") + ", sent " + e.deviceId());
                }
                String expectedTable = mode == Mode.FIELD ? (String) row.get("device_type") : tp.topic();
                if (!t.getKey().equals(expectedTable)) {
                    problems.add(at + " in table " + t.getKey() + ", expected " + expectedTable);
                }
            }
        }
        assertTrue(problems.isEmpty(), problems.size() + " problems, e.g. " + problems.subList(0, Math.min(10,
                problems.size())) + "; kills: " + killLog);
        assertEquals(EVENTS, seen.size(), "every (topic, partition, offset) once across the tables");
    }

    private static long awaitAnyVersionAbove(Map<String, TableLocation> tables, long version, WorkerProcess worker)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
            long latest = tables.values().stream().mapToLong(TableLocation::latestVersion).max().orElse(-1);
            if (latest > version) {
                return latest;
            }
            if (System.nanoTime() > deadline || !worker.isAlive()) {
                throw new AssertionError("No table above version " + version + "; worker log:\n" + worker.logTail(60));
            }
            Thread.sleep(10);
        }
    }

    private void killAndRestart(String moment, WorkerProcess worker) throws Exception {
        long pid = worker.pid();
        worker.kill();
        killLog.add("kill " + (killLog.size() + 1) + " (pid " + pid + ") " + moment);
        worker.start();
    }

    private static Thread produce(Mode mode, String bootstrap) {
        Thread thread = new Thread(() -> {
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Producers.settings(bootstrap),
                    new StringSerializer(), new StringSerializer())) {
                int chunk = EVENTS_PER_SECOND / 10;
                for (int sent = 0; sent < EVENTS; ) {
                    long started = System.nanoTime();
                    for (int i = 0; i < chunk && sent < EVENTS; i++, sent++) {
                        SensorEvents.Event e = eventOf(mode, sent);
                        producer.send(new ProducerRecord<>(topicOf(mode, sent), partitionOf(mode, sent), e.deviceId(),
                                e.json())).get();
                    }
                    long wait = 100 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                    if (wait > 0) {
                        Thread.sleep(wait);
                    }
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "routed-producer");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
