package io.deltasink.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;

/**
 * A real S3 HTTP server on 127.0.0.1 for tests: S3Proxy with its filesystem backend in a
 * directory the test owns, fixed test credentials, one bucket.
 *
 * <p>S3Proxy runs in a child JVM from its self-contained jar (copied to target/s3proxy by the
 * build): it is built on a newer AWS SDK than the one hadoop-aws needs, and on another Jetty
 * than Connect's, so it cannot share the test JVM's class path. {@link #stop()} kills the
 * process and keeps the data; {@link #start()} again serves the same data on the same port.
 */
public final class S3ProxyServer implements AutoCloseable {
    public static final String ACCESS_KEY = "test-access-key";
    /** Long and distinctive so a test can search logs and messages for it. */
    public static final String SECRET_KEY = "test-secret-Zq8vW3xK9mP2rT7y";
    public static final String REGION = "us-east-1";

    private final Path baseDir;
    private final String bucket;
    private final int port;
    private volatile Process process;
    private Thread shutdownHook;

    public S3ProxyServer(Path workDir, String bucket) {
        this.baseDir = workDir.toAbsolutePath();
        this.bucket = bucket;
        this.port = freePort();
    }

    /** Starts (or restarts) the server on its port; the bucket is a folder of the backend. */
    public synchronized S3ProxyServer start() {
        if (process != null && process.isAlive()) {
            return this;
        }
        try {
            Files.createDirectories(dataDir().resolve(bucket));
            Path props = baseDir.resolve("s3proxy.properties");
            Properties p = new Properties();
            p.setProperty("s3proxy.endpoint", endpoint());
            p.setProperty("s3proxy.authorization", "aws-v2-or-v4");
            p.setProperty("s3proxy.identity", ACCESS_KEY);
            p.setProperty("s3proxy.credential", SECRET_KEY);
            p.setProperty("jclouds.provider", "filesystem-nio2");
            p.setProperty("jclouds.filesystem.basedir", dataDir().toString());
            p.setProperty("jclouds.identity", ACCESS_KEY);
            p.setProperty("jclouds.credential", SECRET_KEY);
            try (OutputStream out = Files.newOutputStream(props)) {
                p.store(out, "S3Proxy for tests");
            }
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.add("-Xmx256m");
            cmd.add("-XX:+UseSerialGC");
            cmd.add("-cp");
            cmd.add(jar().toString());
            cmd.add("org.gaul.s3proxy.Main");
            cmd.add("--properties");
            cmd.add(props.toString());
            Path log = baseDir.resolve("s3proxy.log");
            process = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            if (shutdownHook == null) {
                // a test JVM that dies must not leave the server running
                shutdownHook = new Thread(() -> {
                    Process p2 = process;
                    if (p2 != null) {
                        p2.destroyForcibly();
                    }
                }, "s3proxy-shutdown");
                Runtime.getRuntime().addShutdownHook(shutdownHook);
            }
            awaitReady(log);
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start S3Proxy on port " + port, e);
        }
    }

    /** Kills the server process; the objects stay in the data folder for a restart. */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            process = null;
        }
    }

    @Override
    public void close() {
        stop();
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway
            }
            shutdownHook = null;
        }
    }

    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    public String bucket() {
        return bucket;
    }

    /** Where the filesystem backend keeps the bucket's objects, one file per key. */
    public Path bucketDir() {
        return dataDir().resolve(bucket);
    }

    /** The connector's s3.* settings for this server (path-style access, plain HTTP). */
    public Map<String, String> connectorSettings() {
        return Map.of(
                "s3.endpoint", endpoint(),
                "s3.region", REGION,
                "s3.access.key", ACCESS_KEY,
                "s3.secret.key", SECRET_KEY,
                "s3.path.style.access", "true",
                "s3.ssl.enabled", "false");
    }

    /** A Hadoop configuration whose S3A client talks to this server: for independent reads. */
    public Configuration hadoopConf() {
        Configuration conf = new Configuration();
        conf.set("fs.s3a.endpoint", endpoint());
        conf.set("fs.s3a.endpoint.region", REGION);
        conf.set("fs.s3a.access.key", ACCESS_KEY);
        conf.set("fs.s3a.secret.key", SECRET_KEY);
        conf.setBoolean("fs.s3a.path.style.access", true);
        conf.setBoolean("fs.s3a.connection.ssl.enabled", false);
        conf.setBoolean("fs.s3a.impl.disable.cache", true);
        conf.setInt("fs.s3a.attempts.maximum", 2);
        conf.setInt("fs.s3a.retry.limit", 2);
        return conf;
    }

    private Path dataDir() {
        return baseDir.resolve("data");
    }

    /** Waits until the server answers HTTP on its port. */
    private void awaitReady(Path log) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("S3Proxy exited with " + process.exitValue() + ": "
                        + Files.readString(log));
            }
            try {
                HttpURLConnection c = (HttpURLConnection) URI.create(endpoint() + "/").toURL().openConnection();
                c.setConnectTimeout(500);
                c.setReadTimeout(2000);
                c.getResponseCode(); // any HTTP answer (403 without credentials) means it serves
                c.disconnect();
                return;
            } catch (IOException notYet) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("Interrupted while S3Proxy starts", e);
                }
            }
        }
        stop();
        throw new IllegalStateException("S3Proxy did not answer on " + endpoint() + " within 60 s: "
                + Files.readString(log));
    }

    private static Path jar() {
        String configured = System.getProperty("s3proxy.jar");
        Path jar = configured != null ? Path.of(configured) : Path.of("target", "s3proxy", "s3proxy.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("No S3Proxy jar at " + jar.toAbsolutePath()
                    + ": the build copies it there in generate-test-resources (mvn test-compile)");
        }
        return jar;
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
