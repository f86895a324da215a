package io.deltasink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.it.ConnectHarness.Coordinates;
import io.deltasink.it.ConnectHarness.Sent;
import io.deltasink.it.SensorFeed.ExpectedRow;

/**
 * A table per topic on a real worker: {@code topics.regex} over two topics and {@code ${topic}}
 * in table.location, with the task restarted while records flow; each table, read back by a
 * Kernel scan, holds exactly its own topic's records, each (topic, partition, offset) once, and
 * txn versions at its own topic's end offsets.
 */
class TablePerTopicIT {
    private static final int EVENTS = 3_000;

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension("table-per-topic", 1);

    @Test
    void topicsRegexOverTwoTopicsWritesTwoTablesEachOffsetOnce(@TempDir Path root) throws Exception {
        String connector = "delta-per-topic";
        List<String> topics = List.of("routed.plugs", "routed.bulbs");
        topics.forEach(cluster.harness()::createTopic);
        List<Sent> sent = new ArrayList<>();
        for (String topic : topics) {
            sent.addAll(cluster.harness().produce(topic, SensorFeed.good(0, EVENTS / 2)));
        }

        Map<String, String> config = ConnectHarness.presetConfig(topics.get(0), root.resolve("unused"));
        config.remove("topics");
        config.put("topics.regex", "routed\\.[a-z]+");
        config.put("table.location", root + "/${topic}");
        config.put("errors.deadletterqueue.topic.name", "dlq-per-topic");
        config.put("compaction.enabled", "false");
        config.put("vacuum.enabled", "false");
        config.put("tasks.max", "2");
        cluster.harness().startConnector(connector, config);

        // more records while the connector runs, and a restart of its tasks in between
        for (String topic : topics) {
            sent.addAll(cluster.harness().produce(topic, SensorFeed.good(EVENTS / 2, EVENTS / 4)));
        }
        cluster.harness().connect().restartConnectorAndTasks(connector, false, true, false);
        for (String topic : topics) {
            sent.addAll(cluster.harness().produce(topic, SensorFeed.good(EVENTS / 2 + EVENTS / 4, EVENTS / 4)));
        }

        Map<Coordinates, ExpectedRow> expected = SensorFeed.expectedRows(sent);
        assertEquals(2 * EVENTS, expected.size());
        for (String topic : topics) {
            Map<Coordinates, ExpectedRow> own = expected.entrySet().stream()
                    .filter(e -> e.getKey().topic().equals(topic))
                    .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
            assertEquals(EVENTS, own.size());
            ExactlyOnce.awaitAndAssert(cluster.harness(), connector, topic, root.resolve(topic), own);
            for (String other : topics) {
                if (!other.equals(topic)) {
                    assertTrue(TableState.txnVersions(root.resolve(topic), connector, other,
                            ConnectHarness.PARTITIONS).isEmpty(), topic + "'s table holds positions of " + other);
                }
            }
        }
        assertFalse(Files.exists(root.resolve("${topic}")), "no table at the template itself");
        assertFalse(Files.exists(root.resolve("unused")));
    }
}
