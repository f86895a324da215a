package io.deltasink.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.it.ConnectHarness.Sent;

/**
 * Storage fails while partitions move. Data files cannot be completed ({@link FailingLocalFileSystem}),
 * so every commit fails and the task drops its batch and rewinds to the table's offsets; meanwhile
 * the consumer group rebalances (another member joins the connector's group and takes a partition
 * away from a task, then leaves). The tasks must stay alive through it, and once storage is back
 * every record must be in the table exactly once.
 */
class StorageOutageIT {
    private static final int AT_LEAST = 12_000;

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension("storage-outage", 1);

    /** Runs before the extension deletes the connectors. */
    @AfterEach
    void endOutage() {
        FailingLocalFileSystem.endOutage();
    }

    @Test
    void failedCommitsDuringARebalanceNeitherLoseNorDuplicateNorKillTheTask(@TempDir Path table) throws Exception {
        String topic = "sensor-events-outage";
        String connector = "delta-outage";
        cluster.harness().createTopic(topic);
        Map<String, String> config = ConnectHarness.presetConfig(topic, table);
        config.put("tasks.max", "2"); // range assignment: task 0 reads partitions 0 and 1, task 1 partition 2
        config.put("delta.hadoop.fs.file.impl", FailingLocalFileSystem.class.getName());
        config.put("commit.retry.backoff.ms", "20");
        cluster.harness().startConnector(connector, config);

        List<Sent> sent;
        int failuresBefore = FailingLocalFileSystem.failures();
        try (BackgroundProducer producer = new BackgroundProducer(cluster.harness(), topic, AT_LEAST)) {
            ConnectHarness.awaitCondition(() -> TableState.txnVersions(table, connector, topic,
                    ConnectHarness.PARTITIONS).size() == ConnectHarness.PARTITIONS, Duration.ofMinutes(1),
                    () -> "no first commit for every partition");

            FailingLocalFileSystem.startOutage(table);
            ConnectHarness.awaitCondition(() -> FailingLocalFileSystem.failures() > failuresBefore,
                    Duration.ofMinutes(1), () -> "no commit failed during the outage");

            // a member joins the connector's group: it sorts last, so it takes partition 2 from task 1,
            // and task 1 gets partition 1 from task 0; both revocations commit while storage is down
            try (GroupIntruder intruder = new GroupIntruder(cluster.harness(), ConnectHarness.groupId(connector), topic)) {
                ConnectHarness.awaitCondition(() -> !intruder.assignment().isEmpty(), Duration.ofMinutes(1),
                        () -> "the intruder got no partition");
                cluster.harness().failOnFailedTask(connector);
                FailingLocalFileSystem.endOutage();
                producer.awaitProduced(AT_LEAST / 2);
                cluster.harness().failOnFailedTask(connector);
            } // ... and leaves again: one more rebalance, storage healthy
            sent = producer.finish();
        } finally {
            FailingLocalFileSystem.endOutage();
        }

        assertTrue(FailingLocalFileSystem.failures() > failuresBefore, "the outage made commits fail");
        ExactlyOnce.awaitAndAssert(cluster.harness(), connector, topic, table, SensorFeed.expectedRows(sent));
    }

    /**
     * A plain consumer in the connector's consumer group, polling on its own thread without
     * committing anything, so that the group rebalances when it joins and when it leaves.
     */
    static final class GroupIntruder implements AutoCloseable {
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicReference<Set<TopicPartition>> assignment = new AtomicReference<>(Set.of());
        private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> new Thread(r, "it-intruder"));
        private final Future<?> polling;

        GroupIntruder(ConnectHarness harness, String group, String topic) {
            Map<String, Object> props = Map.of(
                    ConsumerConfig.GROUP_ID_CONFIG, group,
                    ConsumerConfig.CLIENT_ID_CONFIG, "zz-intruder",
                    ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest",
                    ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "20000");
            polling = thread.submit(() -> {
                try (KafkaConsumer<byte[], byte[]> consumer = harness.connect().kafka().createConsumer(props)) {
                    consumer.subscribe(List.of(topic));
                    while (!stop.get()) {
                        consumer.poll(Duration.ofMillis(200));
                        assignment.set(Set.copyOf(consumer.assignment()));
                    }
                }
                return null;
            });
        }

        Set<TopicPartition> assignment() {
            if (polling.isDone()) {
                ConnectHarness.get(polling); // surfaces the consumer's failure
            }
            return assignment.get();
        }

        @Override
        public void close() {
            stop.set(true);
            try {
                ConnectHarness.get(polling);
            } finally {
                thread.shutdown();
            }
        }
    }
}
