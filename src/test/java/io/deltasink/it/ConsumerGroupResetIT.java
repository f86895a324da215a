package io.deltasink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.it.ConnectHarness.Sent;

/**
 * The consumer group is not the source of truth: deleting it, or rewinding it to 0, while the
 * connector is stopped must neither duplicate nor lose a row when the connector resumes.
 * Without the table-based seek in open() the resumed consumer would start at offset 0; the
 * connector is the real one plus a record of where its task was made to read
 * ({@link RecordingDeltaSinkConnector}), so the tests also fail when only the fencing at commit
 * time saved the table.
 */
class ConsumerGroupResetIT {
    private static final int HALF = 5_000;

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension("group-reset", 1);

    @Test
    void deletedConsumerGroupDoesNotDuplicate(@TempDir Path table) throws Exception {
        String topic = "sensor-events-group-deleted";
        String connector = "delta-group-deleted";
        List<Sent> sent = runFirstHalfAndStop(topic, connector, table);
        Map<Integer, Long> inTable = TableState.txnVersions(table, connector, topic, ConnectHarness.PARTITIONS);

        deleteGroup(connector);
        assertEquals(Map.of(), cluster.harness().groupOffsets(connector, topic), "the group's offsets are gone");

        resumeAndFinish(topic, connector, table, sent, inTable);
        RecordingDeltaSinkConnector.assertNothingReadBelow(connector, topic, inTable);
    }

    @Test
    void consumerGroupRewoundToZeroDoesNotDuplicate(@TempDir Path table) throws Exception {
        String topic = "sensor-events-group-rewound";
        String connector = "delta-group-rewound";
        List<Sent> sent = runFirstHalfAndStop(topic, connector, table);
        Map<Integer, Long> inTable = TableState.txnVersions(table, connector, topic, ConnectHarness.PARTITIONS);

        Map<TopicPartition, OffsetAndMetadata> zero = new HashMap<>();
        for (int p = 0; p < ConnectHarness.PARTITIONS; p++) {
            zero.put(new TopicPartition(topic, p), new OffsetAndMetadata(0L));
        }
        ConnectHarness.get(cluster.harness().admin().alterConsumerGroupOffsets(ConnectHarness.groupId(connector), zero).all());
        assertEquals(Map.of(0, 0L, 1, 0L, 2, 0L), cluster.harness().groupOffsets(connector, topic), "the group is at 0");

        resumeAndFinish(topic, connector, table, sent, inTable);
        RecordingDeltaSinkConnector.assertNothingReadBelow(connector, topic, inTable);
    }

    /** Produces the first half, waits until it is in the table and the group follows, stops the connector. */
    private static List<Sent> runFirstHalfAndStop(String topic, String connector, Path table) throws Exception {
        cluster.harness().createTopic(topic);
        List<Sent> sent = new ArrayList<>(cluster.harness().produce(topic, SensorFeed.good(0, HALF)));
        Map<String, String> config = ConnectHarness.presetConfig(topic, table);
        config.put("connector.class", RecordingDeltaSinkConnector.class.getName());
        cluster.harness().startConnector(connector, config);
        ExactlyOnce.awaitAndAssert(cluster.harness(), connector, topic, table, SensorFeed.expectedRows(sent));

        // the group follows the table (preCommit returns the table's offsets)
        Map<Integer, Long> end = cluster.harness().endOffsets(topic);
        ConnectHarness.awaitCondition(() -> end.equals(cluster.harness().groupOffsets(connector, topic)), Duration.ofSeconds(60),
                () -> "the consumer group did not follow the table: " + cluster.harness().groupOffsets(connector, topic)
                        + " vs " + end);

        cluster.harness().connect().stopConnector(connector);
        cluster.harness().connect().assertions().assertConnectorIsStopped(connector, "the connector did not stop");
        return sent;
    }

    /**
     * Resumes the connector: with no new record, the group must come back to the table's positions
     * within an offset commit or two (lag tools show 0, not the whole topic); then the rest is sent.
     */
    private static void resumeAndFinish(String topic, String connector, Path table, List<Sent> sent,
                                        Map<Integer, Long> inTable) throws Exception {
        cluster.harness().connect().resumeConnector(connector);
        cluster.harness().connect().assertions().assertConnectorAndExactlyNumTasksAreRunning(connector, 1,
                "the connector did not resume");
        ConnectHarness.awaitCondition(() -> inTable.equals(cluster.harness().groupOffsets(connector, topic)),
                Duration.ofSeconds(30), () -> "without new records the consumer group did not come back to the "
                        + "table's positions " + inTable + ": " + cluster.harness().groupOffsets(connector, topic));
        sent.addAll(cluster.harness().produce(topic, SensorFeed.good(HALF, HALF)));
        ExactlyOnce.awaitAndAssert(cluster.harness(), connector, topic, table, SensorFeed.expectedRows(sent));
    }

    /** Deletes the connector's consumer group, retrying while the stopped task's member is still leaving. */
    private static void deleteGroup(String connector) {
        String group = ConnectHarness.groupId(connector);
        boolean[] deleted = {false};
        ConnectHarness.awaitCondition(() -> {
            try {
                cluster.harness().admin().deleteConsumerGroups(List.of(group)).all().get();
                deleted[0] = true;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof GroupNotEmptyException)) {
                    throw new IllegalStateException("cannot delete group " + group, e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return deleted[0];
        }, Duration.ofSeconds(60), () -> "group " + group + " stayed non-empty");
    }
}
