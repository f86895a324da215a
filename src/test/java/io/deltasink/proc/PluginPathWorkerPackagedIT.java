package io.deltasink.proc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.util.clusters.EmbeddedKafkaCluster;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.dist.ComponentZip;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.Producers;
import io.deltasink.testing.SensorEvents;

/**
 * The built component archive in a Connect worker as operators run it: the zip unzipped into a
 * directory that is the worker's {@code plugin.path}, the worker ({@code ConnectDistributed}) in
 * its own JVM with a plain Connect class path (connect-runtime and its dependencies, resolved by
 * the build from src/test/worker/pom.xml, no connector classes), so the plugin is loaded by the
 * worker's isolated plugin class loader from the zip's lib/. The connector is created with
 * {@code PUT /connectors/<name>/config} from the example config the zip ships in etc/, consumes
 * a topic on a real broker to its end, and the table is read back with the independent reader.
 *
 * <p>On the Kafka version the project builds against, once on Java 17 and once on Java 25 (a Pi's
 * worker may be either; the Java 25 run writes zstd, the Java 17 runs the default snappy, so both
 * codecs' native libraries from lib/ are loaded by a worker); and on the oldest Kafka the plugin
 * supports (3.9: slf4j 1.7 with reload4j, no per-plugin metrics) with a smaller feed. Each run
 * reads the task's metrics over JMX as an operator does: the connector's own (KIP-877 plugin
 * metrics) count the rows on 4.3 and are absent on 3.9, where the task runs without them. Each run
 * also goes through the offsets API (KIP-875): GET shows the table's positions, and a PATCH on the
 * stopped connector is written into the table.
 */
class PluginPathWorkerPackagedIT {
    private static final String CONNECTOR_CLASS = "io.deltasink.DeltaSinkConnector";
    private static final int PARTITIONS = 3;

    private static EmbeddedKafkaCluster kafka;

    @BeforeAll
    static void startBroker() {
        kafka = new EmbeddedKafkaCluster(1, new Properties());
        kafka.start();
    }

    @AfterAll
    static void stopBroker() {
        if (kafka != null) {
            kafka.stop();
        }
    }

    @ParameterizedTest(name = "Java {0}, {1} Kafka worker, {2}, {3} events")
    @CsvSource({"17, CURRENT, snappy, 3000", "25, CURRENT, zstd, 3000", "17, OLDEST, snappy, 300"})
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void workerLoadsThePluginFromPluginPathAndWritesTheTopicToATable(int javaFeature, PlainWorker kind, String codec,
                                                                     int events) throws Exception {
        String label = "java" + javaFeature + "-kafka" + kind.kafkaVersion();
        Path work = Files.createTempDirectory(Path.of("target"), "plugin-path-" + label + "-").toAbsolutePath();
        Path pluginPath = work.resolve("plugins");
        Files.createDirectories(pluginPath);
        Path component = ComponentZip.unzipInto(pluginPath);

        Path javaHome = Jdks.require(javaFeature);
        String classPath = kind.classPath();
        WorkerProcess.Launch launch = new WorkerProcess.Launch(javaHome, classPath);

        String topic = "sensor-events-" + label;
        Path table = work.resolve("sensor_events");
        Preset preset = Preset.load(component.resolve("etc").resolve("sensor-events-local.json"))
                .with("topics", topic)
                .with("table.location", table.toString())
                .with("parquet.compression", codec)
                .withExtraColumns("kafka_partition:int=@partition", "kafka_offset:long=@offset");
        String connector = preset.name() + "-" + label;

        WorkerJmx jmx = new WorkerJmx();
        WorkerProcess worker = new WorkerProcess(kafka.bootstrapServers(), "plugin-path-" + label,
                work.resolve("worker"), "384m", jmx.jvmArgs(), Map.of("plugin.path", pluginPath.toString()), launch);
        try (Admin admin = kafka.createAdminClient()) {
            kafka.createTopic(topic, PARTITIONS);
            produce(topic, events);
            worker.start();
            assertEquals(kind.kafkaVersion(), worker.serverInfo().path("version").asText(),
                    "Kafka version of the worker in GET /");

            JsonNode plugin = findPlugin(worker.connectorPlugins());
            assertEquals("sink", plugin.path("type").asText(), "plugin type in GET /connector-plugins");
            assertEquals(System.getProperty("project.version"), plugin.path("version").asText(),
                    "plugin version in GET /connector-plugins");

            worker.putConnectorConfig(connector, preset.config());
            worker.awaitTasksRunning(connector, 1, Duration.ofSeconds(90));

            Map<TopicPartition, Long> ends = TableProgress.endOffsets(admin, TableProgress.partitions(topic, PARTITIONS));
            TableProgress.awaitCaughtUp(table, connector, ends, Duration.ofSeconds(120), () -> worker.logTail(60));

            // the task logs its commit line just after the commit file landed: give it a moment
            String log = awaitLogLine(worker, "Committed version", Duration.ofSeconds(30));
            assertTrue(log.contains("Loading plugin from: " + component), "the worker loaded the plugin from "
                    + component + " (plugin.path); log:\n" + worker.logTail(80));
            assertFalse(log.contains("ClassNotFoundException") || log.contains("NoClassDefFoundError")
                    || log.contains("UnsatisfiedLinkError") || log.contains("NoSuchMethodError")
                    || log.contains("AbstractMethodError"), "linkage errors in the worker log:\n" + log);

            verifyTable(table, codec, events);
            verifyMetrics(jmx, connector, kind, events);
            assertEquals(kind != PlainWorker.CURRENT, log.contains("gives tasks no plugin metrics"),
                    "a worker without plugin metrics is named in the log at the task's start, only then");
            verifyOffsetsApi(worker, connector, topic, table, ends);
        } finally {
            worker.stop();
        }
    }

    private static String awaitLogLine(WorkerProcess worker, String text, Duration timeout)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String log = Files.readString(worker.logFile());
            if (log.contains(text)) {
                return log;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no \"" + text + "\" in the worker log within " + timeout + ":\n"
                        + worker.logTail(60));
            }
            Thread.sleep(200);
        }
    }

    /**
     * The task's metrics over JMX. Connect's own sink task metrics show, on every worker, that this
     * reads the task's MBeans (every event was read). The connector's metrics are KIP-877 plugin
     * metrics ({@code PluginSinkMetrics}): on 4.3 under {@code kafka.connect:type=plugins} with the
     * connector and task, counting every row committed; 3.9's SinkTaskContext has no
     * {@code pluginMetrics()}, the call fails with NoSuchMethodError and the task runs with metrics
     * that record nothing, so none of the connector's metrics is anywhere in the worker's MBeans.
     */
    private static void verifyMetrics(WorkerJmx jmx, String connector, PlainWorker kind, int events)
            throws IOException, InterruptedException {
        Map<String, Object> connect = awaitMetric(jmx, "sink-task-metrics", connector, "sink-record-read-total",
                events);
        assertTrue(((Number) connect.get("sink-record-read-total")).doubleValue() >= events,
                "Connect's sink-record-read-total of task 0 over JMX: " + connect);
        if (kind == PlainWorker.CURRENT) {
            Map<String, Object> plugin = awaitMetric(jmx, "plugins", connector, "delta-rows-total", events);
            assertEquals((double) events, plugin.get("delta-rows-total"), "delta-rows-total over JMX: " + plugin);
            assertTrue(((Number) plugin.get("delta-commit-total")).doubleValue() >= 1, "delta-commit-total: " + plugin);
            assertEquals(0.0, plugin.get("delta-bad-record-total"), "delta-bad-record-total: " + plugin);
        } else {
            assertEquals(Map.of(), jmx.taskMetrics("plugins", connector, 0),
                    "Kafka " + kind.kafkaVersion() + " has no plugin metrics (KIP-877)");
            assertEquals(Set.of(), jmx.attributesNamed("kafka", "delta-"), "the connector's metrics on Kafka "
                    + kind.kafkaVersion() + ", which has no plugin metrics: the task runs without them");
        }
    }

    /** Task 0's metrics of {@code type} once {@code name} reached {@code atLeast} (within 30 s), or as then. */
    private static Map<String, Object> awaitMetric(WorkerJmx jmx, String type, String connector, String name,
                                                   double atLeast) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Map<String, Object> metrics = jmx.taskMetrics(type, connector, 0);
            boolean reached = metrics.get(name) instanceof Number n && n.doubleValue() >= atLeast;
            if (reached || System.nanoTime() > deadline) {
                assertTrue(metrics.containsKey(name), "no " + name + " among the " + type + " metrics of task 0 of "
                        + connector + " over JMX: " + metrics);
                return metrics;
            }
            Thread.sleep(200);
        }
    }

    /**
     * KIP-875 through this worker: GET offsets shows the table's positions (the consumer group
     * follows the table); PATCH on the stopped connector goes through the connector's alterOffsets
     * into the table, as a commit that moves partition 0 one record back.
     */
    private static void verifyOffsetsApi(WorkerProcess worker, String connector, String topic, Path table,
                                         Map<TopicPartition, Long> ends) throws IOException, InterruptedException {
        Map<Integer, Long> positions = new TreeMap<>();
        ends.forEach((tp, offset) -> positions.put(tp.partition(), offset));
        awaitRestOffsets(worker, connector, topic, positions);

        worker.stopConnector(connector);
        long before = TableProgress.latestVersion(table);
        long moved = positions.get(0) - 1;
        worker.patchSinkOffsets(connector, topic, Map.of(0, moved));
        positions.put(0, moved);

        long after = TableProgress.latestVersion(table);
        assertEquals(before + 1, after, "table versions after PATCH offsets (one commit)");
        assertEquals("Manual Update", DeltaTableReader.commitOperations(table.toString()).get(after),
                "operation of the commit written by PATCH offsets");
        Map<Integer, Long> txn = new TreeMap<>();
        TableProgress.txnVersions(table, connector, ends.keySet())
                .forEach((tp, v) -> txn.put(tp.partition(), v.orElse(null)));
        assertEquals(positions, txn, "txn versions after PATCH offsets");
        assertEquals(positions, restOffsets(worker, connector, topic), "GET offsets after PATCH offsets");
    }

    private static void awaitRestOffsets(WorkerProcess worker, String connector, String topic, Map<Integer, Long> want)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Map<Integer, Long> seen = restOffsets(worker, connector, topic);
        while (!want.equals(seen)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("GET offsets shows " + seen + ", the table holds " + want);
            }
            Thread.sleep(200);
            seen = restOffsets(worker, connector, topic);
        }
    }

    /** GET /connectors/{name}/offsets as Kafka partition -> offset of {@code topic}. */
    private static Map<Integer, Long> restOffsets(WorkerProcess worker, String connector, String topic)
            throws IOException, InterruptedException {
        Map<Integer, Long> out = new TreeMap<>();
        for (JsonNode o : worker.connectorOffsets(connector).path("offsets")) {
            if (topic.equals(o.path("partition").path("kafka_topic").asText())) {
                out.put(o.path("partition").path("kafka_partition").asInt(), o.path("offset").path("kafka_offset").asLong());
            }
        }
        return out;
    }

    private static JsonNode findPlugin(JsonNode plugins) {
        for (JsonNode p : plugins) {
            if (CONNECTOR_CLASS.equals(p.path("class").asText())) {
                return p;
            }
        }
        throw new AssertionError(CONNECTOR_CLASS + " not in GET /connector-plugins: " + plugins);
    }

    private static void produce(String topic, int events) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Producers.settings(kafka.bootstrapServers()),
                new StringSerializer(), new StringSerializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int seq = 0; seq < events; seq++) {
                SensorEvents.Event e = SensorEvents.event(seq);
                sent.add(producer.send(new ProducerRecord<>(topic, seq % PARTITIONS, e.deviceId(), e.json())));
            }
            for (Future<RecordMetadata> f : sent) {
                f.get(); // a record the broker refused fails the test here, not as a missing row later
            }
        }
    }

    /** Every event once, each row holding the event its partition and offset were produced with. */
    private static void verifyTable(Path table, String codec, int events) throws IOException {
        List<Map<String, Object>> rows = DeltaTableReader.readAll(table.toString());
        assertEquals(events, rows.size(), "rows in the table");
        Set<String> seen = new TreeSet<>();
        List<String> mismatches = new ArrayList<>();
        for (Map<String, Object> row : rows) {
            int partition = ((Number) row.get("kafka_partition")).intValue();
            long offset = ((Number) row.get("kafka_offset")).longValue();
            seen.add(partition + "@" + offset);
            SensorEvents.Event sent = SensorEvents.event(offset * PARTITIONS + partition);
            if (!sent.deviceId().equals(row.get("device_id")) || !sent.deviceType().equals(row.get("device_type"))
                    || !sent.ingestedAt().equals(row.get("event_time"))) {
                mismatches.add(partition + "@" + offset + ": " + row);
            }
        }
        assertEquals(events, seen.size(), "distinct (partition, offset) pairs");
        assertTrue(mismatches.isEmpty(), "rows not matching the produced events: " + mismatches);
        // the codec from the Parquet footers: the worker really loaded the codec's native library
        try (var files = Files.walk(table)) {
            List<Path> parquet = files.filter(p -> p.toString().endsWith(".parquet")).toList();
            assertFalse(parquet.isEmpty(), "no Parquet files");
            for (Path p : parquet) {
                try (ParquetFileReader reader = ParquetFileReader.open(
                        HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(p.toUri()), new Configuration()))) {
                    for (BlockMetaData block : reader.getFooter().getBlocks()) {
                        for (ColumnChunkMetaData column : block.getColumns()) {
                            assertEquals(CompressionCodecName.fromConf(codec), column.getCodec(),
                                    "codec of " + column.getPath() + " in " + p);
                        }
                    }
                }
            }
        }
    }
}
