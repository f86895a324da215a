package io.deltasink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.it.ConnectHarness.Coordinates;
import io.deltasink.it.ConnectHarness.Sent;
import io.deltasink.it.SensorFeed.ExpectedRow;

/** The seed preset on a real worker: every event lands once, partitioned, with proper commit metadata. */
class PlainRunIT {
    private static final int EVENTS = 12_000;

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension("plain-run", 1);

    @Test
    void everyEventLandsExactlyOnceInPartitionFolders(@TempDir Path table) throws Exception {
        String topic = "sensor-events-plain";
        String connector = "delta-plain";
        cluster.harness().createTopic(topic);
        List<Sent> sent = new ArrayList<>();
        for (int first = 0; first < EVENTS; first += 4_000) {
            sent.addAll(cluster.harness().produce(topic, SensorFeed.good(first, 4_000)));
        }
        Map<Coordinates, ExpectedRow> expected = SensorFeed.expectedRows(sent);
        assertEquals(EVENTS, expected.size());

        cluster.harness().startConnector(connector, ConnectHarness.presetConfig(topic, table));
        ExactlyOnce.awaitAndAssert(cluster.harness(), connector, topic, table, expected);

        // Hive-style partition folders, one per device type x date that was produced
        List<String> wantDirs = SensorFeed.partitionFolders(expected);
        assertEquals(4, wantDirs.size(), "the feed covers 2 device types x 2 dates: " + wantDirs);
        assertEquals(wantDirs, TableState.dataDirectories(table));

        // every commit that adds files is a streaming update by this connector
        List<TableState.Commit> dataCommits = TableState.commits(table).stream()
                .filter(c -> c.addCount() > 0).toList();
        assertFalse(dataCommits.isEmpty(), "no commit with add actions in the log");
        for (TableState.Commit commit : dataCommits) {
            JsonNode info = commit.commitInfo().orElseThrow(
                    () -> new AssertionError("commit " + commit.version() + " has no commitInfo"));
            assertEquals("STREAMING UPDATE", info.path("operation").asText(), "operation of commit " + commit.version());
            String engine = info.path("engineInfo").asText();
            assertTrue(engine.contains(connector), "engineInfo of commit " + commit.version() + " is '" + engine
                    + "', should name the connector " + connector);
        }

        // the task's plugin metrics are registered with the worker and count what landed (the task
        // records them once Kernel's post-commit hooks finished, a moment after the log shows the commit)
        long deadline = System.currentTimeMillis() + 30_000;
        while (pluginMetric(connector, "delta-rows-total") < EVENTS && System.currentTimeMillis() < deadline) {
            Thread.sleep(200);
        }
        assertEquals((double) EVENTS, pluginMetric(connector, "delta-rows-total"));
        assertEquals((double) dataCommits.size(), pluginMetric(connector, "delta-commit-total"));
    }

    private static double pluginMetric(String connector, String name) throws Exception {
        javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        for (javax.management.ObjectName on : server.queryNames(new javax.management.ObjectName("kafka.connect:*"), null)) {
            if (connector.equals(on.getKeyProperty("connector")) && "plugins".equals(on.getKeyProperty("type"))) {
                try {
                    return ((Number) server.getAttribute(on, name)).doubleValue();
                } catch (javax.management.AttributeNotFoundException e) {
                    // another plugin of the same task
                }
            }
        }
        throw new AssertionError("no plugin metric " + name + " for connector " + connector + " in "
                + server.queryNames(new javax.management.ObjectName("kafka.connect:type=plugins,*"), null));
    }
}
