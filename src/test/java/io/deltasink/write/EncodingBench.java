package io.deltasink.write;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.ColumnMapping;
import io.deltasink.convert.MappingConverter;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;
import io.deltasink.proc.Preset;
import io.deltasink.testing.SensorEvents;

/**
 * Parquet encoding of seed rows: converts ROWS sensor events with the seed preset's mapping
 * (outside the timing), then writes them through a {@link PartitionedWriter} as a task does,
 * calling {@code finish()} (a commit) every FLUSH rows, REPS times into fresh folders. Prints the
 * CPU time of the writing thread in each repetition (garbage collection and compression
 * threads aside; the machine's other load hardly moves it) and their median, ns per row, the bytes of all files, and the bytes
 * per column summed over the files' footers. Run from the project root:
 * {@code mvn -q -B -Pbench test-compile exec:java -Dbench.main=io.deltasink.write.EncodingBench
 * -Dexec.args="ROWS FLUSH CODEC [REPS] [zstd level]"}, defaults 200000 50000 snappy 5 3.
 */
public final class EncodingBench {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private EncodingBench() {
    }

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int flush = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
        String codec = args.length > 2 ? args[2] : "snappy";
        int reps = args.length > 3 ? Integer.parseInt(args[3]) : 7;
        String zstdLevel = args.length > 4 ? args[4] : "3";

        DeltaSinkConfig config = new DeltaSinkConfig(Preset.sensorEventsLocal().config());
        MappingConverter converter = new MappingConverter(
                ColumnMapping.parse(config.columns(), config.notNullColumns()), Clock.systemUTC());
        RowSchema schema = converter.schema();
        List<Object[]> converted = new ArrayList<>(rows);
        for (long seq = 0; seq < rows; seq++) {
            SensorEvents.Event e = SensorEvents.event(seq);
            converted.add(converter.convert(new SinkRecord("sensor-events", 0, null, e.deviceId(), null, e.json(), seq)));
        }
        WriterSettings settings = WriterSettings.defaults().withCompression(codec);
        Configuration conf = new Configuration();
        conf.set("parquet.compression.codec.zstd.level", zstdLevel);

        long[] ms = new long[reps];
        long bytes = 0;
        Map<String, Long> columnBytes = new TreeMap<>();
        for (int rep = 0; rep < reps; rep++) {
            Path dir = Files.createTempDirectory("encoding-bench-");
            PartitionedWriter writer = new PartitionedWriter(settings, schema, config.partitionColumns(),
                    new org.apache.hadoop.fs.Path(dir.toUri()), conf, Clock.systemUTC());
            List<DataFile> files = new ArrayList<>();
            long start = THREADS.getCurrentThreadCpuTime();
            for (int i = 0; i < rows; i++) {
                writer.write(converted.get(i));
                if ((i + 1) % flush == 0) {
                    files.addAll(writer.finish());
                }
            }
            files.addAll(writer.finish());
            ms[rep] = (THREADS.getCurrentThreadCpuTime() - start) / 1_000_000;
            bytes = files.stream().mapToLong(DataFile::size).sum();
            columnBytes.clear();
            for (DataFile f : files) {
                ParquetMetadata footer = ParquetTestFiles.footer(dir.resolve(f.path()));
                for (BlockMetaData block : footer.getBlocks()) {
                    for (ColumnChunkMetaData c : block.getColumns()) {
                        columnBytes.merge(c.getPath().toDotString(), c.getTotalSize(), Long::sum);
                    }
                }
            }
            System.out.printf(Locale.ROOT, "rep %d: %d ms CPU, %d files%n", rep + 1, ms[rep], files.size());
            delete(dir);
        }
        long[] sorted = ms.clone();
        Arrays.sort(sorted);
        long median = sorted[reps / 2];
        System.out.printf(Locale.ROOT, "RESULT %s%s: %d rows, flush every %d: median %d ms CPU (%.0f ns/row), %d bytes%n",
                codec, codec.equals("zstd") ? " level " + zstdLevel : "", rows, flush, median,
                median * 1e6 / rows, bytes);
        columnBytes.forEach((c, b) -> System.out.printf(Locale.ROOT, "  %-14s %10d%n", c, b));
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
