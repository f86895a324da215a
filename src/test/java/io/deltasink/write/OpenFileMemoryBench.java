package io.deltasink.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.kafka.connect.sink.SinkRecord;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.ColumnMapping;
import io.deltasink.convert.MappingConverter;
import io.deltasink.proc.Preset;
import io.deltasink.proc.WorkerProcess;
import io.deltasink.storage.StorageSettings;
import io.deltasink.testing.SensorEvents;
import io.deltasink.write.PartitionedWriter;
import io.deltasink.write.WriterSettings;

/**
 * Memory of open Parquet files, per codec and page size: opens N files (one per table partition
 * of the seed preset, N device types x days) with K rows each through {@link PartitionedWriter},
 * and measures after a full GC the heap in use (MemoryMXBean), the direct buffers
 * (BufferPoolMXBean "direct") and the process's resident set (VmRSS; the heap is pre-touched, so
 * its growth is native memory outside the heap: direct buffers, codec contexts), then closes them
 * all and measures what stays (pooled compressors). Each configuration runs in a JVM of its own,
 * since codec pools are per JVM. Run from the project root:
 * {@code mvn -q -B -Pbench test-compile exec:java -Dbench.class=OpenFileMemoryBench [-Dexec.args="FILES ROWS"]}.
 */
public final class OpenFileMemoryBench {
    private static final String CHILD_HEAP = "1g";
    private static final int DEVICE_TYPES = 20;

    private OpenFileMemoryBench() {
    }

    /** Args: [files per configuration, default 200] [rows per file, default 5]; "child ..." runs one. */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("child")) {
            child(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    System.getProperty("bench.columns", "seed"), args.length > 5 && args[5].equals("histo"));
            return;
        }
        int files = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int rows = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        boolean histo = args.length > 2 && args[2].equals("histo");
        System.out.printf(Locale.ROOT, "=== OpenFileMemoryBench: %d open files of the seed preset, %d rows each, "
                + "child JVM -Xmx%s (pre-touched), KiB per file ===%n", files, rows, CHILD_HEAP);
        System.out.println("codec         page  | open: heap  direct       rss | counted by writer | "
                + "after close: heap  direct       rss");
        for (String codec : WriterSettings.COMPRESSIONS) {
            for (int page : new int[] {WriterSettings.DEFAULT_PAGE_SIZE_BYTES, 64 * 1024}) {
                System.out.println(runChild(codec, page, files, rows, histo));
            }
        }
    }

    private static String runChild(String codec, int page, int files, int rows, boolean histo)
            throws IOException, InterruptedException {
        WorkerProcess.Launch launch = WorkerProcess.Launch.testClassPath();
        Path argFile = Files.createTempFile("memory-bench-", ".args");
        Files.writeString(argFile, "-cp \"" + launch.classPath().replace("\\", "\\\\") + "\"\n");
        List<String> cmd = new ArrayList<>(List.of(launch.javaHome().resolve("bin").resolve("java").toString(),
                "-Xms" + CHILD_HEAP, "-Xmx" + CHILD_HEAP, "-XX:+AlwaysPreTouch", "@" + argFile,
                OpenFileMemoryBench.class.getName(), "child", codec, Integer.toString(page),
                Integer.toString(files), Integer.toString(rows)));
        if (histo) {
            cmd.add("histo");
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        StringBuilder out = new StringBuilder();
        String result = null;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.startsWith("RESULT ")) {
                    result = line.substring("RESULT ".length());
                } else {
                    out.append(line).append('\n');
                }
            }
        }
        p.waitFor();
        Files.deleteIfExists(argFile);
        if (result == null) {
            throw new IllegalStateException("child for " + codec + "/" + page + " failed:\n" + out);
        }
        return histo ? out + result : result;
    }

    private static void child(String codec, int page, int files, int rows, String columns, boolean histo)
            throws Exception {
        Path dir = Files.createTempDirectory("memory-bench-");
        Preset preset = Preset.sensorEventsLocal();
        if (columns.equals("narrow")) {
            preset = preset.with("columns", "device_id:string=device_id, device_type:string=device_type, "
                    + "event_time:timestamp=ingested_at, event_date:date=date(event_time)");
        } else if (columns.equals("wide")) {
            List<String> extra = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                extra.add(i % 2 == 0 ? "s" + i + ":string=device_id" : "d" + i + ":double=payload.power");
            }
            preset = preset.withExtraColumns(extra.toArray(String[]::new));
        }
        DeltaSinkConfig config = new DeltaSinkConfig(preset.config());
        MappingConverter converter = new MappingConverter(
                ColumnMapping.parse(config.columns(), config.notNullColumns()), Clock.systemUTC());
        List<String> partitionColumns = config.partitionColumns();
        WriterSettings settings = WriterSettings.defaults().withCompression(codec).withPageSizeBytes(page)
                .withBufferMaxBytes(Long.MAX_VALUE / 4);
        try (StorageSettings storage = new StorageSettings(dir.toString(), Map.of())) {
            // warm-up: classes, codec instances, static caches
            PartitionedWriter warm = new PartitionedWriter(settings, converter.schema(), partitionColumns,
                    storage.tablePath(), storage.hadoopConf(), Clock.systemUTC());
            write(warm, converter, 1, rows, 1_000_000);
            warm.finish();

            PartitionedWriter writer = new PartitionedWriter(settings, converter.schema(), partitionColumns,
                    storage.tablePath(), storage.hadoopConf(), Clock.systemUTC());
            Figures before = Figures.now();
            write(writer, converter, files, rows, 0);
            Figures open = Figures.now();
            long counted = writer.bufferedBytes();
            if (histo) {
                System.out.println(histogram());
            }
            writer.finish();
            Figures closed = Figures.now();
            System.out.printf(Locale.ROOT, "RESULT %-12s %4dK | %9.0f %7.0f %9.0f | %17.0f | %17.0f %7.0f %9.0f%n",
                    codec, page / 1024, kib(open.heap - before.heap, files), kib(open.direct - before.direct, files),
                    kib(open.rss - before.rss, files), kib(counted, files), kib(closed.heap - before.heap, files),
                    kib(closed.direct - before.direct, files), kib(closed.rss - before.rss, files));
        }
    }

    /** Writes {@code rows} rows to each of {@code files} table partitions, the partitions taking turns. */
    private static void write(PartitionedWriter writer, MappingConverter converter, int files, int rows, long seq0)
            throws IOException {
        long seq = seq0;
        for (int r = 0; r < rows; r++) {
            for (int f = 0; f < files; f++) {
                String type = SensorEvents.SMART_PLUG + "_" + (f % DEVICE_TYPES);
                LocalDate day = SensorEvents.DAY.minusDays(f / DEVICE_TYPES);
                SensorEvents.Event e = SensorEvents.event(seq++, day, type);
                writer.write(converter.convert(new SinkRecord("sensor-events", 0, null, e.deviceId(), null, e.json(),
                        seq)));
            }
        }
    }

    private static double kib(long bytes, int files) {
        return bytes / 1024.0 / files;
    }

    private static String histogram() throws IOException, InterruptedException {
        Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(ProcessHandle.current().pid()), "GC.class_histogram").redirectErrorStream(true).start();
        String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        jcmd.waitFor();
        return String.join("\n", out.lines().limit(40).toList());
    }

    /** Heap in use after a full GC, direct buffer bytes and resident set size, in bytes. */
    private record Figures(long heap, long direct, long rss) {
        static Figures now() throws IOException, InterruptedException {
            for (int i = 0; i < 3; i++) {
                System.gc();
                Thread.sleep(100);
            }
            long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            long direct = 0;
            for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
                if (pool.getName().equals("direct")) {
                    direct = pool.getMemoryUsed();
                }
            }
            long rss = 0;
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    rss = Long.parseLong(line.replaceAll("\\D", "")) * 1024;
                }
            }
            return new Figures(heap, direct, rss);
        }
    }
}
