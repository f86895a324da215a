package io.deltasink.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.model.DataFile;

/**
 * The memory bound counts every open file (rows and per-file overhead) and rows waiting for a
 * file, and caps the open files: many table partitions under a small bound, read back with
 * parquet-hadoop's example reader.
 */
class MemoryBoundTest {
    /** Data columns of {@link FileLifecycleTest#SCHEMA} besides the partition column. */
    static final int DATA_COLUMNS = 2;

    @TempDir
    Path dir;

    PartitionedWriter writer(WriterSettings settings) throws Exception {
        return new PartitionedWriter(settings, FileLifecycleTest.SCHEMA, List.of("part"),
                ParquetTestFiles.hadoopPath(dir), new Configuration(), ParquetRoundTripTest.CLOCK);
    }

    /** Reads every file back: ids per partition folder; fails on a duplicate row. */
    private Map<String, Set<Long>> readBack(List<DataFile> files) throws Exception {
        Map<String, Set<Long>> ids = new HashMap<>();
        Set<Long> all = new HashSet<>();
        for (DataFile f : files) {
            Path p = dir.resolve(f.path());
            assertEquals(Files.size(p), f.size(), "reported size of " + f.path());
            List<Group> rows = ParquetTestFiles.readRows(p);
            assertEquals(f.stats().numRecords(), rows.size(), "numRecords of " + f.path());
            String folder = f.path().substring(0, f.path().indexOf('/'));
            for (Group g : rows) {
                long id = g.getLong("id", 0);
                assertTrue(all.add(id), "duplicate row " + id);
                ids.computeIfAbsent(folder, k -> new HashSet<>()).add(id);
            }
        }
        return ids;
    }

    private static long id(long i) {
        return i * 7919 + 13;
    }

    @Test
    void thousandsOfPartitionsStayWithinTheOpenFileCapAndTheBound() throws Exception {
        long bound = 4 << 20;
        WriterSettings settings = WriterSettings.defaults().withBufferMaxBytes(bound);
        int cap = settings.openFileCap(DATA_COLUMNS);
        assertEquals(bound / (2 * settings.openFileOverheadBytes(DATA_COLUMNS)), cap, "cap derived from the bound");
        assertTrue(cap < 40, "a small cap for this test: " + cap);
        PartitionedWriter w = writer(settings);

        int partitions = 3000;
        int rounds = 8;
        int busy = 100;
        // rounds over every partition, each round in a different order; a few partitions get more
        // rows than the others, enough for a file of their own
        long rows = 0;
        int maxOpen = 0;
        long maxCounted = 0;
        for (int round = 0; round < rounds; round++) {
            for (int k = 0; k < partitions; k++) {
                int p = (int) ((k * 7L + round * 1031L) % partitions);
                int copies = p < 5 ? busy : 1;
                for (int c = 0; c < copies; c++) {
                    w.write(FileLifecycleTest.row("p" + p, rows++));
                    maxOpen = Math.max(maxOpen, w.openFiles());
                    maxCounted = Math.max(maxCounted, w.bufferedBytes());
                    assertTrue(w.openFiles() <= cap, "open files " + w.openFiles() + " > cap " + cap);
                    assertTrue(w.bufferedBytes() <= bound, "counted " + w.bufferedBytes() + " > bound " + bound);
                }
            }
        }
        assertEquals(rows, w.rowsBuffered());
        assertTrue(maxOpen >= 2, "busy partitions got open files: " + maxOpen);
        assertTrue(maxCounted > bound / 2, "the bound was reached: " + maxCounted);

        List<DataFile> files = w.finish();
        assertEquals(0, w.openFiles());
        assertEquals(0, w.bufferedBytes());
        assertEquals(rows, files.stream().mapToLong(f -> f.stats().numRecords()).sum());
        Map<String, Set<Long>> ids = readBack(files);
        assertEquals(partitions, ids.size(), "a folder per table partition");
        long total = 0;
        for (int p = 0; p < partitions; p++) {
            Set<Long> got = ids.get("part=p" + p);
            assertEquals(p < 5 ? busy * rounds : rounds, got.size(), "rows of partition p" + p);
            total += got.size();
        }
        assertEquals(rows, total);
        // the bound wrote some partitions out early, and rows waiting for a file went out together,
        // not a file per row
        assertTrue(files.size() > partitions, "early write-outs: " + files.size() + " files");
        assertTrue(files.size() < rows / 3, files.size() + " files for " + rows + " rows");
    }

    @Test
    void anOpenFileCountsItsOverheadBesidesItsRows() throws Exception {
        WriterSettings settings = WriterSettings.defaults();
        long overhead = settings.openFileOverheadBytes(DATA_COLUMNS);
        assertEquals(32 * 1024 + 2 * 20 * 1024, overhead);
        PartitionedWriter w = writer(settings);
        int rows = 0;
        while (w.openFiles() == 0) {
            w.write(FileLifecycleTest.row("a", rows++));
            assertTrue(rows < 10_000, "rows of a busy partition get a file of their own");
        }
        // the file got the rows that were waiting for it, and counts its overhead from then on
        assertTrue(w.bufferedBytes() > overhead, "counted " + w.bufferedBytes());
        long before = w.bufferedBytes();
        for (int i = 0; i < 5000; i++) {
            w.write(FileLifecycleTest.row("a", rows++));
        }
        assertTrue(w.bufferedBytes() > before, "rows in the open row group count: " + w.bufferedBytes());
        assertEquals(1, w.openFiles());
        List<DataFile> files = w.finish();
        assertEquals(1, files.size(), "waiting rows and later rows share one file");
        assertEquals(rows, readBack(files).get("part=a").size());
    }

    @Test
    void atTheCapTheLeastRecentlyWrittenFileIsClosedFirst() throws Exception {
        PartitionedWriter w = writer(WriterSettings.defaults().withMaxOpenFiles(2));
        long i = 0;
        while (w.openFiles() < 1) {
            w.write(FileLifecycleTest.row("a", i++));
        }
        long rowsToOpen = i;
        while (w.openFiles() < 2) {
            w.write(FileLifecycleTest.row("b", i++));
        }
        // a was written before b; a new row of a makes b the least recently written
        w.write(FileLifecycleTest.row("a", i++));
        // enough rows of c for a file of their own: at the cap, b is closed for it
        for (int k = 0; k < 2 * rowsToOpen; k++) {
            w.write(FileLifecycleTest.row("c", i++));
            assertTrue(w.openFiles() <= 2);
        }
        List<DataFile> files = w.finish();
        assertEquals(3, files.size(), "one file per partition: " + files);
        assertTrue(files.get(0).path().startsWith("part=b/"), "b closed first: " + files.get(0).path());
        Map<String, Set<Long>> ids = readBack(files);
        assertEquals(i, ids.values().stream().mapToLong(Set::size).sum());
        assertEquals(rowsToOpen + 1, ids.get("part=a").size());
    }

    @Test
    void abortDropsRowsWaitingForAFile() throws Exception {
        PartitionedWriter w = writer(WriterSettings.defaults());
        for (int i = 0; i < 100; i++) {
            w.write(FileLifecycleTest.row("p" + (i % 10), i));
        }
        assertEquals(0, w.openFiles(), "few rows per partition wait without a file");
        assertTrue(w.bufferedBytes() > 0, "waiting rows are counted");
        w.abort();
        assertEquals(0, w.bufferedBytes());
        assertEquals(0, w.rowsBuffered());
        assertEquals(List.of(), w.finish());
        assertEquals(List.of(), ParquetTestFiles.filesUnder(dir));
    }
}
