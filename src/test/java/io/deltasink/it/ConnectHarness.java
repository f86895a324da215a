package io.deltasink.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.deltasink.testing.Producers;
import io.deltasink.testing.TableLocation;

/**
 * A real KRaft broker and a real distributed Connect worker (or several), in-process, plus the
 * few operations the integration tests need: topics, a fast producer, the seed connector config,
 * and bounded waits on the Delta table. One harness is meant to be shared by the tests of a class;
 * every test uses its own topic, connector name and table directory.
 */
final class ConnectHarness implements AutoCloseable {
    static final int PARTITIONS = 3;
    static final Duration CATCH_UP_TIMEOUT = Duration.ofMinutes(3);
    static final Duration POLL_INTERVAL = Duration.ofMillis(500);

    /** The seed preset, relative to the project directory (Surefire's working directory). */
    static final Path PRESET = Path.of("connector-config", "sensor-events-local.json");
    /** Metadata columns added to the preset's mapping so every row names its Kafka coordinates. */
    static final String METADATA_COLUMNS =
            "kafka_topic:string=@topic, kafka_partition:int=@partition, kafka_offset:long=@offset";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final EmbeddedConnectCluster connect;
    private final Admin admin;
    private final KafkaProducer<String, String> producer;

    private ConnectHarness(EmbeddedConnectCluster connect) {
        this.connect = connect;
        this.admin = connect.kafka().createAdminClient();
        Map<String, Object> props = Producers.settings(connect.kafka().bootstrapServers());
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        this.producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    /** Starts one broker and {@code workers} Connect workers that commit offsets every second. */
    static ConnectHarness start(String name, int workers) {
        return start(name, workers, Map.of());
    }

    static ConnectHarness start(String name, int workers, Map<String, String> extraWorkerProps) {
        Map<String, String> workerProps = new HashMap<>();
        workerProps.put("offset.flush.interval.ms", "1000");
        // plugins are found through their ServiceLoader manifests (main and test resources): a worker
        // starts in seconds instead of scanning the whole test classpath
        workerProps.put("plugin.discovery", "service_load");
        workerProps.putAll(extraWorkerProps);
        EmbeddedConnectCluster connect = new EmbeddedConnectCluster.Builder()
                .name(name)
                .numWorkers(workers)
                .numBrokers(1)
                .workerProps(workerProps)
                .build();
        connect.start();
        return new ConnectHarness(connect);
    }

    EmbeddedConnectCluster connect() {
        return connect;
    }

    Admin admin() {
        return admin;
    }

    void createTopic(String topic) {
        connect.kafka().createTopic(topic, PARTITIONS);
    }

    // ---- producing --------------------------------------------------------------------------------

    /** Sends the messages (a null value is a tombstone) and returns where each one landed, in order. */
    List<Sent> produce(String topic, List<Message> messages) {
        List<Future<RecordMetadata>> futures = new ArrayList<>(messages.size());
        for (Message m : messages) {
            futures.add(producer.send(new ProducerRecord<>(topic, m.partition(), m.key(), m.value())));
        }
        producer.flush();
        List<Sent> sent = new ArrayList<>(messages.size());
        Iterator<Message> it = messages.iterator();
        for (Future<RecordMetadata> f : futures) {
            RecordMetadata md = get(f);
            sent.add(new Sent(it.next(), new Coordinates(md.topic(), md.partition(), md.offset())));
        }
        return sent;
    }

    /** The next offset of every partition of the topic. */
    Map<Integer, Long> endOffsets(String topic) {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            request.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<Integer, Long> out = new TreeMap<>();
        get(admin.listOffsets(request).all()).forEach((tp, info) -> out.put(tp.partition(), info.offset()));
        return out;
    }

    /** What the connector's consumer group has committed for the topic (absent partitions: nothing). */
    Map<Integer, Long> groupOffsets(String connector, String topic) {
        Map<TopicPartition, OffsetAndMetadata> committed =
                get(admin.listConsumerGroupOffsets(groupId(connector)).partitionsToOffsetAndMetadata());
        Map<Integer, Long> out = new TreeMap<>();
        committed.forEach((tp, om) -> {
            if (om != null && tp.topic().equals(topic)) {
                out.put(tp.partition(), om.offset());
            }
        });
        return out;
    }

    static String groupId(String connector) {
        return "connect-" + connector;
    }

    // ---- the connector ----------------------------------------------------------------------------

    /**
     * The seed preset's connector config, pointed at {@code topic} and {@code table}, with the Kafka
     * metadata columns added to the mapping and the DLQ renamed after the topic.
     */
    static Map<String, String> presetConfig(String topic, Path table) {
        return presetConfig(topic, TableLocation.local(table));
    }

    /** The same, for a table anywhere: table.location and (on S3) the s3.* settings from {@code table}. */
    static Map<String, String> presetConfig(String topic, TableLocation table) {
        JsonNode preset;
        try {
            preset = JSON.readTree(Files.readString(PRESET));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the seed preset " + PRESET.toAbsolutePath(), e);
        }
        Map<String, String> config = new LinkedHashMap<>();
        preset.get("config").properties().forEach(e -> config.put(e.getKey(), e.getValue().asText()));
        config.put("topics", topic);
        config.putAll(table.connectorSettings());
        config.put("columns", config.get("columns") + ", " + METADATA_COLUMNS);
        config.put("errors.deadletterqueue.topic.name", dlqTopic(topic));
        return config;
    }

    static String dlqTopic(String topic) {
        return topic + "-dlq";
    }

    /** Creates (or reconfigures) the connector through the worker's REST API and waits for its tasks. */
    void startConnector(String name, Map<String, String> config) throws InterruptedException {
        connect.configureConnector(name, config);
        int tasks = Integer.parseInt(config.getOrDefault("tasks.max", "1"));
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, tasks,
                "connector " + name + " did not start with " + tasks + " running task(s)");
    }

    /**
     * Deletes every connector and waits until each is gone, so no task still writes into a test's
     * table directory when JUnit removes it. Call it after each test.
     */
    void deleteAllConnectors() throws InterruptedException {
        for (String name : connect.connectors()) {
            connect.deleteConnector(name);
            connect.assertions().assertConnectorDoesNotExist(name, "connector " + name + " was not deleted");
        }
    }

    /**
     * Waits (bounded) until the table's txn version of every partition of {@code topic} equals the
     * topic's end offset, i.e. the connector has committed everything produced so far. Fails at once
     * with the task's trace when a task of the connector failed.
     */
    void awaitTableCaughtUp(String connector, String topic, Path table) {
        awaitTableCaughtUp(connector, topic, TableLocation.local(table));
    }

    void awaitTableCaughtUp(String connector, String topic, TableLocation table) {
        AtomicReference<Map<Integer, Long>> versions = new AtomicReference<>(Map.of());
        AtomicReference<Map<Integer, Long>> end = new AtomicReference<>(Map.of());
        awaitCondition(() -> {
            failOnFailedTask(connector);
            end.set(endOffsets(topic));
            versions.set(TableState.txnVersions(table, connector, topic, PARTITIONS));
            return versions.get().equals(end.get());
        }, CATCH_UP_TIMEOUT, () -> "the table of " + connector + " did not catch up with " + topic
                + ": txn versions " + versions.get() + ", end offsets " + end.get());
    }

    void failOnFailedTask(String connector) {
        ConnectorStateInfo status;
        try {
            status = connect.connectorStatus(connector);
        } catch (RuntimeException e) {
            return; // not known (yet): nothing failed
        }
        for (ConnectorStateInfo.TaskState task : status.tasks()) {
            if ("FAILED".equals(task.state())) {
                fail("task " + task.id() + " of " + connector + " failed:\n" + task.trace());
            }
        }
    }

    /** Polls {@code condition} every {@link #POLL_INTERVAL} until it holds or {@code timeout} passes. */
    static void awaitCondition(BooleanSupplier condition, Duration timeout, Supplier<String> onTimeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out after " + timeout.toSeconds() + " s: " + onTimeout.get());
            }
            try {
                Thread.sleep(POLL_INTERVAL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted while waiting: " + onTimeout.get());
            }
        }
    }

    /** Worker ids that run at least one task of the connector. */
    Set<String> taskWorkers(String connector) {
        Set<String> workers = new TreeSet<>();
        for (ConnectorStateInfo.TaskState task : connect.connectorStatus(connector).tasks()) {
            if ("RUNNING".equals(task.state())) {
                workers.add(task.workerId());
            }
        }
        return workers;
    }

    static <T> T get(Future<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    @Override
    public void close() {
        try {
            producer.close(Duration.ofSeconds(10));
            admin.close(Duration.ofSeconds(10));
        } finally {
            connect.stop();
        }
    }

    /** One record to produce: an explicit partition, the device id as key, a value (null: tombstone). */
    record Message(int partition, String key, String value, Kind kind) {
    }

    /** What a produced message is, and therefore where it must end up. */
    enum Kind {
        /** a valid sensor event: one row */
        GOOD,
        /** cannot be converted: one DLQ record (errors.tolerance=all) */
        BAD,
        /** a null value: skipped, neither a row nor a DLQ record */
        TOMBSTONE
    }

    /** A message with the coordinates the broker gave it. */
    record Sent(Message message, Coordinates at) {
    }

    /** A record's place in Kafka. */
    record Coordinates(String topic, int partition, long offset) implements Comparable<Coordinates> {
        @Override
        public int compareTo(Coordinates o) {
            int c = topic.compareTo(o.topic);
            if (c != 0) {
                return c;
            }
            c = Integer.compare(partition, o.partition);
            return c != 0 ? c : Long.compare(offset, o.offset);
        }

        @Override
        public String toString() {
            return topic + "/" + partition + "@" + offset;
        }
    }
}
