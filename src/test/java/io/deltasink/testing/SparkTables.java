package io.deltasink.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Delta tables read by Spark SQL with Delta Lake (src/test/spark/TableReader.java) in a JVM of its
 * own on the class path src/test/spark/pom.xml resolves, so Spark's Scala, Jackson and Hadoop
 * never meet the connector's test class path. One Spark serves every *SparkIT of a test run: it
 * starts at the first read and stops when this JVM exits. Needs failsafe (mvn verify), which
 * resolves the class path first.
 */
public final class SparkTables {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long TIMEOUT_MINUTES = 5;
    private static Process spark;
    private static Writer requests;
    private static BlockingQueue<String> lines;
    private static Path err;

    private SparkTables() {
    }

    /** What Spark gave for one table: its schema and rows (one JSON object each, nulls kept), or its error. */
    public record Read(JsonNode schema, List<JsonNode> rows, String error) {
        /** The schema's field {@code name}. */
        public JsonNode field(String name) {
            for (JsonNode f : schema.get("fields")) {
                if (f.get("name").asText().equals(name)) {
                    return f;
                }
            }
            throw new AssertionError("no field " + name + " in " + schema);
        }

        /** The Spark type name of a flat field. */
        public String type(String name) {
            return field(name).get("type").asText();
        }
    }

    /**
     * Reads each table, by label: the value is a table path (a plain read) or
     * {@code cdf:<startingVersion>:<endingVersion or ->:<schema mode or ->:<path>} (readChangeFeed).
     */
    public static synchronized Map<String, Read> read(Map<String, String> specs) throws IOException, InterruptedException {
        start();
        for (Map.Entry<String, String> spec : specs.entrySet()) {
            requests.write(spec.getKey() + "=" + spec.getValue() + "\n");
        }
        requests.flush();
        Map<String, JsonNode> schemas = new HashMap<>();
        Map<String, List<JsonNode>> rows = new HashMap<>();
        Map<String, Integer> counts = new HashMap<>();
        Map<String, String> errors = new HashMap<>();
        int done = 0;
        while (done < specs.size()) {
            String line = lines.poll(TIMEOUT_MINUTES, TimeUnit.MINUTES);
            if (line == null || line.equals(EOF)) {
                stop();
                throw new AssertionError((line == null ? "Spark did not answer in " + TIMEOUT_MINUTES + " minutes"
                        : "Spark ended") + ":\n" + tail(err));
            }
            String[] parts = line.split(" ", 3);
            switch (parts[0]) {
                case "SCHEMA" -> schemas.put(parts[1], JSON.readTree(parts[2]));
                case "ROW" -> rows.computeIfAbsent(parts[1], l -> new ArrayList<>()).add(JSON.readTree(parts[2]));
                case "ROWS" -> counts.put(parts[1], Integer.parseInt(parts[2]));
                case "ERROR" -> errors.put(parts[1], parts[2]);
                case "DONE" -> done++;
                default -> { }
            }
        }
        Map<String, Read> reads = new HashMap<>();
        for (String label : specs.keySet()) {
            List<JsonNode> read = rows.getOrDefault(label, List.of());
            if (!errors.containsKey(label)) {
                assertEquals(counts.get(label), read.size(), () -> "Spark's output of " + label + " is incomplete");
            }
            reads.put(label, new Read(schemas.get(label), read, errors.get(label)));
        }
        return reads;
    }

    private static final String EOF = "\u0000EOF";

    private static void start() throws IOException {
        if (spark != null && spark.isAlive()) {
            return;
        }
        String classpathFile = System.getProperty("spark.reader.classpath");
        assertNotNull(classpathFile, "system property spark.reader.classpath is not set: run this test through "
                + "failsafe (mvn verify), which resolves Spark's class path first");
        String classpath = Files.readString(Path.of(classpathFile)).trim();
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx1g");
        command.addAll(SPARK_JAVA_OPTIONS);
        command.add("-cp");
        command.add(classpath);
        command.add(Path.of("src", "test", "spark", "TableReader.java").toAbsolutePath().toString());
        err = Files.createTempFile("spark-reader", ".err");
        spark = new ProcessBuilder(command).redirectError(err.toFile()).start();
        requests = new java.io.OutputStreamWriter(spark.getOutputStream(), StandardCharsets.UTF_8);
        BlockingQueue<String> queue = new LinkedBlockingQueue<>();
        lines = queue;
        Process started = spark;
        Thread out = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(
                    new InputStreamReader(started.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    queue.add(line);
                }
            } catch (IOException e) {
                // the process ended
            } finally {
                queue.add(EOF);
            }
        }, "spark-reader-output");
        out.setDaemon(true);
        out.start();
        Runtime.getRuntime().addShutdownHook(new Thread(SparkTables::stop, "spark-reader-stop"));
    }

    /** Ends the reader: it stops Spark when its input ends. */
    private static synchronized void stop() {
        if (spark == null) {
            return;
        }
        try {
            requests.close();
            if (!spark.waitFor(30, TimeUnit.SECONDS)) {
                spark.destroyForcibly();
            }
        } catch (IOException e) {
            spark.destroyForcibly();
        } catch (InterruptedException e) {
            spark.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            spark = null;
        }
    }

    private static String tail(Path file) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - 60), all.size()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What Spark's launcher adds on Java 17 (its JavaModuleOptions). */
    public static final List<String> SPARK_JAVA_OPTIONS = List.of(
            "-XX:+IgnoreUnrecognizedVMOptions",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.net=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
            "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
            "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
            "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
            "-Djdk.reflect.useDirectMethodHandle=false",
            "-Dio.netty.tryReflectionSetAccessible=true");
}
