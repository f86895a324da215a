package io.deltasink.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkRecord;

import io.deltasink.Converters;
import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.BatchClock;
import io.deltasink.convert.RecordConverter;
import io.deltasink.model.DataFile;
import io.deltasink.proc.ChildJvm;
import io.deltasink.proc.Preset;
import io.deltasink.proc.WorkerProcess;
import io.deltasink.storage.StorageSettings;
import io.deltasink.testing.SensorEvents;
import io.deltasink.write.BackgroundWriter;
import io.deltasink.write.PartitionedWriter;
import io.deltasink.write.WriterSettings;

/**
 * Convert + encode per record on one thread: seed events as the worker hands them to the task
 * (String values from StringConverter, or byte[] from ByteArrayConverter), through the connector's
 * converter of the seed preset's mapping and its Parquet writer ({@link PartitionedWriter}, the
 * preset's codec unless {@code compression=} says otherwise) into files in a temporary folder.
 * Each iteration converts and writes all records and closes the files ({@code finish()}, as a commit
 * does); one writer serves all iterations, as a task's serves its commits (columns that gave their
 * dictionary up in a file are written without one in the next); warm-up iterations first,
 * then the median and range of the measured ones in records/s. {@code mode=row} converts and writes
 * each record before the next, the connector's order by default ({@code writer.background=false});
 * {@code mode=encode} takes them in its order with {@code writer.background=true}, on one thread: a
 * chunk converted and checked as the task's thread does before handing it to the writer thread, then
 * the chunk's rows written. {@code mode=convert} times the
 * conversion alone; {@code mode=write} converts 1,000 records at a time outside the timing and times
 * only {@link PartitionedWriter#write} and {@code finish()}. The converter's clock is a task's
 * {@link BatchClock}, ticked every {@link #PUT_RECORDS} records as the task ticks it at every
 * {@code put()} (the worker hands over at most that many by default). Run from the project root:
 * {@code mvn -q -B -Pbench test-compile exec:java -Dbench.main=io.deltasink.bench.ConvertEncodeBench
 * -Dexec.args="[records, default 200000] [value=string,bytes] [mode=encode,row,convert,write] [compression=snappy]
 * [warmup=3] [iterations=5] [forks=0]"}. With {@code forks=N} each row is measured in N fresh JVMs
 * of this JDK, class path and -X options, the rows taken in turn, and the table gives the median of
 * the JVMs' medians.
 */
public final class ConvertEncodeBench {
    /** Records converted, then written, at a time in {@code mode=write}. */
    private static final int WRITE_CHUNK = 1_000;
    /** Records a put() of the worker holds at most by default (the consumer's max.poll.records). */
    static final int PUT_RECORDS = 500;
    private static final List<String> OPTIONS = List.of("value", "mode", "compression", "warmup", "iterations",
            "forks");
    /** Children's JVM options when this JVM was started without -X options. */
    private static final List<String> CHILD_DEFAULT_JVM = List.of("-XX:+UseParallelGC", "-Xms3g", "-Xmx3g", "-Xmn1500m");

    private ConvertEncodeBench() {
    }

    public static void main(String[] args) throws Exception {
        BenchArgs parsed = BenchArgs.parse(OPTIONS, args);
        int records = Math.toIntExact(parsed.count(0, 200_000));
        int warmup = Integer.parseInt(parsed.single("warmup", "3"));
        int iterations = Integer.parseInt(parsed.single("iterations", "5"));
        int forks = Integer.parseInt(parsed.single("forks", "0"));
        boolean child = Boolean.getBoolean("bench.child");
        Map<String, String> keys = new java.util.LinkedHashMap<>();
        keys.put("value", "string");
        keys.put("mode", "encode");
        keys.put("compression", Preset.sensorEventsLocal().config().getOrDefault(DeltaSinkConfig.PARQUET_COMPRESSION,
                WriterSettings.DEFAULT_COMPRESSION));
        List<Map<String, String>> runs = parsed.runs(keys);
        if (forks > 0 && !child) {
            forked(records, warmup, iterations, forks, runs);
            return;
        }
        List<String> lines = new ArrayList<>();
        for (Map<String, String> run : runs) {
            double[] sorted = measure(records, run.get("value"), run.get("mode"), run.get("compression"), warmup,
                    iterations);
            Arrays.sort(sorted);
            if (child) {
                System.out.printf(Locale.ROOT, "%s%.0f%n", ChildJvm.RESULT, median(sorted));
                continue;
            }
            lines.add(String.format(Locale.ROOT, "%-7s %-8s %-8s %,12.0f %,12.0f %,12.0f", run.get("value"),
                    run.get("mode"), run.get("compression"), median(sorted), sorted[0], sorted[sorted.length - 1]));
        }
        if (child) {
            return;
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "=== ConvertEncodeBench: %,d seed records per iteration, %d warm-up + %d measured "
                + "iterations, one thread, Java %s ===%n", records, warmup, iterations, Runtime.version());
        System.out.printf(Locale.ROOT, "%-7s %-8s %-8s %12s %12s %12s%n", "value", "mode", "codec", "records/s", "min",
                "max");
        lines.forEach(System.out::println);
    }

    /** The middle value of sorted figures (the upper one of the two middle values for an even count). */
    private static double median(double[] sorted) {
        return sorted[sorted.length / 2];
    }

    /**
     * Each run in {@code forks} fresh JVMs, the runs taken in turn (fork 1 of every run, then fork 2, ...),
     * as JMH forks: the JIT compiles this loop one of several ways per JVM (docs/design.md, twelfth
     * round), so a figure of one JVM says little. Prints every fork's median and, per run, the median
     * of the forks' medians with their lowest and highest.
     */
    private static void forked(int records, int warmup, int iterations, int forks, List<Map<String, String>> runs)
            throws Exception {
        List<String> jvm = childJvm();
        double[][] medians = new double[runs.size()][forks];
        for (int f = 0; f < forks; f++) {
            for (int r = 0; r < runs.size(); r++) {
                Map<String, String> run = runs.get(r);
                medians[r][f] = fork(jvm, records, warmup, iterations, run);
                System.out.printf(Locale.ROOT, "fork %d of %d, %s/%s/%s: median %,.0f records/s%n", f + 1, forks,
                        run.get("value"), run.get("mode"), run.get("compression"), medians[r][f]);
            }
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "=== ConvertEncodeBench: %,d seed records per iteration, %d warm-up + %d measured "
                + "iterations, one thread, %d JVMs per row taken in turn (%s), Java %s ===%n", records, warmup,
                iterations, forks, String.join(" ", jvm), Runtime.version());
        System.out.printf(Locale.ROOT, "%-7s %-8s %-8s %12s %12s %12s  %s%n", "value", "mode", "codec", "records/s",
                "lowest JVM", "highest JVM", "each JVM's median");
        for (int r = 0; r < runs.size(); r++) {
            Map<String, String> run = runs.get(r);
            double[] sorted = medians[r].clone();
            Arrays.sort(sorted);
            String each = Figures.joined("%,.0f", medians[r]);
            System.out.printf(Locale.ROOT, "%-7s %-8s %-8s %,12.0f %,12.0f %,12.0f  %s%n", run.get("value"),
                    run.get("mode"), run.get("compression"), median(sorted), sorted[0], sorted[sorted.length - 1],
                    each);
        }
    }

    /** This JVM's -X and -XX options (MAVEN_OPTS under exec:java), or {@link #CHILD_DEFAULT_JVM} when it has none. */
    private static List<String> childJvm() {
        List<String> own = new ArrayList<>();
        for (String arg : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("-X")) {
                own.add(arg);
            }
        }
        return own.isEmpty() ? CHILD_DEFAULT_JVM : own;
    }

    /** One run in a child JVM of this JDK and class path; its median records/s. */
    private static double fork(List<String> jvm, int records, int warmup, int iterations, Map<String, String> run)
            throws Exception {
        List<String> options = new ArrayList<>(jvm);
        options.add("-Dbench.child=true");
        return Double.parseDouble(ChildJvm.result(WorkerProcess.Launch.testClassPath(), options,
                ConvertEncodeBench.class.getName(), List.of(Integer.toString(records), "value=" + run.get("value"),
                        "mode=" + run.get("mode"), "compression=" + run.get("compression"), "warmup=" + warmup,
                        "iterations=" + iterations)));
    }

    private static double[] measure(int count, String value, String mode, String compression, int warmup,
                                    int iterations) throws Exception {
        if (!List.of("encode", "row", "convert", "write").contains(mode)) {
            throw new IllegalArgumentException("mode=encode, row, convert or write, not " + mode);
        }
        Path dir = Files.createTempDirectory("convert-encode-bench-");
        Map<String, String> props = new HashMap<>(Preset.sensorEventsLocal().config());
        props.put(DeltaSinkConfig.CONNECTOR_NAME, "bench");
        props.put(DeltaSinkConfig.TABLE_LOCATION, dir.resolve("table").toString());
        props.put(DeltaSinkConfig.PARQUET_COMPRESSION, compression);
        DeltaSinkConfig config = new DeltaSinkConfig(props);
        BatchClock clock = new BatchClock(Clock.systemUTC());
        RecordConverter converter = Converters.factory(config, clock).create(null);
        List<SinkRecord> records = records(count, value);
        StorageSettings storage = StorageSettings.from(config);
        double[] rates = new double[iterations];
        PartitionedWriter writer = mode.equals("convert") ? null : writer(config, storage, converter);
        try {
            for (int i = 0; i < warmup + iterations; i++) {
                long start = System.nanoTime();
                long[] timedNanos = {-1};
                long written = switch (mode) {
                    case "convert" -> convert(converter, clock, records);
                    case "write" -> write(writer, converter, clock, records, timedNanos);
                    case "row" -> convertAndWriteEach(writer, converter, clock, records);
                    default -> convertAndWrite(writer, converter, clock, records);
                };
                double seconds = (timedNanos[0] >= 0 ? timedNanos[0] : System.nanoTime() - start) / 1e9;
                if (written != count) {
                    throw new IllegalStateException(written + " rows of " + count + " records");
                }
                System.out.printf(Locale.ROOT, "%s %s/%s/%s iteration %d: %,.0f records/s%n",
                        i < warmup ? "warm-up " : "measured", value, mode, compression, i + 1,
                        count / seconds);
                if (i >= warmup) {
                    rates[i - warmup] = count / seconds;
                }
                deleteFiles(dir);
            }
        } finally {
            storage.close();
            deleteFiles(dir);
        }
        return rates;
    }

    /** Seed events as the worker hands them: the key from StringConverter, the value as StringConverter or ByteArrayConverter give it. */
    private static List<SinkRecord> records(int count, String value) {
        boolean bytes = switch (value) {
            case "string" -> false;
            case "bytes" -> true;
            default -> throw new IllegalArgumentException("value=string or value=bytes, not " + value);
        };
        List<SinkRecord> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            SensorEvents.Event e = SensorEvents.event(i);
            String json = e.json();
            out.add(new SinkRecord("sensor-events", i % 3, Schema.OPTIONAL_STRING_SCHEMA, e.deviceId(),
                    bytes ? Schema.OPTIONAL_BYTES_SCHEMA : Schema.OPTIONAL_STRING_SCHEMA,
                    bytes ? json.getBytes(StandardCharsets.UTF_8) : json, i / 3, 1_750_000_000_000L + i,
                    org.apache.kafka.common.record.TimestampType.CREATE_TIME));
        }
        return out;
    }

    private static long convert(RecordConverter converter, BatchClock clock, List<SinkRecord> records) {
        long rows = 0;
        for (int i = 0; i < records.size(); i++) {
            if (i % PUT_RECORDS == 0) {
                clock.tick();
            }
            rows += converter.convert(records.get(i)).length > 0 ? 1 : 0;
        }
        return rows;
    }

    /**
     * The connector's order with a writer thread, on one thread: a chunk of {@link BackgroundWriter#CHUNK_ROWS} records
     * converted and checked ({@link PartitionedWriter#check}, what the task's thread does before the
     * hand-off), then its rows written (what the writer thread does with the chunk).
     */
    private static long convertAndWrite(PartitionedWriter writer, RecordConverter converter, BatchClock clock,
                                        List<SinkRecord> records) throws Exception {
        int size = BackgroundWriter.CHUNK_ROWS;
        Object[][] rows = new Object[size][];
        List<?>[] keys = new List<?>[size];
        for (int from = 0; from < records.size(); from += size) {
            int n = Math.min(size, records.size() - from);
            for (int i = 0; i < n; i++) {
                if ((from + i) % PUT_RECORDS == 0) {
                    clock.tick();
                }
                rows[i] = converter.convert(records.get(from + i));
                keys[i] = writer.check(rows[i]);
            }
            for (int i = 0; i < n; i++) {
                @SuppressWarnings("unchecked")
                List<String> key = (List<String>) keys[i];
                writer.write(key, rows[i]);
            }
        }
        return finish(writer);
    }

    /** Each record converted and written before the next one is converted: the task's thread without a writer thread. */
    private static long convertAndWriteEach(PartitionedWriter writer, RecordConverter converter, BatchClock clock,
                                            List<SinkRecord> records) throws Exception {
        for (int i = 0; i < records.size(); i++) {
            if (i % PUT_RECORDS == 0) {
                clock.tick();
            }
            writer.write(converter.convert(records.get(i)));
        }
        return finish(writer);
    }

    /**
     * Converts {@link #WRITE_CHUNK} records at a time outside the timing, then writes them timed, so
     * the rows are as fresh in the caches as a task's are when it writes what it just converted;
     * {@code finish()} is timed too. The timed nanoseconds go to {@code timedNanos[0]}.
     */
    private static long write(PartitionedWriter writer, RecordConverter converter, BatchClock clock,
                              List<SinkRecord> records, long[] timedNanos) throws Exception {
        Object[][] chunk = new Object[WRITE_CHUNK][];
        long nanos = 0;
        for (int from = 0; from < records.size(); from += WRITE_CHUNK) {
            int n = Math.min(WRITE_CHUNK, records.size() - from);
            for (int i = 0; i < n; i++) {
                if ((from + i) % PUT_RECORDS == 0) {
                    clock.tick();
                }
                chunk[i] = converter.convert(records.get(from + i));
            }
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                writer.write(chunk[i]);
            }
            nanos += System.nanoTime() - start;
        }
        long start = System.nanoTime();
        long rows = finish(writer);
        timedNanos[0] = nanos + System.nanoTime() - start;
        return rows;
    }

    private static PartitionedWriter writer(DeltaSinkConfig config, StorageSettings storage,
                                            RecordConverter converter) throws Exception {
        WriterSettings settings = new WriterSettings(config.compression(), config.rowGroupBytes(), config.pageBytes(),
                config.fileTargetBytes(), config.bufferMaxBytes(), config.statsColumns(), config.bufferMaxOpenFiles(),
                storage.uploadBufferBytesPerFile());
        return new PartitionedWriter(settings, converter.schema(), config.partitionColumns(), storage.tablePath(),
                storage.hadoopConf(), Clock.systemUTC());
    }

    private static long finish(PartitionedWriter writer) throws Exception {
        long rows = 0;
        for (DataFile f : writer.finish()) {
            rows += f.stats().numRecords();
        }
        return rows;
    }

    private static void deleteFiles(Path dir) throws java.io.IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).filter(p -> !p.equals(dir)).forEach(p -> p.toFile().delete());
        }
    }
}
