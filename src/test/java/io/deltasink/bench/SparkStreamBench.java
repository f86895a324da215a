package io.deltasink.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.util.clusters.EmbeddedKafkaCluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.deltasink.proc.TableProgress;
import io.deltasink.testing.SparkTables;
import io.deltasink.testing.TableLocation;

/**
 * The seed's Spark Structured Streaming job (src/test/spark/SensorStream.java: Spark 4.2, Delta
 * Lake for Spark 4.4, local[2], -Xmx512m) measured as {@link ThroughputBench} measures the
 * connector: the same 3-partition topic filled with the same N sensor events, then the time from
 * the launch of the Spark job's JVM (Spark's own start included, as the connector's creation
 * includes its task's start) until the table's commits hold N rows, counted from the
 * {@code stats.numRecords} of each new commit file's {@code add} actions as it lands; then a
 * Kernel scan must count exactly N rows. Also printed: the time from the query's start (as the job
 * reports it) to done. Peak heap comes from the Spark JVM's GC log. Run from the project root:
 * {@code mvn -q -B -Pbench test-compile exec:java -Dbench.main=io.deltasink.bench.SparkStreamBench -Dexec.args="N"}.
 * The Spark class path is src/test/spark/pom.xml's, resolved by Maven into
 * target/spark-reader.classpath when that file is missing or older than the pom.
 */
public final class SparkStreamBench {
    private static final String HEAP = "512m";
    private static final Path SPARK_DIR = Path.of("src", "test", "spark");
    private static final Path CLASSPATH_FILE = Path.of("target", "spark-reader.classpath");
    private static final ObjectMapper JSON = new ObjectMapper();

    private SparkStreamBench() {
    }

    /**
     * Args: [events, default 1000000] [runs=N, default 1]: N runs of the job one after the other against
     * the same broker and topic, each with a table, checkpoint and JVM of its own, one line each.
     */
    public static void main(String[] args) throws Exception {
        BenchArgs parsed = BenchArgs.parse(List.of("runs"), args);
        int events = Math.toIntExact(parsed.count(0, 1_000_000));
        int runs = Integer.parseInt(parsed.single("runs", "1"));
        double loadBefore = ThroughputBench.loadAverage();
        Path dir = Files.createTempDirectory("spark-bench-");
        String sparkClasspath = sparkClasspath();
        Path classes = compileJob(dir.resolve("classes"), sparkClasspath);
        EmbeddedKafkaCluster kafka = new EmbeddedKafkaCluster(1, new Properties());
        kafka.start();
        List<String> lines = new ArrayList<>();
        try (Admin admin = kafka.createAdminClient()) {
            kafka.createTopic(ThroughputBench.TOPIC, ThroughputBench.PARTITIONS);
            long produceStart = System.nanoTime();
            ThroughputBench.produce(kafka.bootstrapServers(), events, 0);
            Map<TopicPartition, Long> ends = TableProgress.endOffsets(admin,
                    TableProgress.partitions(ThroughputBench.TOPIC, ThroughputBench.PARTITIONS));
            System.out.printf(Locale.ROOT, "produced %,d events to %d partitions in %.1f s: end offsets %s%n", events,
                    ThroughputBench.PARTITIONS, (System.nanoTime() - produceStart) / 1e9, ends);
            for (int i = 0; i < runs; i++) {
                Path runDir = Files.createDirectories(dir.resolve("run-" + i));
                try (TableLocation table = TableLocation.local(runDir.resolve("sensor_events"))) {
                    System.out.println("run " + i + ": " + runDir);
                    lines.add(run(kafka.bootstrapServers(), table, runDir, classes, sparkClasspath, events));
                }
            }
        } finally {
            kafka.stop();
        }
        System.out.println();
        System.out.println("=== SparkStreamBench: " + String.format(Locale.ROOT, "%,d", events)
                + " events, Spark local[2], driver -Xmx" + HEAP + ", default trigger, no maxOffsetsPerTrigger ===");
        System.out.printf(Locale.ROOT, "%9s %7s %11s %7s %6s %7s %9s %10s %s%n", "events/s", "seconds", "query->done",
                "batches", "files", "MB", "peak heap", "GC pauses", "rows");
        lines.forEach(System.out::println);
        System.out.printf(Locale.ROOT, "machine: %d cores, load average %.1f before, %.1f after; work dir %s%n",
                Runtime.getRuntime().availableProcessors(), loadBefore, ThroughputBench.loadAverage(), dir);
        for (String line : lines) {
            if (!line.contains("= N")) {
                throw new IllegalStateException("a table does not hold the " + events + " events");
            }
        }
    }

    private static String run(String bootstrap, TableLocation table, Path dir, Path classes, String sparkClasspath,
                              int events) throws Exception {
        Path gcLog = dir.resolve("spark-gc.log");
        Path err = dir.resolve("spark.err");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx" + HEAP);
        command.add("-Xlog:gc:file=" + gcLog);
        command.addAll(SparkTables.SPARK_JAVA_OPTIONS);
        command.add("-cp");
        command.add(classes + java.io.File.pathSeparator + sparkClasspath);
        command.add("SensorStream");
        command.addAll(List.of(bootstrap, ThroughputBench.TOPIC, table.files().toString(),
                dir.resolve("checkpoint").toString()));
        long start = System.nanoTime();
        long launchMillis = System.currentTimeMillis();
        Process spark = new ProcessBuilder(command).redirectError(err.toFile()).start();
        JobOutput out = new JobOutput(spark);
        try {
            long batches = awaitRows(table, events, spark, err);
            long end = System.nanoTime();
            long doneMillis = System.currentTimeMillis();
            double seconds = (end - start) / 1e9;
            spark.getOutputStream().close(); // the job stops its query and Spark when its input ends
            if (!spark.waitFor(60, TimeUnit.SECONDS)) {
                spark.destroyForcibly();
            }
            out.reader.join(5_000);
            long version = table.version();
            long files = 0;
            for (long v = 0; v <= version; v++) {
                for (JsonNode action : table.actionsOfFile(v)) {
                    files += action.has("add") ? 1 : action.has("remove") ? -1 : 0;
                }
            }
            double mb = ThroughputBench.parquetBytes(table.files()) / 1e6;
            GcLog gc = GcLog.read(gcLog);
            long rows = table.rowCount();
            double queryStart = out.startedMillis > 0 ? (out.startedMillis - launchMillis) / 1e3 : Double.NaN;
            double queryToDone = out.startedMillis > 0 ? (doneMillis - out.startedMillis) / 1e3 : Double.NaN;
            System.out.printf(Locale.ROOT, "  %.1f s from the JVM's launch (%,.0f events/s); query started after %.1f s, "
                    + "%.1f s from its start to done; %d batches (Delta versions), %d data files, %d table partitions%n",
                    seconds, events / seconds, queryStart, queryToDone, batches, files,
                    table.dataDirectories().size());
            System.out.printf(Locale.ROOT, "  heap: peak %d MB used when a pause began, at most %d MB left after a "
                    + "collection (%d), capacity %d MB; %d pauses, %.0f ms in all%n", gc.maxBefore(), gc.maxAfter(),
                    gc.collections(), gc.maxCapacity(), gc.pauses(), gc.pauseMs());
            System.out.println("  Spark's batches: " + out.batches);
            return String.format(Locale.ROOT, "%,9.0f %7.1f %11.1f %7d %6d %7.1f %6d MB %7.0f ms %s", events / seconds,
                    seconds, queryToDone, batches, files, mb, gc.maxBefore(), gc.pauseMs(),
                    rows == events ? String.format(Locale.ROOT, "%,d = N", rows)
                            : String.format(Locale.ROOT, "%,d NOT N", rows));
        } finally {
            if (spark.isAlive()) {
                spark.destroyForcibly();
            }
        }
    }

    /**
     * Waits until the commits hold {@code events} rows, summing {@code stats.numRecords} of the add
     * actions of each new commit file as it lands (version 0 is Spark's first batch); returns the
     * number of commits. Fails when the job ends first or after 30 minutes.
     */
    private static long awaitRows(TableLocation table, int events, Process spark, Path err)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
        long rows = 0;
        long read = -1;
        while (true) {
            long latest = table.latestVersion();
            for (long v = read + 1; v <= latest; v++) {
                for (JsonNode action : table.actionsOfFile(v)) {
                    if (action.has("add")) {
                        rows += JSON.readTree(action.get("add").get("stats").asText()).get("numRecords").asLong();
                    } else if (action.has("remove")) {
                        throw new IllegalStateException("a remove action at version " + v + ": " + action);
                    }
                }
            }
            read = latest;
            if (rows >= events) {
                return latest + 1;
            }
            if (!spark.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException((spark.isAlive() ? "not done after 30 minutes" : "the Spark job ended")
                        + " with " + rows + " rows at version " + latest + ":\n" + tail(err));
            }
            Thread.sleep(50);
        }
    }

    /** The job's standard output, read on a thread of its own: the query's start and each batch. */
    private static final class JobOutput {
        volatile long startedMillis;
        final List<String> batches = java.util.Collections.synchronizedList(new ArrayList<>());
        final Thread reader;

        JobOutput(Process spark) {
            reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(
                        new InputStreamReader(spark.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = in.readLine(); line != null; line = in.readLine()) {
                        if (line.startsWith("STARTED ")) {
                            startedMillis = Long.parseLong(line.substring(8).trim());
                        } else if (line.startsWith("BATCH ")) {
                            String[] parts = line.split(" ");
                            batches.add(parts[1] + ": " + parts[2] + " rows");
                        }
                    }
                } catch (IOException e) {
                    // the job ended
                }
            }, "spark-stream-output");
            reader.setDaemon(true);
            reader.start();
        }
    }

    /** Spark's class path from src/test/spark/pom.xml, resolved by Maven when missing or older than the pom. */
    private static String sparkClasspath() throws IOException, InterruptedException {
        Path pom = SPARK_DIR.resolve("pom.xml");
        if (!Files.exists(CLASSPATH_FILE)
                || Files.getLastModifiedTime(CLASSPATH_FILE).compareTo(Files.getLastModifiedTime(pom)) < 0) {
            String home = System.getProperty("maven.home");
            String mvn = home == null ? "mvn" : Path.of(home, "bin", "mvn").toString();
            Process resolve = new ProcessBuilder(mvn, "-B", "-q", "-f", pom.toString(),
                    "-Dmdep.outputFile=" + CLASSPATH_FILE.toAbsolutePath(), "dependency:build-classpath")
                    .inheritIO().start();
            if (resolve.waitFor() != 0) {
                throw new IllegalStateException("Maven could not resolve the class path of " + pom);
            }
        }
        return Files.readString(CLASSPATH_FILE).trim();
    }

    /** Compiles the job before the clock runs (Java's source launcher would compile it in the timed JVM). */
    private static Path compileJob(Path classes, String sparkClasspath) throws IOException {
        Files.createDirectories(classes);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, "-proc:none", "-d", classes.toString(), "-cp", sparkClasspath,
                SPARK_DIR.resolve("SensorStream.java").toString());
        if (rc != 0) {
            throw new IllegalStateException("SensorStream.java does not compile");
        }
        return classes;
    }

    private static String tail(Path file) throws IOException {
        List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
        return String.join("\n", all.subList(Math.max(0, all.size() - 60), all.size()));
    }
}
