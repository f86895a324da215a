package io.deltasink.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.SensorEvents;

/**
 * Throughput and heap of one task on a small worker: fills a 3-partition topic with N sensor
 * events, then starts a Connect worker JVM with -Xmx256m, creates the connector from the
 * sensor-events preset (tasks.max=1, default flush settings) and measures the time from the
 * connector's creation until the table's txn versions equal the topic's end offsets.
 *
 * <p>Peak heap comes from the worker's GC log (-Xlog:gc): the largest heap occupancy seen when a
 * collection started (everything allocated, garbage included) and the largest left after one
 * (the live set plus what survived). Run from the project root:
 * {@code mvn -q -B -Pbench test-compile exec:java [-Dexec.args=N]}.
 */
public final class ThroughputBench {
    private static final String TOPIC = "sensor-events";
    private static final int PARTITIONS = 3;
    private static final String HEAP = "256m";
    /** A pause line of -Xlog:gc, e.g. "GC(7) Pause Young (Normal) (G1 Evacuation Pause) 51M->9M(256M) 3.1ms". */
    private static final Pattern GC_LINE = Pattern.compile("Pause (\\w+).*?(\\d+)M->(\\d+)M\\((\\d+)M\\)");

    private ThroughputBench() {
    }

    /** Args: [events, default 200000] [worker offset.flush.interval.ms, default 1000]. */
    public static void main(String[] args) throws Exception {
        int events = args.length > 0 ? Integer.parseInt(args[0].replace("_", "")) : 200_000;
        String flushIntervalMs = args.length > 1 ? args[1] : "1000";
        double loadBefore = loadAverage();
        Path dir = Files.createTempDirectory("delta-bench-");
        Path table = dir.resolve("sensor_events");
        Path gcLog = dir.resolve("worker-gc.log");

        EmbeddedKafkaCluster kafka = new EmbeddedKafkaCluster(1, new Properties());
        kafka.start();
        WorkerProcess worker = new WorkerProcess(kafka.bootstrapServers(), "bench", dir.resolve("worker"), HEAP,
                List.of("-Xlog:gc:file=" + gcLog), Map.of("offset.flush.interval.ms", flushIntervalMs));
        try (Admin admin = kafka.createAdminClient()) {
            kafka.createTopic(TOPIC, PARTITIONS);
            long produceStart = System.nanoTime();
            produce(kafka.bootstrapServers(), events);
            double produceSeconds = (System.nanoTime() - produceStart) / 1e9;
            Map<TopicPartition, Long> ends = TableProgress.endOffsets(admin, TableProgress.partitions(TOPIC, PARTITIONS));
            System.out.printf(Locale.ROOT, "produced %,d events to %d partitions in %.1f s: end offsets %s%n",
                    events, PARTITIONS, produceSeconds, ends);

            worker.start();
            long idleHeap = fullGcHeapAfter(worker, gcLog);
            Preset preset = Preset.sensorEventsLocal().with("table.location", table.toString()).with("tasks.max", "1");
            long start = System.nanoTime();
            worker.putConnectorConfig(preset.name(), preset.config());
            long firstCommit = awaitFirstCommit(table, worker);
            TableProgress.awaitCaughtUp(table, preset.name(), ends, Duration.ofMinutes(30), () -> worker.logTail(60));
            long end = System.nanoTime();

            double seconds = (end - start) / 1e9;
            double fromFirstCommit = (end - firstCommit) / 1e9;
            long version = DeltaTableReader.version(table.toString());
            GcFigures gc = GcFigures.read(gcLog);
            long doneHeap = fullGcHeapAfter(worker, gcLog);
            System.out.println();
            System.out.println("=== ThroughputBench: one task, worker -Xmx" + HEAP + ", offset.flush.interval.ms="
                    + flushIntervalMs + ", flush.max.records=" + preset.config().getOrDefault("flush.max.records",
                    "(default)") + " ===");
            System.out.printf(Locale.ROOT, "events              %,d%n", events);
            System.out.printf(Locale.ROOT, "seconds             %.1f (connector creation -> txn versions == end offsets)%n",
                    seconds);
            System.out.printf(Locale.ROOT, "events/s            %,.0f%n", events / seconds);
            System.out.printf(Locale.ROOT, "first commit after  %.1f s (task start, group join); events/s after it "
                    + "%,.0f (upper bound: rows of the first commit included)%n", (firstCommit - start) / 1e9,
                    events / fromFirstCommit);
            System.out.printf(Locale.ROOT, "table version       %d%n", version);
            System.out.printf(Locale.ROOT, "data files          %d (add actions in the log; nothing removed)%n",
                    addedFiles(table, version));
            System.out.printf(Locale.ROOT, "table size          %.1f MB of Parquet on disk%n", parquetBytes(table) / 1e6);
            System.out.printf(Locale.ROOT, "worker peak heap    %d MB used when a GC pause began (max over the "
                    + "run), %d MB max left after a young/full GC (%d of them); from -Xlog:gc, heap capacity %d MB%n",
                    gc.maxBefore, gc.maxAfter, gc.collections, gc.maxCapacity);
            System.out.printf(Locale.ROOT, "worker live heap    %d MB after a full GC when idle before the connector, "
                    + "%d MB after a full GC once caught up (jcmd GC.run)%n", idleHeap, doneHeap);
            System.out.printf(Locale.ROOT, "machine             %d cores, load average %.1f before, %.1f after%n",
                    Runtime.getRuntime().availableProcessors(), loadBefore, loadAverage());
            System.out.println("worker log          " + worker.logFile() + " (GC log " + gcLog + ")");
        } finally {
            worker.stop();
            kafka.stop();
        }
    }

    private static void produce(String bootstrap, int events) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "1");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < events; i++) {
                SensorEvents.Event e = SensorEvents.event(i);
                producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, e.deviceId(), e.json()));
            }
            producer.flush();
        }
    }

    private static long awaitFirstCommit(Path table, WorkerProcess worker) throws InterruptedException {
        // version 0 creates the table; version 1 is the first data commit
        while (TableProgress.latestVersion(table) < 1) {
            if (!worker.isAlive()) {
                throw new IllegalStateException("Worker died:\n" + worker.logTail(60));
            }
            Thread.sleep(50);
        }
        return System.nanoTime();
    }

    private static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static long addedFiles(Path table, long version) {
        long files = 0;
        for (long v = 0; v <= version; v++) {
            files += DeltaTableReader.actions(table.toString(), v, "add").size();
            files -= DeltaTableReader.actions(table.toString(), v, "remove").size();
        }
        return files;
    }

    private static long parquetBytes(Path table) throws IOException {
        try (Stream<Path> files = Files.walk(table)) {
            return files.filter(p -> p.toString().endsWith(".parquet")).mapToLong(p -> p.toFile().length()).sum();
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
