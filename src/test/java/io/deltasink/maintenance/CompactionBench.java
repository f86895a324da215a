package io.deltasink.maintenance;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.deltasink.model.DataFile;
import io.deltasink.proc.ChildClasspath;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;
import io.deltasink.write.PartitionedWriter;
import io.deltasink.write.WriterSettings;

/**
 * Compaction throughput and heap: builds a local table of FILES small files of ROWS rows each in
 * one table partition (the connector's writer, commits of 100 files), then compacts it with the
 * default options (no age limit, no bound per run) in a child JVM with a 256 MB heap, and prints
 * rows/s, input bytes/s, files before and after and the child's peak heap (heap in use, sampled
 * every 5 ms).
 *
 * <p>{@code mvn -q -B -Pbench test-compile exec:java -Dbench.main=io.deltasink.maintenance.CompactionBench
 * [-Dexec.args="FILES ROWS"]} (default 1000 files x 1000 rows).
 */
public final class CompactionBench {
    private static final int FILES_PER_COMMIT = 100;

    private CompactionBench() {
    }

    public static void main(String[] args) throws Exception {
        int files = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int rows = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        Path dir = Files.createTempDirectory("compaction-bench");
        String table = dir.resolve("table").toString();
        long started = System.nanoTime();
        try (StorageSettings storage = new StorageSettings(table, Map.of())) {
            build(storage, files, rows);
        }
        System.out.printf(Locale.ROOT, "built %d files x %d rows in %.1f s at %s%n", files, rows,
                (System.nanoTime() - started) / 1e9, table);
        Process child = new ProcessBuilder(javaBinary(), "-Xmx256m", "-cp", ChildClasspath.current(),
                Child.class.getName(), table).inheritIO().start();
        int exit = child.waitFor();
        if (exit != 0) {
            throw new IllegalStateException("the compacting JVM exited with " + exit);
        }
    }

    private static void build(StorageSettings storage, int files, int rows) throws IOException {
        DeltaTable deltaTable = SmallFileTables.create(storage);
        Clock clock = Clock.systemUTC();
        PartitionedWriter writer = new PartitionedWriter(WriterSettings.defaults(), SmallFileTables.SCHEMA,
                SmallFileTables.PARTITIONS, storage.tablePath(), storage.hadoopConf(), clock);
        List<DataFile> batch = new ArrayList<>();
        long seq = 0;
        for (int f = 0; f < files; f++) {
            for (int r = 0; r < rows; r++) {
                Object[] row = SmallFileTables.row(seq++, "plug", 20_626);
                row[10] = "{\"linkquality\":" + (seq % 255) + ",\"state\":\"ON\",\"power\":" + (seq % 1000) / 10.0
                        + ",\"voltage\":230.1,\"current\":0.12,\"energy\":" + seq + ",\"device\":\"0x00158d000"
                        + (seq % 97) + "\"}";
                writer.write(row);
            }
            batch.addAll(writer.finish());
            if (batch.size() == FILES_PER_COMMIT || f == files - 1) {
                deltaTable.commitAppend(deltaTable.latest().orElseThrow(), batch, Map.of(SmallFileTables.APP_ID,
                        seq), SmallFileTables.ENGINE_INFO);
                batch.clear();
            }
        }
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The compacting JVM: one run with the defaults, no age limit and no bound per run. */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
            AtomicLong peak = new AtomicLong();
            Thread sampler = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "heap-sampler");
            sampler.setDaemon(true);
            sampler.start();
            try (StorageSettings storage = new StorageSettings(args[0], Map.of())) {
                DeltaTable table = new DeltaTable(storage.createEngine(), storage.tableUri());
                int before = table.latest().orElseThrow().files().size();
                long started = System.nanoTime();
                CompactionResult result = new Compactor(storage, Clock.systemUTC()).run(CompactionOptions.defaults()
                        .withMinAge(Duration.ZERO).withMaxBytesPerRun(Long.MAX_VALUE));
                double seconds = (System.nanoTime() - started) / 1e9;
                int after = table.latest().orElseThrow().files().size();
                sampler.interrupt();
                System.out.print(result.toText());
                System.out.printf(Locale.ROOT, "files %d -> %d; %.1f s; %,.0f rows/s; %.1f MiB/s of input; "
                                + "peak heap in use %d MiB of %d MiB (-Xmx256m)%n", before, after, seconds,
                        result.rowsRewritten() / seconds, result.bytesRewritten() / seconds / (1 << 20),
                        peak.get() >> 20, memory.getHeapMemoryUsage().getMax() >> 20);
                File root = new File(java.net.URI.create(storage.tableUri()));
                System.out.println("table: " + root);
            }
        }
    }
}
