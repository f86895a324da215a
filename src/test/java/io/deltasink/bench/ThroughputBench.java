package io.deltasink.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.util.clusters.EmbeddedKafkaCluster;

import io.deltasink.dist.ComponentZip;
import io.deltasink.proc.Jdks;
import io.deltasink.proc.PlainWorker;
import io.deltasink.proc.Preset;
import io.deltasink.proc.TableProgress;
import io.deltasink.proc.WorkerProcess;
import io.deltasink.testing.S3ProxyServer;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.TableLocation;

/**
 * Throughput and heap of the connector on a small worker: fills a 3-partition topic with N sensor
 * events, then, for each configuration asked for, starts a Connect worker JVM with -Xmx256m, creates
 * the connector from the sensor-events preset (default flush settings) and measures the time from
 * the connector's creation until the table's txn versions equal the topic's end offsets; then counts
 * the table's rows with a scan, which must equal N (exactly once). One row per configuration in a
 * table at the end. "steady/s" is the rate between the commits holding a quarter and nine tenths of
 * the events, by their commit timestamps: the worker warm, its start and the last flush left out.
 *
 * <p>Options, each with one value or several separated by commas (every combination is run, against
 * the same topic, each on a table and worker of its own): {@code tasks=1,2,3} (tasks.max),
 * {@code compression=snappy,zstd} (parquet.compression), {@code background=true,false}
 * (writer.background; default false, the connector's), {@code value=string,bytes} (the worker's StringConverter or, as the presets
 * ship, ByteArrayConverter for the value; default bytes), {@code partitions=P} (spreads the events
 * over P table partitions, 20 device types x P/20 days, each event in another partition than the one
 * before, as a replay of many days would; without it they go to the seed's two device types on one
 * day), {@code storage=s3} (the table on an S3 server, S3Proxy on 127.0.0.1 in a JVM of its own,
 * through the MinIO preset), {@code fetch=N} (the consumer's fetch.max.bytes through
 * consumer.override.*; default the preset's, {@code kafka} Kafka's own 50 MiB), {@code poll=N} (its
 * max.poll.records), {@code group=classic,consumer} (its group.protocol), {@code jvm=bare,kafka,-XX:...}
 * (the worker's JVM options besides its heap: the JDK's own, those of Kafka's start scripts, or one
 * option as it is), {@code worker=classpath,plugin} (the connector on the worker's class path, or
 * unzipped from the component archive into a plain worker's plugin.path, as installed: run
 * {@code mvn -Pbench -DskipTests verify} first), {@code convert=N} (the connector's convert.threads; default
 * the connector's own), {@code java=N} (the worker on an installed JDK of
 * release N; default this JVM's), {@code aot=none,cache,cds} (the measured worker starts from a file
 * that an untimed run of the same worker over the same topic wrote: an AOT cache, Java 25, or a class
 * data archive, {@code -XX:ArchiveClassesAtExit}). {@code warm=N} reads the whole topic N times with a
 * plain consumer before the first run and prints the rate (the broker's raw consumption);
 * {@code warmup=N} makes N untimed runs of the first configuration before the timed ones, each on a
 * table and worker of its own, left out of the table. {@code ceiling=N} runs {@link WorkerCeilingBench}'s
 * sink that drops the records N times before the runs and N times after, on the same topic with the
 * first configuration's tasks and worker options, and prints each run's share of their median, to read
 * the runs against the machine's speed during the call (it moves by a third within an hour).
 * {@code jfr=profile} records the
 * worker with the JDK's "profile" settings instead of "default" and keeps the recording for a look at
 * hot methods and allocation.
 *
 * <p>Peak heap comes from the worker's GC log (-Xlog:gc): the largest heap occupancy seen when a
 * collection started (everything allocated, garbage included) and the largest left after one (the
 * live set plus what survived); GC time is the sum of all pauses. Forks are the child processes the
 * worker started between the connector's creation and the end, from its Flight Recorder file. "CPU s
 * (JIT)" is the worker's CPU time from the connector's creation to the end and the part of it its JIT
 * compilers took ({@link ThreadCpu}, Linux); the run's lines also give the task, writer, conversion
 * and GC threads' parts, the CPU of the bench's own JVM (the broker), and how long the worker's threads
 * waited for a core while runnable (Linux's scheduler statistics). Run from the project root:
 * {@code mvn -q -B -Pbench test-compile exec:java -Dexec.args="N [flush ms] [tasks=..] [compression=..] ..."}.
 */
public final class ThroughputBench {
    static final String TOPIC = "sensor-events";
    static final int PARTITIONS = 3;
    private static final String HEAP = "256m";
    private static final String BUCKET = "sensor-data";
    private static final int DEVICE_TYPES = 20;
    private static final String FETCH_MAX_BYTES = "consumer.override.fetch.max.bytes";
    private static final List<String> OPTIONS = List.of("tasks", "compression", "background", "convert", "value", "partitions",
            "storage",
            "jfr", "poll", "fetch", "jvm", "group", "worker", "java", "aot", "warm", "warmup", "ceiling");
    /** The defaults of the options about the worker, its consumer and the task's threads, in the table's order. */
    private static final Map<String, String> WORKER_DEFAULTS = orderedMap("group", "classic", "worker", "classpath",
            "java", "this", "aot", "none", "convert", "default");
    /** kafka-run-class.sh's KAFKA_JVM_PERFORMANCE_OPTS (less -server and MaxInlineLevel=15, the JDK's own defaults now). */
    private static final List<String> KAFKA_SCRIPT_JVM = List.of("-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
            "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent", "-Djava.awt.headless=true");

    private ThroughputBench() {
    }

    /** The figures of one run. */
    record Result(Map<String, String> run, long events, double seconds, long commits, long files, double mb,
                  GcLog gc, long liveAfterMb, ForkCount forks, long rows, double steady, ThreadCpu workerCpu) {
    }

    /**
     * Args: [events, default 1000000] [worker offset.flush.interval.ms, default 1000] [tasks=1,..]
     * [compression=snappy,..] [partitions=P] [storage=s3] [jfr=default|profile] [poll=default,N,..] (the
     * consumer's max.poll.records, through consumer.override.*; default: the preset's, else Kafka's 500)
     * [fetch=default,kafka,N,..] (its fetch.max.bytes; default: the preset's) [jvm=bare,kafka,-XX:..,..]
     * [group=classic,consumer] [worker=classpath,plugin] [java=N] [aot=none,cache,cds] [convert=default,N,..]
     * [warm=N] [warmup=N] [ceiling=N].
     */
    public static void main(String[] args) throws Exception {
        BenchArgs parsed = BenchArgs.parse(OPTIONS, args);
        int events = Math.toIntExact(parsed.count(0, 1_000_000));
        String flushIntervalMs = parsed.positional(1, "1000");
        int tablePartitions = Integer.parseInt(parsed.single("partitions", "0"));
        boolean s3 = parsed.single("storage", "local").equals("s3");
        String jfrSettings = parsed.single("jfr", "default");
        int warmReads = Integer.parseInt(parsed.single("warm", "0"));
        int warmupRuns = Integer.parseInt(parsed.single("warmup", "0"));
        int ceilingRuns = Integer.parseInt(parsed.single("ceiling", "0"));
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("tasks", "1");
        keys.put("compression", "snappy");
        keys.put("background", "false");
        keys.put("value", "bytes");
        keys.put("poll", "default");
        keys.put("fetch", "default");
        keys.put("jvm", "bare");
        keys.putAll(WORKER_DEFAULTS);
        List<Map<String, String>> runs = parsed.runs(keys);

        double loadBefore = loadAverage();
        Path dir = Files.createTempDirectory("delta-bench-");
        S3ProxyServer server = s3 ? new S3ProxyServer(dir.resolve("s3"), BUCKET).start() : null;
        EmbeddedKafkaCluster kafka = new EmbeddedKafkaCluster(1, new Properties());
        kafka.start();
        List<Result> results = new ArrayList<>();
        List<Double> ceilingBefore = new ArrayList<>();
        List<Double> ceilingAfter = new ArrayList<>();
        try (Admin admin = kafka.createAdminClient()) {
            kafka.createTopic(TOPIC, PARTITIONS);
            long produceStart = System.nanoTime();
            produce(kafka.bootstrapServers(), events, tablePartitions);
            double produceSeconds = (System.nanoTime() - produceStart) / 1e9;
            Map<TopicPartition, Long> ends = TableProgress.endOffsets(admin, TableProgress.partitions(TOPIC, PARTITIONS));
            System.out.printf(Locale.ROOT, "produced %,d events to %d partitions in %.1f s: end offsets %s%n",
                    events, PARTITIONS, produceSeconds, ends);
            for (int i = 1; i <= warmReads; i++) {
                long readStart = System.nanoTime();
                long[] read = {0};
                TableProgress.readUpTo(kafka.bootstrapServers(), ends, Duration.ofMinutes(5), r -> read[0]++);
                double readSeconds = (System.nanoTime() - readStart) / 1e9;
                System.out.printf(Locale.ROOT, "broker warm-up, read %d of %d: %,d events in %.2f s (%,.0f events/s)%n",
                        i, warmReads, read[0], readSeconds, read[0] / readSeconds);
            }
            ceilingBefore.addAll(ceilingRuns(kafka, admin, ends, runs.get(0), ceilingRuns, 0, dir, flushIntervalMs,
                    events));
            for (int i = 0; i < warmupRuns + runs.size(); i++) {
                boolean warmup = i < warmupRuns;
                Path runDir = dir.resolve("run-" + i);
                TableLocation table = s3 ? TableLocation.onS3(server, "delta/run-" + i + "/sensor_events")
                        : TableLocation.local(runDir.resolve("sensor_events"));
                if (warmup) {
                    System.out.println("warm-up run " + (i + 1) + " of " + warmupRuns + " (not in the table below):");
                }
                try {
                    Result result = run(kafka, ends, runs.get(warmup ? 0 : i - warmupRuns), i, runDir, table, events,
                            flushIntervalMs, tablePartitions, server, jfrSettings);
                    if (!warmup) {
                        results.add(result);
                    }
                } finally {
                    table.close();
                }
            }
            ceilingAfter.addAll(ceilingRuns(kafka, admin, ends, runs.get(0), ceilingRuns, ceilingRuns, dir,
                    flushIntervalMs, events));
        } finally {
            kafka.stop();
            if (server != null) {
                server.close();
            }
        }
        System.out.println();
        System.out.println("=== ThroughputBench: " + String.format(Locale.ROOT, "%,d", events) + " events, worker -Xmx"
                + HEAP + ", offset.flush.interval.ms=" + flushIntervalMs + ", table " + (s3 ? "on S3 (S3Proxy)" : "local")
                + (tablePartitions > 0 ? ", " + tablePartitions + " table partitions" : "") + " ===");
        System.out.println(table(results));
        if (ceilingRuns > 0) {
            System.out.println(ceilingLine(ceilingBefore, ceilingAfter,
                    results.stream().map(r -> r.events / r.seconds).toList()));
        }
        System.out.printf(Locale.ROOT, "machine: %d cores, load average %.1f before, %.1f after; work dir %s%n",
                Runtime.getRuntime().availableProcessors(), loadBefore, loadAverage(), dir);
        for (Result r : results) {
            if (r.rows != r.events) {
                throw new IllegalStateException("the table of " + r.run + " holds " + r.rows + " rows for " + r.events
                        + " events");
            }
        }
    }

    /**
     * {@code count} runs of {@link WorkerCeilingBench}'s sink that drops the records, on the same topic with
     * {@code like}'s tasks and worker JVM options, numbered from {@code first}; their events/s.
     */
    private static List<Double> ceilingRuns(EmbeddedKafkaCluster kafka, Admin admin, Map<TopicPartition, Long> ends,
                                            Map<String, String> like, int count, int first, Path dir,
                                            String flushIntervalMs, int events) throws Exception {
        List<Double> rates = new ArrayList<>();
        for (int i = first; i < first + count; i++) {
            Path runDir = dir.resolve("ceiling-" + i);
            Files.createDirectories(runDir);
            WorkerCeilingBench.Timed timed = WorkerCeilingBench.run(kafka, admin, ends,
                    Map.of("tasks", like.get("tasks"), "jvm", like.get("jvm")), i, runDir, flushIntervalMs);
            rates.add(events / timed.seconds());
            System.out.printf(Locale.ROOT, "ceiling run %d (a sink that drops the records): %.1f s (%,.0f events/s); "
                    + "the worker's CPU %s%n", i, timed.seconds(), events / timed.seconds(), timed.cpu().describe());
        }
        return rates;
    }

    /**
     * The ceiling runs of the call, before and after the runs, and each run's share of their median:
     * what the connector makes of the machine as fast as it was during the call.
     */
    static String ceilingLine(List<Double> before, List<Double> after, List<Double> rates) {
        double[] sorted = Stream.concat(before.stream(), after.stream()).mapToDouble(Double::doubleValue).sorted()
                .toArray();
        int n = sorted.length;
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        return "a sink that drops the records (WorkerCeilingBench), before the runs above: "
                + Figures.joined("%,.0f", before.stream().mapToDouble(Double::doubleValue).toArray()) + ", after them: "
                + Figures.joined("%,.0f", after.stream().mapToDouble(Double::doubleValue).toArray())
                + String.format(Locale.ROOT, " events/s, median %,.0f; the runs above at ", median)
                + Figures.joined("%.2f", rates.stream().mapToDouble(rate -> rate / median).toArray()) + " of it";
    }

    private static Map<String, String> orderedMap(String... keysAndValues) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            out.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return java.util.Collections.unmodifiableMap(out);
    }

    /** The worker's JVM options, then its other options where not the default (the table's last column). */
    private static String worker(Map<String, String> run) {
        StringBuilder out = new StringBuilder(run.get("jvm"));
        WORKER_DEFAULTS.forEach((key, value) -> {
            if (run.containsKey(key) && !run.get(key).equals(value)) {
                out.append(' ').append(key).append('=').append(run.get(key));
            }
        });
        return out.toString();
    }

    /** The result table, one line per run. */
    static String table(List<Result> results) {
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
                "%-5s %-8s %-6s %-6s %-7s %9s %9s %7s %7s %6s %7s %9s %9s %10s %11s %12s %-13s %s%n", "tasks", "codec", "bg", "value",
                "fetch", "events/s",
                "steady/s", "seconds", "commits", "files", "MB", "peak heap", "live heap", "GC pauses", "CPU s (JIT)", "forks",
                "rows", "jvm"));
        for (Result r : results) {
            out.append(String.format(Locale.ROOT, "%-5s %-8s %-6s %-6s %-7s %,9.0f %9s %7.1f %7d %6d %7.1f %6d MB %6d MB %7.0f ms %11s %12s %-13s %s%n",
                    r.run.get("tasks"), r.run.get("compression"), r.run.get("background"), r.run.get("value"),
                    r.run.get("fetch"), r.events / r.seconds,
                    Double.isNaN(r.steady) ? "n/a" : String.format(Locale.ROOT, "%,.0f", r.steady), r.seconds,
                    r.commits, r.files,
                    r.mb, r.gc.maxBefore(), r.liveAfterMb, r.gc.pauseMs(),
                    Double.isNaN(r.workerCpu.total()) ? "n/a" : String.format(Locale.ROOT, "%.1f (%.1f)", r.workerCpu.total(),
                            r.workerCpu.byGroup().get("JIT")),
                    r.forks.processes() < 0 ? "n/a" : r.forks.processes() + (r.commits > 0
                            ? String.format(Locale.ROOT, " (%.1f/c)", (double) r.forks.processes() / r.commits) : ""),
                    r.rows == r.events ? String.format(Locale.ROOT, "%,d = N", r.rows)
                            : String.format(Locale.ROOT, "%,d NOT N", r.rows), worker(r.run)));
        }
        return out.toString().stripTrailing();
    }

    /**
     * The worker's JVM options besides -Xmx: the GC log and Flight Recorder (each unless null), then {@code bare}
     * nothing more, {@code kafka} the options Kafka's start scripts give a worker, or one option as it
     * is ({@code -XX:...}).
     */
    static List<String> workerJvm(String jvm, Path gcLog, String jfrSettings) {
        List<String> out = new ArrayList<>();
        if (gcLog != null) {
            out.add("-Xlog:gc:file=" + gcLog);
        }
        if (jfrSettings != null) {
            out.add("-XX:StartFlightRecording=name=bench,settings=" + jfrSettings);
        }
        switch (jvm) {
            case "bare" -> { }
            case "kafka" -> out.addAll(KAFKA_SCRIPT_JVM);
            default -> {
                if (!jvm.startsWith("-")) {
                    throw new IllegalArgumentException("jvm=bare, kafka or one JVM option, not " + jvm);
                }
                out.add(jvm);
            }
        }
        return out;
    }

    private static Result run(EmbeddedKafkaCluster kafka, Map<TopicPartition, Long> ends, Map<String, String> run,
                              int index, Path dir, TableLocation table, int events, String flushIntervalMs,
                              int tablePartitions, S3ProxyServer server, String jfrSettings) throws Exception {
        boolean s3 = server != null;
        Path gcLog = dir.resolve("worker-gc.log");
        Path jfr = dir.resolve("worker.jfr");
        int tasks = Integer.parseInt(run.get("tasks"));
        WorkerProcess.Launch launch = launch(run, dir);
        Map<String, String> settings = workerSettings(run, flushIntervalMs, dir);
        List<String> jvm = workerJvm(run.get("jvm"), gcLog, jfrSettings);
        switch (run.get("aot")) {
            case "none" -> { }
            case "cache" -> jvm.add("-XX:AOTCache=" + trainArchive(kafka, ends, run, index, dir, launch, settings, server,
                    jfrSettings, "-XX:AOTCacheOutput=", "worker.aot"));
            case "cds" -> {
                jvm.add("-XX:SharedArchiveFile=" + trainArchive(kafka, ends, run, index, dir, launch, settings, server,
                        jfrSettings, "-XX:ArchiveClassesAtExit=", "worker.jsa"));
                jvm.add("-Xshare:on"); // a JVM that cannot map the archive stops instead of going on without it
            }
            default -> throw new IllegalArgumentException("aot=none, cache or cds, not " + run.get("aot"));
        }
        WorkerProcess worker = new WorkerProcess(kafka.bootstrapServers(), "bench-" + index, dir.resolve("worker"), HEAP,
                jvm, settings, launch);
        try {
            worker.start();
            if (run.get("aot").equals("cache") && Files.readString(worker.logFile()).contains("][error][aot]")) {
                throw new IllegalStateException("The worker did not take its AOT cache: " + worker.logTail(20));
            }
            long idleHeap = fullGcHeapAfter(worker, gcLog);
            Preset preset = preset(run, "-" + index, table, tasks, s3);
            System.out.println("run " + index + " " + run + ": connector " + preset.name() + ", worker log "
                    + worker.logFile());
            ThreadCpu.Snapshot workerBefore = ThreadCpu.take(worker.pid());
            ThreadCpu.Snapshot benchBefore = ThreadCpu.take(ProcessHandle.current().pid());
            Instant created = Instant.now();
            long start = System.nanoTime();
            worker.putConnectorConfig(preset.name(), preset.config());
            long firstCommit = awaitFirstCommit(table, worker);
            awaitCaughtUp(table, preset.name(), tasks, ends, worker);
            long end = System.nanoTime();
            ThreadCpu workerCpu = ThreadCpu.between(workerBefore, ThreadCpu.take(worker.pid()));
            ThreadCpu benchCpu = ThreadCpu.between(benchBefore, ThreadCpu.take(ProcessHandle.current().pid()));
            Map<TopicPartition, java.util.Optional<Long>> txn = TableProgress.txnVersions(table, preset.name(), ends.keySet());
            if (!TableProgress.caughtUp(txn, ends)) { // the independent reader's view of the last commit
                throw new IllegalStateException("A snapshot of the table reads txn versions " + txn + ", not the end offsets "
                        + ends);
            }

            double seconds = (end - start) / 1e9;
            long version = table.version();
            worker.jcmd("JFR.dump", "name=bench", "filename=" + jfr);
            GcLog gc = GcLog.read(gcLog);
            long doneHeap = fullGcHeapAfter(worker, gcLog);
            ForkCount forks = ForkCount.read(jfr, created);
            long rows = table.rowCount();
            Result result = new Result(run, events, seconds, version, addedFiles(table, version),
                    parquetBytes(table.files()) / 1e6, gc, doneHeap, forks, rows,
                    steadyRate(table, version, preset.name(), ends.keySet(), events), workerCpu);
            System.out.printf(Locale.ROOT, "  %.1f s (%,.0f events/s), first commit after %.1f s; %d commits "
                    + "(the table's creation included), %d data files, %d table partitions%n", seconds,
                    events / seconds, (firstCommit - start) / 1e9, version, result.files,
                    table.dataDirectories().size());
            System.out.printf(Locale.ROOT, "  heap: peak %d MB used when a pause began, at most %d MB left after "
                    + "a collection (%d), capacity %d MB; %d pauses, %.0f ms in all; live after a full GC %d MB "
                    + "idle before, %d MB once caught up%n", gc.maxBefore(), gc.maxAfter(), gc.collections(),
                    gc.maxCapacity(), gc.pauses(), gc.pauseMs(), idleHeap, doneHeap);
            System.out.printf(Locale.ROOT, "  CPU in the timed run, of %.1f s on %d cores: the worker %s; this JVM (the "
                    + "broker, the bench) %.1f s, its JIT %.1f%n", seconds * Runtime.getRuntime().availableProcessors(),
                    Runtime.getRuntime().availableProcessors(), workerCpu.describe(), benchCpu.total(),
                    benchCpu.byGroup().getOrDefault("JIT", Double.NaN));
            System.out.printf(Locale.ROOT, "  waiting for a core in the timed run (runnable, not running), s: the worker's "
                    + "threads %s%n", workerCpu.describeWaits());
            System.out.println("  processes started by the worker: " + (forks.processes() < 0
                    ? "not recorded by this JDK" : forks.processes() + " " + forks.byCaller()));
            System.out.println("  rows in the table: " + rows + (rows == events ? "" : "  <-- NOT the number of events")
                    + "; flight recording " + jfr);
            return result;
        } finally {
            worker.stop();
        }
    }

    /** The connector's configuration for a run: the shipped preset with the run's options. */
    private static Preset preset(Map<String, String> run, String suffix, TableLocation table, int tasks, boolean s3) {
        Preset base = s3 ? Preset.sensorEventsMinio() : Preset.sensorEventsLocal();
        Preset preset = new Preset(base.name() + suffix, base.config())
                .with(table.connectorSettings()).with("tasks.max", Integer.toString(tasks))
                .with("parquet.compression", run.get("compression"))
                .with("writer.background", run.get("background"))
                .with("value.converter", run.get("value").equals("string")
                        ? "org.apache.kafka.connect.storage.StringConverter"
                        : "org.apache.kafka.connect.converters.ByteArrayConverter");
        if (run.get("fetch").equals("kafka")) { // the consumer's own default, 50 MiB
            Map<String, String> config = new LinkedHashMap<>(preset.config());
            config.remove(FETCH_MAX_BYTES);
            preset = new Preset(preset.name(), config);
        } else if (!run.get("fetch").equals("default")) {
            preset = preset.with(FETCH_MAX_BYTES, run.get("fetch"));
        }
        if (!run.get("group").equals("classic")) { // the consumer's group.protocol (consumer: KIP-848's)
            preset = preset.with("consumer.override.group.protocol", run.get("group"));
        }
        if (!run.get("convert").equals("default")) {
            preset = preset.with("convert.threads", run.get("convert"));
        }
        if (!run.get("poll").equals("default")) { // the worker's policy (Kafka's default: All) must allow it
            preset = preset.with("consumer.override.max.poll.records", run.get("poll"));
        }
        return preset;
    }

    /**
     * The worker's JDK ({@code java=N}: an installed JDK of that release, else this JVM's) and class
     * path: this JVM's, the connector's classes included ({@code worker=classpath}), or a plain
     * Connect worker's jars with the connector unzipped from the component archive into its
     * plugin.path ({@code worker=plugin}, as an operator installs it). With {@code aot=cache} or
     * {@code aot=cds} the folders of the class path (the build's classes) go in as jars: an AOT cache
     * and a class data archive take classes from jars only.
     */
    private static WorkerProcess.Launch launch(Map<String, String> run, Path dir) throws IOException {
        Path javaHome = run.get("java").equals("this") ? Path.of(System.getProperty("java.home"))
                : Jdks.require(Integer.parseInt(run.get("java")));
        return switch (run.get("worker")) {
            case "classpath" -> new WorkerProcess.Launch(javaHome, !run.get("aot").equals("none")
                    ? foldersAsJars(WorkerProcess.Launch.testClassPath().classPath(), dir.resolve("classpath"))
                    : WorkerProcess.Launch.testClassPath().classPath());
            case "plugin" -> new WorkerProcess.Launch(javaHome, PlainWorker.CURRENT.classPath());
            default -> throw new IllegalArgumentException("worker=classpath or plugin, not " + run.get("worker"));
        };
    }

    /** The class path with each folder replaced by a jar of its files, written into {@code jars}. */
    private static String foldersAsJars(String classPath, Path jars) throws IOException {
        Files.createDirectories(jars);
        List<String> out = new ArrayList<>();
        for (String entry : classPath.split(java.io.File.pathSeparator)) {
            Path folder = Path.of(entry);
            if (!Files.isDirectory(folder)) {
                out.add(entry);
                continue;
            }
            Path jar = jars.resolve(out.size() + "-" + folder.getFileName() + ".jar");
            try (var zip = new java.util.jar.JarOutputStream(Files.newOutputStream(jar));
                 Stream<Path> files = Files.walk(folder)) {
                for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
                    zip.putNextEntry(new java.util.jar.JarEntry(folder.relativize(file).toString().replace('\\', '/')));
                    Files.copy(file, zip);
                    zip.closeEntry();
                }
            }
            out.add(jar.toString());
        }
        return String.join(java.io.File.pathSeparator, out);
    }

    /** The worker's properties for a run (plugin.path when the connector comes from the component archive). */
    private static Map<String, String> workerSettings(Map<String, String> run, String flushIntervalMs, Path dir)
            throws IOException {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("offset.flush.interval.ms", flushIntervalMs);
        if (!run.get("group").equals("classic")) { // the new protocol's session is the broker's: a worker's is refused
            settings.put("consumer.session.timeout.ms", "");
            settings.put("consumer.heartbeat.interval.ms", "");
        }
        if (run.get("worker").equals("plugin")) {
            Path plugins = dir.resolve("plugins");
            if (!Files.isDirectory(plugins)) {
                Files.createDirectories(plugins);
                ComponentZip.unzipInto(plugins);
            }
            settings.put("plugin.path", plugins.toString());
        }
        return settings;
    }

    /**
     * {@code aot=cache} or {@code aot=cds}: a worker of the same JDK, class path and options first takes
     * the whole topic into a table of its own, untimed, with {@code output} naming the file it writes
     * when it stops: -XX:AOTCacheOutput= (Java 25: the classes it loaded and linked and the profiles
     * of the methods it ran) or -XX:ArchiveClassesAtExit= (a class data archive, Java 13 and later:
     * the classes it loaded, parsed and verified). The measured worker starts from it. Returns the file.
     */
    private static Path trainArchive(EmbeddedKafkaCluster kafka, Map<TopicPartition, Long> ends, Map<String, String> run,
                                     int index, Path dir, WorkerProcess.Launch launch, Map<String, String> settings,
                                     S3ProxyServer server, String jfrSettings, String output, String fileName)
            throws Exception {
        Path cache = dir.resolve(fileName);
        Path trainDir = dir.resolve("aot-training");
        TableLocation table = server != null ? TableLocation.onS3(server, "delta/aot-training-" + index + "/sensor_events")
                : TableLocation.local(trainDir.resolve("sensor_events"));
        // Flight Recorder as in the measured worker (it is off while the cache is written, but a cache
        // made without its module is refused by a JVM that records)
        List<String> jvm = workerJvm(run.get("jvm"), null, jfrSettings);
        jvm.add(output + cache);
        int tasks = Integer.parseInt(run.get("tasks"));
        WorkerProcess worker = new WorkerProcess(kafka.bootstrapServers(), "bench-aot-" + index, trainDir.resolve("worker"),
                HEAP, jvm, settings, launch);
        try {
            worker.start();
            Preset preset = preset(run, "-aot-" + index, table, tasks, server != null);
            long start = System.nanoTime();
            worker.putConnectorConfig(preset.name(), preset.config());
            awaitCaughtUp(table, preset.name(), tasks, ends, worker);
            System.out.printf(Locale.ROOT, "  training run (untimed, %s): %.1f s, worker log %s%n", output,
                    (System.nanoTime() - start) / 1e9, worker.logFile());
        } finally {
            worker.stop();
            table.close();
        }
        if (!Files.isRegularFile(cache)) {
            throw new IllegalStateException("The training worker wrote no " + cache + " (" + output + "; an AOT cache "
                    + "takes Java 25 or later); its log: " + worker.logFile());
        }
        System.out.printf(Locale.ROOT, "  %s: %.0f MB%n", cache, Files.size(cache) / 1e6);
        return cache;
    }

    /** Fills the topic with {@code events} sensor events, round robin over its partitions (SparkStreamBench too). */
    static void produce(String bootstrap, int events, int tablePartitions) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "1");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < events; i++) {
                SensorEvents.Event e = tablePartitions > 0 ? spread(i, tablePartitions) : SensorEvents.event(i);
                producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, e.deviceId(), e.json()));
            }
            producer.flush();
        }
    }

    /**
     * Event i in table partition (i x 7919) mod P: consecutive events land in partitions far apart,
     * and every P consecutive events cover all of them. Device types 0-14 are smart plugs, 15-19
     * door sensors; day = the seed's day minus partition / 20.
     */
    private static SensorEvents.Event spread(long i, int tablePartitions) {
        int q = (int) (i * 7919 % tablePartitions);
        int type = q % DEVICE_TYPES;
        String name = type < 15 ? SensorEvents.SMART_PLUG + "_" + type : SensorEvents.DOOR_WINDOW + "_" + type;
        return SensorEvents.event(i, SensorEvents.DAY.minusDays(q / DEVICE_TYPES), name);
    }

    private static long awaitFirstCommit(TableLocation table, WorkerProcess worker) throws InterruptedException {
        // version 0 creates the table; version 1 is the first data commit
        while (table.latestVersion() < 1) {
            if (!worker.isAlive()) {
                throw new IllegalStateException("Worker died:\n" + worker.logTail(60));
            }
            Thread.sleep(50);
        }
        return System.nanoTime();
    }

    /**
     * Waits until the table's txn versions equal the end offsets; fails at once when the worker
     * dies, the task fails or the worker log shows an OutOfMemoryError. While the clock runs, the
     * txn actions are taken from each new commit file as it lands, read as plain JSON without Hadoop's
     * file system (the bench shares the machine's cores with the worker: a snapshot of the whole table
     * per new version costs more than the worker's commit, and a Hadoop configuration per read parses
     * its XML defaults each time); the caller checks the end with a snapshot once the clock has stopped.
     */
    private static void awaitCaughtUp(TableLocation table, String connector, int tasks,
                                      Map<TopicPartition, Long> ends, WorkerProcess worker) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
        Map<String, Long> txn = new HashMap<>();
        long read = 0; // versions up to this one are read (version 0 creates the table)
        for (int step = 0; ; step++) {
            long latest = table.latestVersion();
            if (latest > read) {
                for (long v = read + 1; v <= latest; v++) {
                    for (com.fasterxml.jackson.databind.JsonNode action : table.actionsOfFile(v)) {
                        if (action.has("txn")) {
                            txn.put(action.get("txn").get("appId").asText(), action.get("txn").get("version").asLong());
                        }
                    }
                }
                read = latest;
                if (ends.entrySet().stream().allMatch(e -> e.getValue()
                        .equals(txn.getOrDefault(TableProgress.appId(connector, e.getKey()), 0L)))) {
                    return;
                }
            }
            // the figure is read to one step: short against a run of seconds; the worker is asked less often
            if (step % 10 == 0) {
                String problem = !worker.isAlive() ? "the worker died"
                        : failedTask(worker, connector, tasks) >= 0 ? "task " + failedTask(worker, connector, tasks)
                        + " FAILED"
                        : Files.readString(worker.logFile()).contains("OutOfMemoryError") ? "OutOfMemoryError in the worker"
                        : System.nanoTime() > deadline ? "not caught up after 30 minutes" : null;
                if (problem != null) {
                    throw new IllegalStateException(problem + " at table version " + latest + ":\n"
                            + worker.logTail(80));
                }
            }
            Thread.sleep(50);
        }
    }

    private static int failedTask(WorkerProcess worker, String connector, int tasks)
            throws IOException, InterruptedException {
        for (int t = 0; t < tasks; t++) {
            if ("FAILED".equals(worker.taskState(connector, t))) {
                return t;
            }
        }
        return -1;
    }

    static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /**
     * Events per second between the first commit holding a quarter of the events and the last holding at
     * most nine tenths, by the commits' own timestamps: the rate once the worker is warm, without the
     * start and the last offset flush; NaN when fewer than two commits fall in that span.
     */
    static double steadyRate(TableLocation table, long version, String connector, Collection<TopicPartition> partitions,
                             long events) {
        Map<String, Long> positions = new HashMap<>();
        long fromRows = -1;
        long fromMillis = 0;
        long toRows = -1;
        long toMillis = 0;
        for (long v = 1; v <= version; v++) {
            long millis = -1;
            for (com.fasterxml.jackson.databind.JsonNode action : table.actionsOfFile(v)) {
                if (action.has("txn")) {
                    positions.put(action.get("txn").get("appId").asText(), action.get("txn").get("version").asLong());
                } else if (action.has("commitInfo")) {
                    millis = action.get("commitInfo").get("timestamp").asLong();
                }
            }
            long rows = 0;
            for (TopicPartition tp : partitions) {
                rows += positions.getOrDefault(TableProgress.appId(connector, tp), 0L);
            }
            if (millis < 0 || rows > events * 9 / 10) {
                continue;
            }
            if (fromRows < 0 && rows >= events / 4) {
                fromRows = rows;
                fromMillis = millis;
            } else if (fromRows >= 0) {
                toRows = rows;
                toMillis = millis;
            }
        }
        return toRows > fromRows && toMillis > fromMillis ? (toRows - fromRows) * 1000.0 / (toMillis - fromMillis)
                : Double.NaN;
    }

    private static long addedFiles(TableLocation table, long version) {
        long files = 0;
        for (long v = 0; v <= version; v++) {
            for (com.fasterxml.jackson.databind.JsonNode action : table.actionsOfFile(v)) {
                files += action.has("add") ? 1 : action.has("remove") ? -1 : 0;
            }
        }
        return files;
    }

    static long parquetBytes(Path files) throws IOException {
        try (Stream<Path> walk = Files.walk(files)) {
            return walk.filter(p -> p.toString().endsWith(".parquet")).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    /** Forces a full GC in the worker (jcmd GC.class_histogram) and returns the heap left after it, in MB. */
    private static long fullGcHeapAfter(WorkerProcess worker, Path gcLog) throws IOException, InterruptedException {
        int before = systemGcs(gcLog).size();
        // a heap histogram collects in full first, also where -XX:+ExplicitGCInvokesConcurrent (jvm=kafka)
        // turns GC.run into a concurrent cycle
        worker.jcmd("GC.class_histogram");
        for (int attempt = 0; attempt < 100; attempt++) {
            List<Long> after = systemGcs(gcLog);
            if (after.size() > before) {
                return after.get(after.size() - 1);
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("No full GC logged in " + gcLog + " after jcmd GC.class_histogram");
    }

    private static List<Long> systemGcs(Path gcLog) throws IOException {
        return GcLog.fullGcHeapsAfter(Files.readAllLines(gcLog));
    }
}
