package io.deltasink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.util.clusters.WorkerHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.it.ConnectHarness.Sent;

/**
 * A Delta commit landed but Connect's offset commit did not. {@link OffsetCommitLosingConnector}
 * never lets the worker commit consumer-group offsets, so after the worker is replaced the
 * consumer starts from the beginning of every partition (Connect's sink consumers reset to
 * earliest). Only the txn versions in the table can keep the restarted task from writing the
 * first half again.
 */
class OffsetCommitLostIT {
    private static final int HALF = 6_000;

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension("offset-commit-lost", 1);

    @Test
    void restartedWorkerResumesFromTheTableNotTheConsumerGroup(@TempDir Path table) throws Exception {
        String topic = "sensor-events-lost-commit";
        String connector = "delta-lost-commit";
        cluster.harness().createTopic(topic);
        Map<String, String> config = ConnectHarness.presetConfig(topic, table);
        config.put("connector.class", OffsetCommitLosingConnector.class.getName());

        List<Sent> sent = new ArrayList<>(cluster.harness().produce(topic, SensorFeed.good(0, HALF)));
        cluster.harness().startConnector(connector, config);
        ExactlyOnce.awaitAndAssert(cluster.harness(), connector, topic, table, SensorFeed.expectedRows(sent));

        // the precondition that makes this test able to fail: rows are in the table, the group has nothing
        Map<Integer, Long> committedInTable = cluster.harness().endOffsets(topic);
        assertEquals(HALF, TableState.rows(table).size(), "first half committed to the table before the restart");
        assertEquals(Map.of(), cluster.harness().groupOffsets(connector, topic),
                "the worker must not have committed consumer-group offsets");

        // stop the only worker (its task commits to Delta on close, the group still gets nothing) and start a new one
        WorkerHandle old = cluster.harness().connect().workers().iterator().next();
        cluster.harness().connect().removeWorker(old);
        cluster.harness().connect().addWorker();
        cluster.harness().connect().assertions().assertConnectorAndExactlyNumTasksAreRunning(connector, 1,
                "the connector did not come back on the new worker");

        sent.addAll(cluster.harness().produce(topic, SensorFeed.good(HALF, HALF)));
        ExactlyOnce.awaitAndAssert(cluster.harness(), connector, topic, table, SensorFeed.expectedRows(sent));
        assertEquals(Map.of(), cluster.harness().groupOffsets(connector, topic), "still no consumer-group offsets");

        // and the restarted task was positioned at the table's offsets: nothing below them was read again
        RecordingDeltaSinkConnector.assertNothingReadBelow(connector, topic, committedInTable);
    }
}
