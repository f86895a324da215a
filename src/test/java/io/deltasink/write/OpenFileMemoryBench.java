package io.deltasink.write;

import java.io.IOException;
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

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.ColumnMapping;
import io.deltasink.convert.MappingConverter;
import io.deltasink.model.Column;
import io.deltasink.model.RowSchema;
import io.deltasink.proc.ChildJvm;
import io.deltasink.proc.Preset;
import io.deltasink.proc.WorkerProcess;
import io.deltasink.testing.SensorEvents;

/**
 * Memory of open Parquet files, per codec and page size: opens N files of the seed preset's rows
 * (one per table partition, device types x days) with K rows each, and measures after a full GC
 * the heap in use (MemoryMXBean), the direct buffers (BufferPoolMXBean "direct") and the process's
 * resident set (VmRSS; the heap is pre-touched, so its growth is native memory outside the heap,
 * e.g. zlib streams), then closes them all and measures what stays (compressors Hadoop's CodecPool
 * keeps). Two ways to open a file: "shared", as {@link PartitionedWriter} does (one compressor for
 * all open files, dictionary pages at most 128 KiB), and "parquet", Parquet's defaults (a
 * compressor per file, dictionary pages of the page size), which the connector used before.
 * Each configuration runs in a JVM of its own, since codec pools are per JVM. Run from the
 * project root: {@code mvn -q -B -Pbench test-compile exec:java -Dbench.main=io.deltasink.write.OpenFileMemoryBench
 * [-Dexec.args="FILES ROWS [shared|parquet]"]}.
 */
public final class OpenFileMemoryBench {
    private static final String CHILD_HEAP = "1g";
    private static final int DEVICE_TYPES = 20;

    private OpenFileMemoryBench() {
    }

    /** Args: [files, default 200] [rows per file, default 5] [shared|parquet|both, default both]. */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("child")) {
            child(args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]), Integer.parseInt(args[5]));
            return;
        }
        int files = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int rows = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        List<String> modes = args.length > 2 && !args[2].equals("both") ? List.of(args[2]) : List.of("parquet", "shared");
        System.out.printf(Locale.ROOT, "=== OpenFileMemoryBench: %d open files of the seed preset's rows, %d rows each, "
                + "child JVM -Xmx%s (pre-touched); KiB per file ===%n", files, rows, CHILD_HEAP);
        System.out.println("compressor codec        page | open: heap  direct  native | Parquet's count  counted "
                + "| after close: heap  direct  native");
        for (String mode : modes) {
            for (String codec : WriterSettings.COMPRESSIONS) {
                for (int page : new int[] {WriterSettings.DEFAULT_PAGE_SIZE_BYTES, 64 * 1024}) {
                    System.out.println(runChild(mode, codec, page, files, rows));
                }
            }
        }
    }

    private static String runChild(String mode, String codec, int page, int files, int rows)
            throws IOException, InterruptedException {
        return ChildJvm.result(WorkerProcess.Launch.testClassPath(),
                List.of("-Xms" + CHILD_HEAP, "-Xmx" + CHILD_HEAP, "-XX:+AlwaysPreTouch"),
                OpenFileMemoryBench.class.getName(), List.of("child", mode, codec, Integer.toString(page),
                        Integer.toString(files), Integer.toString(rows)));
    }

    private static void child(String mode, String codec, int page, int files, int rows) throws Exception {
        Path dir = Files.createTempDirectory("memory-bench-");
        DeltaSinkConfig config = new DeltaSinkConfig(Preset.sensorEventsLocal().config());
        MappingConverter converter = new MappingConverter(
                ColumnMapping.parse(config.columns(), config.notNullColumns()), Clock.systemUTC());
        RowSchema schema = converter.schema();
        List<Column> dataColumns = new ArrayList<>();
        List<Integer> dataIndexes = new ArrayList<>();
        for (int i = 0; i < schema.size(); i++) {
            if (!config.partitionColumns().contains(schema.column(i).name())) {
                dataColumns.add(schema.column(i));
                dataIndexes.add(i);
            }
        }
        WriterSettings settings = WriterSettings.defaults().withCompression(codec).withPageSizeBytes(page);
        Configuration conf = new Configuration();
        FileSystem fs = FileSystem.getLocal(conf);
        SharedCompressor shared = new SharedCompressor(conf, settings.codec());
        int[] indexes = dataIndexes.stream().mapToInt(Integer::intValue).toArray();
        Opener opener = (name, support) -> mode.equals("shared")
                ? new ParquetFile(OpenFile.create(fs, new org.apache.hadoop.fs.Path(dir.toUri().toString(), name),
                        name, java.util.Map.of(), new RowColumns(dataColumns, indexes), settings, shared, java.util.Set.of()))
                : ParquetFile.ownCompressor(new CountingOutputFile(fs,
                        new org.apache.hadoop.fs.Path(dir.toUri().toString(), name)), support, settings, conf);

        // warm-up: classes, codec instances, static caches
        ParquetFile warm = opener.open("warm.parquet", new RowWriteSupport(dataColumns, indexes));
        for (int r = 0; r < rows; r++) {
            warm.write(row(converter, 1_000_000 + r, 0));
        }
        warm.close();

        Figures before = Figures.now();
        List<ParquetFile> open = new ArrayList<>();
        for (int f = 0; f < files; f++) {
            open.add(opener.open("f" + f + ".parquet", new RowWriteSupport(dataColumns, indexes)));
        }
        long seq = 0;
        for (int r = 0; r < rows; r++) {
            for (int f = 0; f < files; f++) {
                open.get(f).write(row(converter, seq++, f));
            }
        }
        Figures opened = Figures.now();
        if (Boolean.getBoolean("bench.histogram")) {
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(ProcessHandle.current().pid()), "GC.class_histogram").start();
            new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().limit(30)
                    .forEach(System.out::println);
            jcmd.waitFor();
        }
        long parquetCount = open.stream().mapToLong(ParquetFile::buffered).sum();
        long counted = (long) files * settings.openFileOverheadBytes(dataColumns.size())
                + WriterSettings.ROW_DATA_FACTOR * parquetCount;
        for (ParquetFile f : open) {
            f.close();
        }
        open.clear();
        Figures closed = Figures.now();
        System.out.printf(Locale.ROOT, ChildJvm.RESULT + "%-10s %-12s %4dK | %9.0f %7.0f %7.0f | %15.0f %8.0f | %17.0f %7.0f %7.0f%n",
                mode, codec, page / 1024, kib(opened.heap - before.heap, files), kib(opened.direct - before.direct, files),
                kib(opened.rss - before.rss, files), kib(parquetCount, files), kib(counted, files),
                kib(closed.heap - before.heap, files), kib(closed.direct - before.direct, files),
                kib(closed.rss - before.rss, files));
    }

    private static Object[] row(MappingConverter converter, long seq, int file) {
        String type = SensorEvents.SMART_PLUG + "_" + (file % DEVICE_TYPES);
        LocalDate day = SensorEvents.DAY.minusDays(file / DEVICE_TYPES);
        SensorEvents.Event e = SensorEvents.event(seq, day, type);
        return converter.convert(new SinkRecord("sensor-events", 0, null, e.deviceId(), null, e.json(), seq));
    }

    private static double kib(long bytes, int files) {
        return bytes / 1024.0 / files;
    }

    private interface Opener {
        ParquetFile open(String name, RowWriteSupport support) throws IOException;
    }

    /** An open file either way: ours, or a ParquetWriter with Parquet's own compressor per file. */
    private record ParquetFile(OpenFile file, ParquetWriter<Object[]> writer, CountingOutputFile output) {
        ParquetFile(OpenFile file) {
            this(file, null, null);
        }

        static ParquetFile ownCompressor(CountingOutputFile output, RowWriteSupport support, WriterSettings settings,
                                         Configuration conf) throws IOException {
            return new ParquetFile(null, new RowParquetWriterBuilder(output, support)
                    .withConf(conf)
                    .withWriteMode(ParquetFileWriter.Mode.CREATE)
                    .withCompressionCodec(settings.codec())
                    .withRowGroupSize(settings.rowGroupSizeBytes())
                    .withPageSize(settings.pageSizeBytes())
                    .withDictionaryPageSize(settings.pageSizeBytes())
                    .withDictionaryEncoding(true)
                    .withPageWriteChecksumEnabled(false)
                    .withValidation(false)
                    .build(), output);
        }

        void write(Object[] row) throws IOException {
            if (file != null) {
                file.write(row);
            } else {
                writer.write(row);
            }
        }

        long buffered() {
            return file != null ? file.bufferedBytes() : Math.max(0, writer.getDataSize() - output.bytesWritten());
        }

        void close() throws IOException {
            if (file != null) {
                file.closeForAbort();
            } else {
                writer.close();
            }
        }
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
