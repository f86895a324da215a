package io.deltasink.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.util.clusters.EmbeddedKafkaCluster;

import io.deltasink.proc.Preset;
import io.deltasink.proc.TableProgress;
import io.deltasink.proc.WorkerProcess;
import io.deltasink.testing.S3ProxyServer;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.TableLocation;

/**
 * Throughput and heap of one task on a small worker: fills a 3-partition topic with N sensor
 * events, then starts a Connect worker JVM with -Xmx256m, creates the connector from the
 * sensor-events preset (tasks.max=1, default flush settings) and measures the time from the
 * connector's creation until the table's txn versions equal the topic's end offsets; then counts
 * the table's rows with a scan, which must equal N.
 *
 * <p>{@code partitions=P} spreads the events over P table partitions (20 device types x P/20
 * days, each event in another partition than the one before: every batch spans them all), as a
 * replay of many days would; without it they go to the seed's two device types on one day.
 * {@code storage=s3} puts the table on an S3 server (S3Proxy on 127.0.0.1, in a JVM of its own)
 * through the MinIO preset.
 *
 * <p>Peak heap comes from the worker's GC log (-Xlog:gc): the largest heap occupancy seen when a
 * collection started (everything allocated, garbage included) and the largest left after one
 * (the live set plus what survived). Run from the project root:
 * {@code mvn -q -B -Pbench test-compile exec:java [-Dexec.args="N [flush ms] [partitions=P] [storage=s3]"]}.
 */
public final class ThroughputBench {
    private static final String TOPIC = "sensor-events";
    private static final int PARTITIONS = 3;
    private static final String HEAP = "256m";
    private static final String BUCKET = "sensor-data";
    private static final int DEVICE_TYPES = 20;
    /** A pause line of -Xlog:gc, e.g. "GC(7) Pause Young (Normal) (G1 Evacuation Pause) 51M->9M(256M) 3.1ms". */
    private static final Pattern GC_LINE = Pattern.compile("Pause (\\w+).*?(\\d+)M->(\\d+)M\\((\\d+)M\\)");

    private ThroughputBench() {
    }

    /** Args: [events, default 200000] [worker offset.flush.interval.ms, default 1000] [partitions=P] [storage=s3]. */
    public static void main(String[] args) throws Exception {
        List<String> positional = new ArrayList<>();
        Map<String, String> options = new HashMap<>();
        for (String arg : args) {
            if (arg.contains("=")) {
                options.put(arg.substring(0, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
            } else {
                positional.add(arg);
            }
        }
        int events = positional.size() > 0 ? Integer.parseInt(positional.get(0).replace("_", "")) : 200_000;
        String flushIntervalMs = positional.size() > 1 ? positional.get(1) : "1000";
        int tablePartitions = Integer.parseInt(options.getOrDefault("partitions", "0"));
        boolean s3 = options.getOrDefault("storage", "local").equals("s3");
        double loadBefore = loadAverage();
        Path dir = Files.createTempDirectory("delta-bench-");
        Path gcLog = dir.resolve("worker-gc.log");

        S3ProxyServer server = s3 ? new S3ProxyServer(dir.resolve("s3"), BUCKET).start() : null;
        TableLocation table = s3 ? TableLocation.onS3(server, "delta/sensor_events")
                : TableLocation.local(dir.resolve("sensor_events"));
        EmbeddedKafkaCluster kafka = new EmbeddedKafkaCluster(1, new Properties());
        kafka.start();
        WorkerProcess worker = new WorkerProcess(kafka.bootstrapServers(), "bench", dir.resolve("worker"), HEAP,
                List.of("-Xlog:gc:file=" + gcLog), Map.of("offset.flush.interval.ms", flushIntervalMs));
        try (Admin admin = kafka.createAdminClient()) {
            kafka.createTopic(TOPIC, PARTITIONS);
            long produceStart = System.nanoTime();
            produce(kafka.bootstrapServers(), events, tablePartitions);
            double produceSeconds = (System.nanoTime() - produceStart) / 1e9;
            Map<TopicPartition, Long> ends = TableProgress.endOffsets(admin, TableProgress.partitions(TOPIC, PARTITIONS));
            System.out.printf(Locale.ROOT, "produced %,d events to %d partitions in %.1f s: end offsets %s%n",
                    events, PARTITIONS, produceSeconds, ends);

            worker.start();
            long idleHeap = fullGcHeapAfter(worker, gcLog);
            Preset preset = (s3 ? Preset.sensorEventsMinio() : Preset.sensorEventsLocal())
                    .with(table.connectorSettings()).with("tasks.max", "1");
            long start = System.nanoTime();
            worker.putConnectorConfig(preset.name(), preset.config());
            long firstCommit = awaitFirstCommit(table, worker);
            awaitCaughtUp(table, preset.name(), ends, worker);
            long end = System.nanoTime();

            double seconds = (end - start) / 1e9;
            double fromFirstCommit = (end - firstCommit) / 1e9;
            long version = table.version();
            GcFigures gc = GcFigures.read(gcLog);
            long doneHeap = fullGcHeapAfter(worker, gcLog);
            long rows = table.rowCount();
            int folders = table.dataDirectories().size();
            System.out.println();
            System.out.println("=== ThroughputBench: one task, worker -Xmx" + HEAP + ", offset.flush.interval.ms="
                    + flushIntervalMs + ", flush.max.records=" + preset.config().getOrDefault("flush.max.records",
                    "(default)") + ", table " + (s3 ? "on S3 (S3Proxy)" : "local") + " ===");
            System.out.printf(Locale.ROOT, "events              %,d over %s%n", events, tablePartitions > 0
                    ? String.format(Locale.ROOT, "%,d table partitions (%d device types x %d days), interleaved",
                    tablePartitions, DEVICE_TYPES, tablePartitions / DEVICE_TYPES) : "the seed's 2 table partitions");
            System.out.printf(Locale.ROOT, "seconds             %.1f (connector creation -> txn versions == end offsets)%n",
                    seconds);
            System.out.printf(Locale.ROOT, "events/s            %,.0f%n", events / seconds);
            System.out.printf(Locale.ROOT, "first commit after  %.1f s (task start, group join); events/s after it "
                    + "%,.0f (upper bound: rows of the first commit included)%n", (firstCommit - start) / 1e9,
                    events / fromFirstCommit);
            System.out.printf(Locale.ROOT, "table version       %d%n", version);
            System.out.printf(Locale.ROOT, "rows in the table   %,d (a scan of the latest version)%s%n", rows,
                    rows == events ? "" : "  <-- NOT the number of events");
            System.out.printf(Locale.ROOT, "table partitions    %,d (folders holding data files)%n", folders);
            System.out.printf(Locale.ROOT, "data files          %,d (add actions in the log; nothing removed)%n",
                    addedFiles(table, version));
            System.out.printf(Locale.ROOT, "table size          %.1f MB of Parquet%n", parquetBytes(table.files()) / 1e6);
            System.out.printf(Locale.ROOT, "worker peak heap    %d MB used when a GC pause began (max over the "
                    + "run), %d MB max left after a young/full GC (%d of them); from -Xlog:gc, heap capacity %d MB%n",
                    gc.maxBefore, gc.maxAfter, gc.collections, gc.maxCapacity);
            System.out.printf(Locale.ROOT, "worker live heap    %d MB after a full GC when idle before the connector, "
                    + "%d MB after a full GC once caught up (jcmd GC.run)%n", idleHeap, doneHeap);
            System.out.printf(Locale.ROOT, "machine             %d cores, load average %.1f before, %.1f after%n",
                    Runtime.getRuntime().availableProcessors(), loadBefore, loadAverage());
            System.out.println("worker log          " + worker.logFile() + " (GC log " + gcLog + ")");
            if (rows != events) {
                throw new IllegalStateException("the table holds " + rows + " rows for " + events + " events");
            }
        } finally {
            worker.stop();
            kafka.stop();
            table.close();
            if (server != null) {
                server.close();
            }
        }
    }

    private static void produce(String bootstrap, int events, int tablePartitions) {
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
     * dies, the task fails or the worker log shows an OutOfMemoryError.
     */
    private static void awaitCaughtUp(TableLocation table, String connector, Map<TopicPartition, Long> ends,
                                      WorkerProcess worker) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
        long seen = Long.MIN_VALUE;
        while (true) {
            long latest = table.latestVersion();
            if (latest != seen) {
                seen = latest;
                if (TableProgress.caughtUp(TableProgress.txnVersions(table, connector, ends.keySet()), ends)) {
                    return;
                }
            }
            String problem = !worker.isAlive() ? "the worker died"
                    : "FAILED".equals(worker.taskState(connector, 0)) ? "the task FAILED"
                    : Files.readString(worker.logFile()).contains("OutOfMemoryError") ? "OutOfMemoryError in the worker"
                    : System.nanoTime() > deadline ? "not caught up after 30 minutes" : null;
            if (problem != null) {
                throw new IllegalStateException(problem + " at table version " + latest + ":\n"
                        + worker.logTail(80));
            }
            Thread.sleep(500);
        }
    }

    private static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static long addedFiles(TableLocation table, long version) {
        long files = 0;
        for (long v = 0; v <= version; v++) {
            for (com.fasterxml.jackson.databind.JsonNode action : table.actions(v)) {
                files += action.has("add") ? 1 : action.has("remove") ? -1 : 0;
            }
        }
        return files;
    }

    private static long parquetBytes(Path files) throws IOException {
        try (Stream<Path> walk = Files.walk(files)) {
            return walk.filter(p -> p.toString().endsWith(".parquet")).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    /** Forces a full GC in the worker (jcmd GC.run) and returns the heap left after it, in MB. */
    private static long fullGcHeapAfter(WorkerProcess worker, Path gcLog) throws IOException, InterruptedException {
        int before = systemGcs(gcLog).size();
        worker.jcmd("GC.run");
        for (int attempt = 0; attempt < 100; attempt++) {
            List<Long> after = systemGcs(gcLog);
            if (after.size() > before) {
                return after.get(after.size() - 1);
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("No full GC logged in " + gcLog + " after jcmd GC.run");
    }

    /** Heap after each full GC of the log (jcmd GC.run logs "Pause Full (Diagnostic Command)"), in MB. */
    private static List<Long> systemGcs(Path gcLog) throws IOException {
        List<Long> out = new java.util.ArrayList<>();
        for (String line : Files.readAllLines(gcLog)) {
            Matcher m = GC_LINE.matcher(line);
            if (line.contains("Pause Full") && m.find()) {
                out.add(Long.parseLong(m.group(3)));
            }
        }
        return out;
    }

    /** Heap figures from a -Xlog:gc file, in MB. */
    record GcFigures(long maxBefore, long maxAfter, long maxCapacity, int collections) {
        static GcFigures read(Path gcLog) throws IOException {
            long before = 0;
            long after = 0;
            long capacity = 0;
            int count = 0;
            for (String line : Files.readAllLines(gcLog)) {
                Matcher m = GC_LINE.matcher(line);
                if (m.find()) {
                    before = Math.max(before, Long.parseLong(m.group(2)));
                    capacity = Math.max(capacity, Long.parseLong(m.group(4)));
                    // Remark and Cleanup pauses of a concurrent cycle free little: "after" counts
                    // only evacuating (Young, Mixed) and Full collections
                    if (m.group(1).equals("Young") || m.group(1).equals("Full")) {
                        count++;
                        after = Math.max(after, Long.parseLong(m.group(3)));
                    }
                }
            }
            return new GcFigures(before, after, capacity, count);
        }
    }
}
