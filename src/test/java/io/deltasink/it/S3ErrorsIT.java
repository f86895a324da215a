package io.deltasink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.connect.runtime.rest.entities.ConfigInfo;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfos;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.DeltaSinkConnector;
import io.deltasink.it.ConnectHarness.Coordinates;
import io.deltasink.it.ConnectHarness.Sent;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.LogCapture;
import io.deltasink.testing.S3ProxyServer;
import io.deltasink.testing.S3Server;

/**
 * S3 failures in a real Connect worker against a real S3 server (S3Proxy): a wrong secret key is
 * refused by the worker's validate call on s3.secret.key; the server going away while the task
 * runs is retried through the worker (the task stays RUNNING, a WARN names s3.endpoint) and once
 * it is back every record is in the table exactly once. No secret appears in any log line.
 */
class S3ErrorsIT {
    static final String BUCKET = "sensor-data";
    static final String WRONG_SECRET = "wrong-secret-Jd6wE2rM4";
    static final String[] DEBUG_LOGGERS = {"org.apache.hadoop.fs.s3a", "software.amazon.awssdk", "io.deltasink"};

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension("s3-errors", 1);

    @TempDir
    static Path dir;
    @RegisterExtension
    static final S3Server s3 = new S3Server(BUCKET);

    private static Map<String, String> config(String topic, String table) {
        Map<String, String> config = ConnectHarness.presetConfig(topic, dir.resolve("unused"));
        config.put("table.location", table);
        config.putAll(s3.server().connectorSettings());
        // S3A gives up on a refused connection quickly; the worker does the waiting
        config.put("delta.hadoop.fs.s3a.attempts.maximum", "1");
        config.put("delta.hadoop.fs.s3a.retry.limit", "1");
        config.put("delta.hadoop.fs.s3a.retry.interval", "10ms");
        config.put("commit.retry.backoff.ms", "200");
        return config;
    }

    private static Map<Integer, Long> txnVersions(String table, String connector, String topic) {
        Map<Integer, Long> out = new TreeMap<>();
        try {
            for (int p = 0; p < ConnectHarness.PARTITIONS; p++) {
                int partition = p;
                DeltaTableReader.txnVersion(table, TableState.appId(connector, topic, p), s3.server().hadoopConf())
                        .ifPresent(v -> out.put(partition, v));
            }
        } catch (io.delta.kernel.exceptions.TableNotFoundException notYet) {
            return Map.of();
        }
        return out;
    }

    private static void awaitCaughtUp(String connector, String topic, String table) {
        AtomicReference<Map<Integer, Long>> versions = new AtomicReference<>(Map.of());
        ConnectHarness.awaitCondition(() -> {
            cluster.harness().failOnFailedTask(connector);
            versions.set(txnVersions(table, connector, topic));
            return versions.get().equals(cluster.harness().endOffsets(topic));
        }, ConnectHarness.CATCH_UP_TIMEOUT, () -> "the table did not catch up: txn versions " + versions.get());
    }

    @Test
    void aWrongSecretKeyIsRefusedOnItsFieldAndNeverLogged() {
        String topic = "sensor-events-wrong-secret";
        cluster.harness().createTopic(topic);
        Map<String, String> config = config(topic, "s3a://" + BUCKET + "/delta/wrong_secret");
        config.put("name", "delta-wrong-secret");
        config.put("s3.secret.key", WRONG_SECRET);
        // the first S3 client of a JVM spends seconds loading the SDK, and a probe that does not finish in
        // its bound says nothing: a first validate call warms the worker up
        Map<String, String> good = new java.util.HashMap<>(config);
        good.put("s3.secret.key", S3ProxyServer.SECRET_KEY);
        cluster.harness().connect().validateConnectorConfig(DeltaSinkConnector.class.getSimpleName(), good);
        try (LogCapture logs = new LogCapture(DEBUG_LOGGERS)) {
            ConfigInfos result = cluster.harness().connect()
                    .validateConnectorConfig(DeltaSinkConnector.class.getSimpleName(), config);
            Map<String, List<String>> errors = new TreeMap<>();
            for (ConfigInfo info : result.configs()) {
                if (!info.configValue().errors().isEmpty()) {
                    errors.put(info.configValue().name(), info.configValue().errors());
                }
            }
            assertEquals(Set.of("s3.secret.key"), errors.keySet(), errors.toString());
            String message = errors.get("s3.secret.key").get(0);
            assertTrue(message.contains("403") && message.contains("s3.secret.key"), message);
            assertTrue(logs.lines().size() > 5, "the capture sees the worker");
            assertEquals(List.of(), logs.linesContaining(WRONG_SECRET), "the secret key was logged");
            assertEquals(List.of(), logs.linesContaining(S3ProxyServer.SECRET_KEY), "a secret key was logged");
            assertTrue(!result.toString().contains(WRONG_SECRET), "the secret is in the validate answer");
        }
    }

    @Test
    void theServerGoingAwayIsRetriedThroughTheWorkerAndLosesNothing() throws Exception {
        String topic = "sensor-events-s3-outage";
        String connector = "delta-s3-outage";
        String table = "s3a://" + BUCKET + "/delta/outage";
        cluster.harness().createTopic(topic);
        List<Sent> sent = new ArrayList<>(cluster.harness().produce(topic, SensorFeed.good(0, 300)));
        cluster.harness().startConnector(connector, config(topic, table));
        awaitCaughtUp(connector, topic, table);

        try (LogCapture logs = new LogCapture(DEBUG_LOGGERS)) {
            s3.server().stop();
            try {
                sent.addAll(cluster.harness().produce(topic, SensorFeed.good(300, 300)));
                String endpoint = "s3.endpoint=" + s3.server().endpoint();
                ConnectHarness.awaitCondition(() -> logs.lines().stream()
                        .filter(l -> l.startsWith("ERROR") && l.contains("RetriableException from SinkTask")).count() >= 2,
                        Duration.ofMinutes(2), () -> "the task did not retry through the worker");
                cluster.harness().failOnFailedTask(connector);
                assertTrue(logs.lines().stream().anyMatch(l -> l.startsWith("WARN io.deltasink") && l.contains(endpoint)),
                        "a WARN names " + endpoint);
            } finally {
                s3.server().start();
            }
            sent.addAll(cluster.harness().produce(topic, SensorFeed.good(600, 150)));
            awaitCaughtUp(connector, topic, table);
            assertEquals(List.of(), logs.linesContaining(S3ProxyServer.SECRET_KEY), "the secret key was logged");
        }

        Set<Coordinates> expected = new TreeSet<>(SensorFeed.expectedRows(sent).keySet());
        Set<Coordinates> got = new TreeSet<>();
        List<Map<String, Object>> rows = DeltaTableReader.readAll(table, s3.server().hadoopConf());
        for (Map<String, Object> row : rows) {
            assertTrue(got.add(ExactlyOnce.coordinates(row)), "duplicate row " + ExactlyOnce.coordinates(row));
        }
        assertEquals(expected, got);
        assertEquals(750, rows.size());
    }
}
