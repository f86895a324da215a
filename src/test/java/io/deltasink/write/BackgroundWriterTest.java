package io.deltasink.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.model.DataFile;
import io.deltasink.testing.DataFileFaults;

/**
 * The hand-off to the writer thread against real files: rows refused on the caller's thread with
 * nothing kept, a storage failure of the writer thread thrown by the next call and by finish()
 * until abort(), abort() in the middle of the writer's work deleting every file.
 */
class BackgroundWriterTest {
    static final String THREAD = "delta-writer-test";

    @TempDir
    Path dir;
    private BackgroundWriter writer;

    @AfterEach
    void close() {
        DataFileFaults.stop(dir.toUri().toString());
        if (writer != null) {
            writer.close();
        }
    }

    private BackgroundWriter writer(WriterSettings settings) throws IOException {
        Configuration conf = new Configuration();
        conf.set("fs.file.impl", DataFileFaults.Local.class.getName());
        conf.setBoolean("fs.file.impl.disable.cache", true);
        PartitionedWriter files = new PartitionedWriter(settings, FileLifecycleTest.SCHEMA, List.of("part"),
                ParquetTestFiles.hadoopPath(dir), conf, ParquetRoundTripTest.CLOCK);
        writer = new BackgroundWriter(files, THREAD);
        return writer;
    }

    /** Small files: the writer thread creates one every few hundred rows. */
    private static WriterSettings smallFiles() {
        return WriterSettings.defaults().withRowGroupSizeBytes(16 * 1024).withTargetFileSizeBytes(16 * 1024);
    }

    private Set<Long> readBack(List<DataFile> files) throws Exception {
        Set<Long> ids = new HashSet<>();
        for (DataFile f : files) {
            for (Group g : ParquetTestFiles.readRows(dir.resolve(f.path()))) {
                assertTrue(ids.add(g.getLong("id", 0)), "duplicate row");
            }
        }
        return ids;
    }

    private Set<Path> dataFiles() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".parquet")).collect(Collectors.toSet());
        }
    }

    @Test
    void rowsAreWrittenOnTheWriterThreadAndAllComeBack() throws Exception {
        BackgroundWriter w = writer(smallFiles());
        int rows = 5_000;
        Set<Long> want = new HashSet<>();
        for (int i = 0; i < rows; i++) {
            Object[] row = FileLifecycleTest.row(i % 3 == 0 ? "a" : "b", i);
            want.add((Long) row[1]);
            w.write(row);
        }
        assertEquals(rows, w.rowsBuffered());
        List<DataFile> files = w.finish();
        assertEquals(0, w.rowsBuffered());
        assertTrue(files.size() > 4, "several files: " + files.size());
        assertEquals(want, readBack(files));
        for (DataFile f : files) {
            assertEquals(THREAD, DataFileFaults.creatingThread(Path.of(f.path()).getFileName().toString()));
        }
    }

    @Test
    void aRefusedRowIsThrownByItsOwnWriteAndNothingOfItIsKept() throws Exception {
        BackgroundWriter w = writer(WriterSettings.defaults());
        w.write(FileLifecycleTest.row("a", 1));
        RowRejectedException tooLong = assertThrows(RowRejectedException.class,
                () -> w.write(FileLifecycleTest.row("x".repeat(300), 2)));
        assertEquals("part", tooLong.column());
        // the same partition again: refused again, not remembered as checked
        assertThrows(RowRejectedException.class, () -> w.write(FileLifecycleTest.row("x".repeat(300), 3)));
        RowRejectedException nullId = assertThrows(RowRejectedException.class,
                () -> w.write(new Object[] {"a", null, "p"}));
        assertEquals("id", nullId.column());
        w.write(FileLifecycleTest.row("a", 4));
        assertEquals(2, w.rowsBuffered());
        assertEquals(Set.of(1 * 7919 + 13L, 4 * 7919 + 13L), readBack(w.finish()));
    }

    @Test
    void aStorageFailureOfTheWriterThreadIsThrownUntilAbortDeletesEveryFile() throws Exception {
        BackgroundWriter w = writer(smallFiles());
        DataFileFaults.failNth(dir.toUri().toString(), DataFileFaults.Fault.CREATE, 3);
        IOException failure = null;
        int i = 0;
        while (failure == null && i < 100_000) {
            try {
                w.write(FileLifecycleTest.row("a", i++));
            } catch (IOException e) {
                failure = e;
            }
        }
        assertTrue(failure != null && failure.getMessage().contains("injected: cannot create"), String.valueOf(failure));
        IOException again = assertThrows(IOException.class, w::finish, "finish() after a failure throws");
        assertSame(failure, again);
        assertThrows(IOException.class, w::drain);
        assertNotEquals(Set.of(), dataFiles(), "files of the batch were written before the failure");

        w.abort();
        assertEquals(Set.of(), dataFiles(), "abort deletes every file of the batch");
        assertEquals(0, w.rowsBuffered());
        // usable again after abort
        w.write(FileLifecycleTest.row("a", 1));
        assertEquals(Set.of(7919 + 13L), readBack(w.finish()));
    }

    @Test
    void abortWhileTheWriterThreadIsBusyDeletesEveryFile() throws Exception {
        BackgroundWriter w = writer(smallFiles());
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 3_000; i++) {
                w.write(FileLifecycleTest.row(i % 2 == 0 ? "a" : "b", i));
            }
            w.abort(); // chunks still queued or being written
            assertEquals(Set.of(), dataFiles(), "round " + round);
        }
        assertEquals(List.of(), w.finish());
    }

    @Test
    void anInterruptWhileWaitingLosesNeitherFilesNorAFailure() throws Exception {
        BackgroundWriter w = writer(smallFiles());
        for (int i = 0; i < 3_000; i++) {
            w.write(FileLifecycleTest.row("a", i));
        }
        Thread.currentThread().interrupt();
        List<DataFile> files = w.finish(); // waits for the writer thread through the interrupt
        assertTrue(Thread.interrupted(), "the interrupt is kept");
        assertEquals(3_000, readBack(files).size());

        DataFileFaults.failNth(dir.toUri().toString(), DataFileFaults.Fault.WRITE, 2);
        IOException failure = null;
        try {
            for (int i = 0; i < 3_000; i++) {
                w.write(FileLifecycleTest.row("a", i));
            }
            Thread.currentThread().interrupt();
            w.finish();
        } catch (IOException e) {
            failure = e;
        } finally {
            Thread.interrupted();
        }
        assertTrue(failure != null && failure.getMessage().startsWith("injected"), "the writer's failure, not the "
                + "interrupt: " + failure);
        w.abort();
        assertEquals(files.stream().map(f -> dir.resolve(f.path())).collect(Collectors.toSet()), dataFiles(),
                "the second batch's files are deleted, the finished first one's stay");
    }

    @Test
    void closeEndsTheWriterThread() throws Exception {
        BackgroundWriter w = writer(smallFiles());
        for (int i = 0; i < 1_000; i++) {
            w.write(FileLifecycleTest.row("a", i));
        }
        w.finish();
        assertEquals(1, threads());
        w.close();
        // the pool is terminated before its thread has quite ended: a bounded wait for that
        for (Thread t : writerThreads()) {
            t.join(10_000);
        }
        assertEquals(0, threads());
    }

    private static long threads() {
        return writerThreads().size();
    }

    private static List<Thread> writerThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().equals(THREAD))
                .toList();
    }
}
