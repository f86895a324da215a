package io.deltasink.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.util.clusters.WorkerHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.it.ConnectHarness.Sent;

/**
 * Partitions move between tasks and workers while records keep arriving: a second worker joins,
 * the connector grows from 1 to 3 tasks, then the first worker leaves. Each move revokes partitions
 * (preCommit, close) from one task and opens them in another; no row may be lost or written twice.
 */
class RebalanceIT {
    private static final int AT_LEAST = 12_000;

    // a departed worker's tasks are reassigned after 2 s instead of the default 5 min
    @RegisterExtension
    static final ClusterExtension cluster =
            new ClusterExtension("rebalance", 1, Map.of("scheduled.rebalance.max.delay.ms", "2000"));

    @Test
    void rebalancesWhileRecordsFlowNeitherLoseNorDuplicate(@TempDir Path table) throws Exception {
        String topic = "sensor-events-rebalance";
        String connector = "delta-rebalance";
        cluster.harness().createTopic(topic);
        Map<String, String> config = ConnectHarness.presetConfig(topic, table);
        config.put("tasks.max", "1");
        cluster.harness().startConnector(connector, config);
        WorkerHandle first = cluster.harness().connect().workers().iterator().next();

        List<Sent> sent;
        try (BackgroundProducer producer = new BackgroundProducer(cluster.harness(), topic, AT_LEAST)) {
            producer.awaitProduced(2_000);

            // a second worker joins and the connector grows to 3 tasks
            cluster.harness().connect().addWorker();
            cluster.harness().connect().assertions().assertExactlyNumWorkersAreUp(2, "the second worker did not join");
            config.put("tasks.max", "3");
            cluster.harness().startConnector(connector, config);
            ConnectHarness.awaitCondition(() -> cluster.harness().taskWorkers(connector).size() == 2, Duration.ofMinutes(1),
                    () -> "tasks were not spread over both workers: " + cluster.harness().connect().connectorStatus(connector));

            // the first worker leaves: its tasks move to the remaining one
            cluster.harness().connect().removeWorker(first);
            cluster.harness().connect().assertions().assertConnectorAndExactlyNumTasksAreRunning(connector, 3,
                    "the tasks of the departed worker were not reassigned");
            ConnectHarness.awaitCondition(() -> cluster.harness().taskWorkers(connector).size() == 1, Duration.ofMinutes(1),
                    () -> "tasks still on two workers: " + cluster.harness().connect().connectorStatus(connector));
            sent = producer.finish();
        }

        assertTrue(sent.size() >= AT_LEAST, "produced " + sent.size());
        ExactlyOnce.awaitAndAssert(cluster.harness(), connector, topic, table, SensorFeed.expectedRows(sent));
    }
}
