package io.deltasink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.testing.LogCapture;
import io.deltasink.testing.S3ProxyServer;
import io.deltasink.testing.S3Server;

/**
 * {@code Connector.validate()} looks at the bucket of an s3a:// table through a real S3 server
 * (S3Proxy) and puts what it finds on the setting to fix, in bounded time, never quoting a secret.
 */
class S3ValidationTest {
    static final String BUCKET = "validated";
    static final String WRONG_SECRET = "wrong-secret-Vn5tR8wQ1";
    static final String[] DEBUG_LOGGERS = {"org.apache.hadoop.fs.s3a", "software.amazon.awssdk", "io.deltasink"};
    /** A guard against a hanging validate(), far above the probe's own bound. */
    static final Duration HANG_GUARD = Duration.ofSeconds(60);

    @TempDir
    static Path dir;
    @RegisterExtension
    static final S3Server s3 = new S3Server(BUCKET);

    @BeforeAll
    static void startServer() {
        // The first S3 client of a JVM spends seconds loading the SDK; a probe that cannot finish in its
        // bound reports nothing, so warm up here for the probes below to be bounded by the network only.
        try {
            new DeltaSinkConnector().validate(props(Map.of()));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, String> props(Map<String, String> overrides) throws Exception {
        Map<String, String> props = DeltaSinkConnectorTest.presetConfig();
        props.put("table.location", "s3a://" + BUCKET + "/delta/sensor_events");
        props.putAll(s3.server().connectorSettings());
        props.putAll(overrides);
        return props;
    }

    private static Config validate(Map<String, String> props) {
        return assertTimeoutPreemptively(HANG_GUARD, () -> new DeltaSinkConnector().validate(props));
    }

    /** Field -> its error messages, only fields with errors. */
    private static Map<String, List<String>> errors(Config config) {
        Map<String, List<String>> out = new java.util.TreeMap<>();
        for (ConfigValue v : config.configValues()) {
            if (!v.errorMessages().isEmpty()) {
                out.put(v.name(), v.errorMessages());
            }
        }
        return out;
    }

    private static List<String> only(Map<String, List<String>> errors, String field) {
        assertEquals(List.of(field), new ArrayList<>(errors.keySet()), errors.toString());
        assertEquals(1, errors.get(field).size(), errors.toString());
        return errors.get(field);
    }

    @Test
    void aReachableBucketWithGoodKeysValidatesCleanly() throws Exception {
        assertEquals(Map.of(), errors(validate(props(Map.of()))));
    }

    @Test
    void aWrongSecretKeyIsReportedOnTheSecretKeyWithoutShowingIt() throws Exception {
        try (LogCapture logs = new LogCapture(DEBUG_LOGGERS)) {
            Config config = validate(props(Map.of("s3.secret.key", WRONG_SECRET)));
            String message = only(errors(config), "s3.secret.key").get(0);
            assertTrue(message.contains("403") && message.contains("s3.secret.key"), message);
            assertTrue(logs.lines().size() > 5, "the capture sees S3A at DEBUG");
            assertEquals(List.of(), logs.linesContaining(WRONG_SECRET), "the secret key was logged");
            assertEquals(List.of(), logs.linesContaining(S3ProxyServer.SECRET_KEY), "a secret key was logged");
            assertTrue(config.configValues().stream().noneMatch(v -> String.valueOf(v.errorMessages()).contains(WRONG_SECRET)));
        }
    }

    @Test
    void aMissingBucketIsReportedOnTheTableLocation() throws Exception {
        Config config = validate(props(Map.of("table.location", "s3a://no-such-bucket-q2/delta/sensor_events")));
        String message = only(errors(config), "table.location").get(0);
        assertTrue(message.contains("'no-such-bucket-q2'") && message.contains("does not exist"), message);
    }

    @Test
    void aClosedPortIsReportedOnTheEndpoint() throws Exception {
        String endpoint = "http://127.0.0.1:" + closedPort();
        String message = only(errors(validate(props(Map.of("s3.endpoint", endpoint)))), "s3.endpoint").get(0);
        assertTrue(message.startsWith("Cannot reach S3 at s3.endpoint=" + endpoint), message);
    }

    @Test
    void anUnknownHostIsReportedOnTheEndpoint() throws Exception {
        String message = only(errors(validate(props(Map.of("s3.endpoint", "http://no-such-host.invalid:9000")))),
                "s3.endpoint").get(0);
        assertTrue(message.contains("'no-such-host.invalid'") && message.contains("fix s3.endpoint"), message);
    }

    @Test
    void aServerThatNeverAnswersEndsTheProbeAtItsBoundWithoutAnError() throws Exception {
        // S3A waits at least 15 s for an answer; validate() gives up earlier and leaves it to the task
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             LogCapture logs = new LogCapture()) {
            List<Socket> accepted = new ArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (!silent.isClosed()) {
                        accepted.add(silent.accept()); // accepts and never answers
                    }
                } catch (IOException closed) {
                    // test over
                }
            }, "silent-s3");
            acceptor.setDaemon(true);
            acceptor.start();
            String endpoint = "http://127.0.0.1:" + silent.getLocalPort();
            assertEquals(Map.of(), errors(validate(props(Map.of("s3.endpoint", endpoint)))));
            assertEquals(1, logs.lines().stream().filter(l -> l.startsWith("WARN")
                    && l.contains("Could not check the bucket of s3a://" + BUCKET)).distinct().count(), "the WARN says why");
        }
    }

    @Test
    void aLocalTableIsNotProbed() throws Exception {
        Map<String, String> props = DeltaSinkConnectorTest.presetConfig();
        props.put("table.location", dir.resolve("local").toString());
        props.put("s3.endpoint", "http://no-such-host.invalid:9000");
        assertEquals(Map.of(), errors(validate(props)));
    }

    private static int closedPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
