package io.deltasink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.deltasink.it.ConnectHarness.Coordinates;
import io.deltasink.it.ConnectHarness.Sent;
import io.deltasink.it.SensorFeed.ExpectedRow;
import io.deltasink.testing.S3Server;
import io.deltasink.testing.TableLocation;

/**
 * The seed preset writing to {@code s3a://} through a real S3 server (S3Proxy on 127.0.0.1, plain
 * HTTP, path-style access) on a real worker, read back through S3A by the independent reader: a
 * plain run, and the S3 server gone for 30 s while records keep arriving.
 */
class S3SinkIT {
    private static final String BUCKET = "sensor-data";
    private static final int EVENTS = 12_000;
    private static final Duration OUTAGE = Duration.ofSeconds(30);
    /** Events per batch of the background producer: a few hundred a second. */
    private static final int OUTAGE_BATCH = 25;

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension("s3-sink", 1);

    @RegisterExtension
    static final S3Server s3 = new S3Server(BUCKET);

    @Test
    void everyEventLandsExactlyOnceInS3PartitionFolders() throws Exception {
        String topic = "sensor-events-s3";
        String connector = "delta-s3";
        cluster.harness().createTopic(topic);
        List<Sent> sent = new ArrayList<>();
        for (int first = 0; first < EVENTS; first += 4_000) {
            sent.addAll(cluster.harness().produce(topic, SensorFeed.good(first, 4_000)));
        }
        Map<Coordinates, ExpectedRow> expected = SensorFeed.expectedRows(sent);
        assertEquals(EVENTS, expected.size());

        try (TableLocation table = TableLocation.onS3(s3.server(), "delta/sensor_events")) {
            Map<String, String> config = ConnectHarness.presetConfig(topic, table);
            assertEquals("s3a://sensor-data/delta/sensor_events", config.get("table.location"));
            cluster.harness().startConnector(connector, config);
            ExactlyOnce.awaitAndAssert(cluster.harness(), connector, topic, table, expected);

            List<String> wantDirs = SensorFeed.partitionFolders(expected);
            assertEquals(4, wantDirs.size(), "the feed covers 2 device types x 2 dates: " + wantDirs);
            assertEquals(wantDirs, table.dataDirectories(), "folders holding data files, listed through S3");
        }
    }

    @Test
    void theTaskRecoversByItselfWhenTheS3ServerIsDownFor30Seconds() throws Exception {
        String topic = "sensor-events-s3-outage";
        String connector = "delta-s3-outage";
        cluster.harness().createTopic(topic);
        try (TableLocation table = TableLocation.onS3(s3.server(), "delta/sensor_events_outage")) {
            Map<String, String> config = ConnectHarness.presetConfig(topic, table);
            // S3A's defaults retry one request for about 50 s, longer than the outage: the commit in
            // flight would just wait it out. Giving up after two attempts makes the connector itself
            // see the failures (drop the batch, rewind to the table's offsets, try again).
            config.put("delta.hadoop.fs.s3a.attempts.maximum", "2");
            config.put("delta.hadoop.fs.s3a.retry.limit", "2");
            cluster.harness().startConnector(connector, config);

            List<Sent> sent;
            long outageStart = 0;
            try (BackgroundProducer producer = new BackgroundProducer(cluster.harness(), topic, 4_000, OUTAGE_BATCH)) {
                ConnectHarness.awaitCondition(() -> TableState.txnVersions(table, connector, topic,
                        ConnectHarness.PARTITIONS).size() == ConnectHarness.PARTITIONS, Duration.ofMinutes(1),
                        () -> "no first commit for every partition");

                int before = producer.produced();
                s3.server().stop();
                outageStart = System.nanoTime();
                assertThrows(IOException.class, () -> new Socket(InetAddress.getLoopbackAddress(), s3.server().port()).close(),
                        "the S3 server still accepts connections");
                while (System.nanoTime() - outageStart < OUTAGE.toNanos()) {
                    cluster.harness().failOnFailedTask(connector);
                    Thread.sleep(1_000);
                }
                int during = producer.produced() - before;
                assertTrue(during >= 500, "records flow during the outage: " + during);

                s3.server().start();
                producer.awaitProduced(producer.produced() + 1_000);
                sent = producer.finish();
            } finally {
                s3.server().start();
            }

            ExactlyOnce.awaitAndAssert(cluster.harness(), connector, topic, table, SensorFeed.expectedRows(sent));
            System.out.printf("[S3SinkIT] %d events, caught up %.1f s after the outage began%n", sent.size(),
                    (System.nanoTime() - outageStart) / 1e9);
            ConnectorStateInfo status = cluster.harness().connect().connectorStatus(connector);
            assertEquals("RUNNING", status.connector().state());
            for (ConnectorStateInfo.TaskState task : status.tasks()) {
                assertEquals("RUNNING", task.state(), "task " + task.id() + " after the outage");
            }
        }
    }
}
