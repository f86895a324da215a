package io.deltasink.proc;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.util.clusters.EmbeddedKafkaCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.deltasink.dist.ComponentZip;
import io.deltasink.testing.Producers;

/**
 * The acceptance run of the seed job as an operator sets it up: the built component zip in the
 * {@code plugin.path} of a real Connect worker JVM started in the C locale ({@code LC_ALL=C}, no
 * {@code LANG}: Java encodes file names, and on Java 17 all text, in ASCII), the connector created
 * through the REST API from the zip's own {@code etc/sensor-events-local.json} with only the table
 * location changed (same topic, same dead letter queue settings), and a topic of 3 partitions fed
 * well-formed sensor events, device types with non-ASCII and path-hostile characters among them,
 * mixed with every kind of bad input and a tombstone ({@link E2eFeed}).
 *
 * <p>Then: the table holds exactly the well-formed records, each once with its content and
 * partition values; the dead letter queue holds exactly the bad records, named by their original
 * coordinates in the context headers; the tombstone is neither, skipped as the preset's default
 * {@code behavior.on.null.values=ignore} says, and the task's plugin metrics (read over JMX) count
 * it and the bad records; every other offset is one or the other; each partition's txn
 * version is its end offset; the table is whole for an independent reader (a Kernel scan of
 * every row, every file the log names on disk under the folder of its partition values); and its
 * timestamp statistics are valid and never let a reader skip the file of a row. All of these are
 * checked and reported together ({@link E2eOutcome}).
 */
class EndToEndPackagedIT {
    private static final int PARTITIONS = 3;
    private static final Duration CATCH_UP = Duration.ofSeconds(120);

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

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void shippedPresetInACLocaleWorkerWritesTheGoodRecordsOnceAndSendsTheBadOnesToTheDeadLetterQueue()
            throws Exception {
        Instant testStart = Instant.now();
        Path work = Files.createTempDirectory(Path.of("target"), "end-to-end-").toAbsolutePath();
        Path pluginPath = work.resolve("plugins");
        Files.createDirectories(pluginPath);
        Path component = ComponentZip.unzipInto(pluginPath);

        Path table = work.resolve("sensor_events");
        Preset shipped = Preset.load(component.resolve("etc").resolve("sensor-events-local.json"));
        Preset preset = shipped.with("table.location", table.toString());
        String connector = preset.name();
        String topic = preset.config().get("topics");
        String dlqTopic = preset.config().get("errors.deadletterqueue.topic.name");
        assertEquals("all", preset.config().get("errors.tolerance"), "the shipped preset's errors.tolerance");
        assertEquals("true", preset.config().get("errors.deadletterqueue.context.headers.enable"),
                "the shipped preset's errors.deadletterqueue.context.headers.enable");
        assertTrue(dlqTopic != null && !dlqTopic.isBlank(), "the shipped preset names a dead letter queue topic");

        kafka.createTopic(topic, PARTITIONS);
        List<E2eFeed.Sent> sent = produce(topic, E2eFeed.inputs(PARTITIONS));

        WorkerProcess.Launch launch = new WorkerProcess.Launch(Jdks.require(17), PlainWorker.CURRENT.classPath())
                .inCLocale();
        WorkerJmx jmx = new WorkerJmx();
        List<String> jvmArgs = new ArrayList<>(jmx.jvmArgs());
        jvmArgs.add("-XshowSettings:properties");
        WorkerProcess worker = new WorkerProcess(kafka.bootstrapServers(), "end-to-end", work.resolve("worker"),
                "384m", jvmArgs, Map.of("plugin.path", pluginPath.toString()), launch);
        try (Admin admin = kafka.createAdminClient()) {
            worker.start();
            String startLog = Files.readString(worker.logFile());
            assertTrue(startLog.contains("sun.jnu.encoding = ANSI_X3.4-1968"),
                    "the worker JVM encodes file names in ASCII (LC_ALL=C); its settings:\n" + worker.logTail(200));

            worker.putConnectorConfig(connector, preset.config());
            worker.awaitTasksRunning(connector, 1, Duration.ofSeconds(90));
            Map<TopicPartition, Long> ends = TableProgress.endOffsets(admin, TableProgress.partitions(topic, PARTITIONS));
            Map<TopicPartition, Optional<Long>> txn = awaitCaughtUpOrFailed(worker, connector, table, ends);
            List<ConsumerRecord<byte[], byte[]>> dlq = readAll(admin, dlqTopic);
            String status = String.valueOf(worker.connectorStatus(connector));
            Map<String, Object> taskMetrics = jmx.taskMetrics("plugins", connector, 0);

            E2eOutcome outcome = new E2eOutcome(table, topic, sent, ends, txn, dlq, testStart);
            assertAll("end-to-end run of the shipped preset (task status " + status + ")",
                    outcome::txnVersionsAreEndOffsets,
                    outcome::tableIsWholeForAnIndependentReader,
                    outcome::statisticsAreValidAndCoverEveryRow,
                    outcome::rowsAreExactlyTheGoodRecords,
                    outcome::deadLetterQueueHoldsExactlyTheBadRecords,
                    outcome::everyOffsetIsARowOrADeadLetterOnce,
                    () -> outcome.skippedAndBadRecordsAreCounted(taskMetrics));
        } finally {
            worker.stop();
        }
    }

    // ---- feeding ---------------------------------------------------------------------------------------

    private static List<E2eFeed.Sent> produce(String topic, List<E2eFeed.Input> inputs) throws Exception {
        Map<String, Object> props = Producers.settings(kafka.bootstrapServers());
        List<E2eFeed.Sent> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (E2eFeed.Input in : inputs) {
                RecordMetadata md = producer.send(new ProducerRecord<>(topic, in.partition(),
                        in.key().getBytes(StandardCharsets.UTF_8), in.value())).get();
                sent.add(new E2eFeed.Sent(in, new TopicPartition(topic, md.partition()), md.offset()));
            }
        }
        return sent;
    }

    // ---- waiting and reading back -----------------------------------------------------------------------

    /**
     * Waits until every partition's txn version is its end offset; stops waiting early when the task
     * FAILED, or after {@link #CATCH_UP}, so the checks report what the table holds then.
     */
    private static Map<TopicPartition, Optional<Long>> awaitCaughtUpOrFailed(WorkerProcess worker, String connector,
                                                                            Path table, Map<TopicPartition, Long> ends)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + CATCH_UP.toNanos();
        long seen = Long.MIN_VALUE;
        Map<TopicPartition, Optional<Long>> txn = Map.of();
        while (true) {
            long latest = TableProgress.latestVersion(table);
            if (latest != seen) { // the txn versions change only with a new commit
                seen = latest;
                txn = TableProgress.txnVersions(table, connector, ends.keySet());
            }
            if (TableProgress.caughtUp(txn, ends) || "FAILED".equals(worker.taskState(connector, 0))
                    || System.nanoTime() > deadline) {
                return txn;
            }
            Thread.sleep(250);
        }
    }

    /** Every record of {@code topic} up to its end offsets now; none when the topic does not exist. */
    private static List<ConsumerRecord<byte[], byte[]>> readAll(Admin admin, String topic)
            throws InterruptedException {
        int partitions;
        try {
            partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return List.of();
            }
            throw new IllegalStateException("Cannot describe " + topic, e.getCause());
        }
        Map<TopicPartition, Long> ends = TableProgress.endOffsets(admin, TableProgress.partitions(topic, partitions));
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        TableProgress.readUpTo(kafka.bootstrapServers(), ends, Duration.ofSeconds(60), out::add);
        return out;
    }
}
