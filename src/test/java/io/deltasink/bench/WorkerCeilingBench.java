package io.deltasink.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.util.clusters.EmbeddedKafkaCluster;

import io.deltasink.proc.Preset;
import io.deltasink.proc.TableProgress;
import io.deltasink.proc.WorkerProcess;

/**
 * What the worker itself can deliver on this machine: the same topic, worker and settings as
 * {@link ThroughputBench} (1,000,000 seed events on 3 partitions, a worker of its own at -Xmx256m,
 * offset.flush.interval.ms, the local preset's converters, consumer overrides and error handling, tasks.max), but
 * a sink that drops every record ({@link NullSinkConnector}). The clock runs from the connector's
 * creation until the worker has committed the end offsets to the consumer group, as the Delta
 * sink's runs end when its table holds them; the task asks for that commit once drained, as the Delta
 * sink's does. No table is written, so the figure is a ceiling for
 * any sink in one worker: Kafka's consumer and Connect's per-record work (conversion, metrics, the
 * SinkRecord) and nothing else. "CPU s (JIT)" is the worker's CPU time in the timed run and its JIT
 * compilers' part ({@link ThreadCpu}). Run from the project root:
 * {@code mvn -q -B -Pbench test-compile exec:java -Dbench.main=io.deltasink.bench.WorkerCeilingBench
 * -Dexec.args="[events, default 1000000] [offset.flush.interval.ms, default 1000] [tasks=1,2,3]
 * [jvm=bare,-XX:..] [repeat=1]"}.
 */
public final class WorkerCeilingBench {
    private static final String HEAP = "256m";
    private static final List<String> OPTIONS = List.of("tasks", "jvm", "repeat");
    /** Settings of the preset for the worker's conversion (besides its consumer.override.* and errors.*). */
    private static final List<String> WORKER_SIDE = List.of("topics", "key.converter", "value.converter");

    private WorkerCeilingBench() {
    }

    public static void main(String[] args) throws Exception {
        BenchArgs parsed = BenchArgs.parse(OPTIONS, args);
        int events = Math.toIntExact(parsed.count(0, 1_000_000));
        String flushIntervalMs = parsed.positional(1, "1000");
        int repeat = Integer.parseInt(parsed.single("repeat", "1"));
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("tasks", "1");
        keys.put("jvm", "bare");
        List<Map<String, String>> runs = new ArrayList<>();
        for (int r = 0; r < repeat; r++) {
            runs.addAll(parsed.runs(keys));
        }

        Path dir = Files.createTempDirectory("worker-ceiling-bench-");
        EmbeddedKafkaCluster kafka = new EmbeddedKafkaCluster(1, new Properties());
        kafka.start();
        List<String> lines = new ArrayList<>();
        try (Admin admin = kafka.createAdminClient()) {
            kafka.createTopic(ThroughputBench.TOPIC, ThroughputBench.PARTITIONS);
            ThroughputBench.produce(kafka.bootstrapServers(), events, 0);
            Map<TopicPartition, Long> ends = TableProgress.endOffsets(admin,
                    TableProgress.partitions(ThroughputBench.TOPIC, ThroughputBench.PARTITIONS));
            System.out.printf(Locale.ROOT, "produced %,d events: end offsets %s%n", events, ends);
            for (int i = 0; i < runs.size(); i++) {
                Map<String, String> run = runs.get(i);
                Path runDir = dir.resolve("run-" + i);
                Files.createDirectories(runDir);
                Timed timed = run(kafka, admin, ends, run, i, runDir, flushIntervalMs);
                String line = String.format(Locale.ROOT, "%-5s %,10.0f %8.1f %11s   %s", run.get("tasks"),
                        events / timed.seconds, timed.seconds, Double.isNaN(timed.cpu.total()) ? "n/a"
                                : String.format(Locale.ROOT, "%.1f (%.1f)", timed.cpu.total(), timed.cpu.byGroup().get("JIT")),
                        run.get("jvm"));
                System.out.println("  the worker's CPU in the timed run: " + timed.cpu.describe());
                System.out.println("  " + line);
                lines.add(line);
            }
        } finally {
            kafka.stop();
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "=== WorkerCeilingBench: %,d events, a sink that drops them, worker -Xmx%s, "
                + "offset.flush.interval.ms=%s ===%n", events, HEAP, flushIntervalMs);
        System.out.printf(Locale.ROOT, "%-5s %10s %8s %11s   %s%n", "tasks", "events/s", "seconds", "CPU s (JIT)", "jvm");
        lines.forEach(System.out::println);
        System.out.printf(Locale.ROOT, "machine: %d cores, load average %.1f after; work dir %s%n",
                Runtime.getRuntime().availableProcessors(), ThroughputBench.loadAverage(), dir);
    }

    /** A run's time and the worker's CPU time in it. */
    record Timed(double seconds, ThreadCpu cpu) {
    }

    /**
     * One run of the sink that drops the records, {@code run}'s {@code tasks} and {@code jvm}, named by
     * {@code index} (its connector and consumer group: distinct per run of one broker).
     */
    static Timed run(EmbeddedKafkaCluster kafka, Admin admin, Map<TopicPartition, Long> ends,
                              Map<String, String> run, int index, Path dir, String flushIntervalMs) throws Exception {
        String name = "null-sink-" + index;
        WorkerProcess worker = new WorkerProcess(kafka.bootstrapServers(), "ceiling-" + index, dir.resolve("worker"),
                HEAP, ThroughputBench.workerJvm(run.get("jvm"), dir.resolve("worker-gc.log"), "default"),
                Map.of("offset.flush.interval.ms", flushIntervalMs));
        try {
            worker.start();
            Map<String, String> config = new LinkedHashMap<>();
            Preset.sensorEventsLocal().config().forEach((k, v) -> {
                if (WORKER_SIDE.contains(k) || k.startsWith("consumer.override.") || k.startsWith("errors.")) {
                    config.put(k, v);
                }
            });
            config.put("connector.class", NullSinkConnector.class.getName());
            config.put("tasks.max", run.get("tasks"));
            ThreadCpu.Snapshot before = ThreadCpu.take(worker.pid());
            long start = System.nanoTime();
            worker.putConnectorConfig(name, config);
            long deadline = start + Duration.ofMinutes(10).toNanos();
            while (!committed(admin, "connect-" + name, ends)) {
                if (!worker.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("No end offsets committed:\n" + worker.logTail(60));
                }
                Thread.sleep(50);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            return new Timed(seconds, ThreadCpu.between(before, ThreadCpu.take(worker.pid())));
        } finally {
            worker.stop();
        }
    }

    private static boolean committed(Admin admin, String group, Map<TopicPartition, Long> ends) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get();
        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            OffsetAndMetadata at = offsets.get(end.getKey());
            if (at == null || at.offset() != end.getValue()) {
                return false;
            }
        }
        return true;
    }
}
