package io.deltasink.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;

/** Rolling, the memory bound, abort and codecs: real files, read back with parquet-hadoop's example reader. */
class FileLifecycleTest {
    static final RowSchema SCHEMA = new RowSchema(List.of(
            Column.of("part", ColumnType.STRING, false),
            Column.of("id", ColumnType.LONG, false),
            Column.of("payload", ColumnType.STRING, true)));

    @TempDir
    Path dir;

    PartitionedWriter writer(WriterSettings settings) throws Exception {
        return new PartitionedWriter(settings, SCHEMA, List.of("part"), ParquetTestFiles.hadoopPath(dir),
                new Configuration(), ParquetRoundTripTest.CLOCK);
    }

    /** Distinct, poorly compressible values so sizes grow with every row. */
    static Object[] row(String part, long id) {
        return new Object[] {part, id * 7919 + 13, "payload-" + Long.toHexString(id * 0x9E3779B97F4A7C15L)};
    }

    /** Reads every file back and checks its rows against the reported stats; returns all ids. */
    private Set<Long> readBack(List<DataFile> files) throws Exception {
        Set<Long> ids = new HashSet<>();
        for (DataFile f : files) {
            Path p = dir.resolve(f.path());
            assertEquals(Files.size(p), f.size(), "reported size of " + f.path());
            List<Group> rows = ParquetTestFiles.readRows(p);
            assertEquals(f.stats().numRecords(), rows.size(), "numRecords of " + f.path());
            for (Group g : rows) {
                assertTrue(ids.add(g.getLong("id", 0)), "duplicate row");
            }
        }
        return ids;
    }

    @Test
    void filesRollAtTheTargetSize() throws Exception {
        long target = 64 * 1024;
        PartitionedWriter w = writer(WriterSettings.defaults().withRowGroupSizeBytes(16 * 1024)
                .withTargetFileSizeBytes(target));
        int rows = 20_000;
        for (int i = 0; i < rows; i++) {
            w.write(row("a", i));
        }
        assertEquals(rows, w.rowsBuffered());
        List<DataFile> files = w.finish();
        assertEquals(0, w.rowsBuffered());
        assertTrue(files.size() >= 3, "expected several files, got " + files.size());
        // every file but the last one was closed at the target: written plus buffered size reached it,
        // and the buffered part shrinks a little when its last row group is compressed
        for (DataFile f : files.subList(0, files.size() - 1)) {
            assertTrue(f.size() > target * 3 / 4 && f.size() < target * 5 / 4, f.path() + " is " + f.size() + " bytes");
        }
        assertTrue(files.get(files.size() - 1).size() < target * 5 / 4);
        assertEquals(rows, files.stream().mapToLong(f -> f.stats().numRecords()).sum());
        assertEquals(rows, readBack(files).size());
        assertEquals(files.size(), new HashSet<>(files.stream().map(DataFile::path).toList()).size());
    }

    @Test
    void memoryBoundWritesOutTheLargestPartitionEarlyWithoutLosingRows() throws Exception {
        WriterSettings settings = WriterSettings.defaults().withBufferMaxBytes(512 * 1024);
        long bound = settings.bufferMaxBytes();
        PartitionedWriter w = writer(settings);
        int rows = 12_000;
        int earlyCloses = 0;
        long previousCounted = 0;
        int previousOpen = 0;
        for (int i = 0; i < rows; i++) {
            w.write(row(i % 10 == 0 ? "small" : "big", i));
            assertTrue(w.bufferedBytes() <= bound, "counted " + w.bufferedBytes() + " > bound");
            assertTrue(w.bufferedBytes() > 0, "buffered bytes are tracked");
            if (w.openFiles() < previousOpen) {
                earlyCloses++;
                assertTrue(w.bufferedBytes() < previousCounted, "closing early frees counted bytes");
            }
            previousCounted = w.bufferedBytes();
            previousOpen = w.openFiles();
        }
        assertTrue(earlyCloses >= 2, "expected early closes, got " + earlyCloses);

        List<DataFile> files = w.finish();
        List<DataFile> big = files.stream().filter(f -> f.path().startsWith("part=big/")).toList();
        List<DataFile> small = files.stream().filter(f -> f.path().startsWith("part=small/")).toList();
        assertEquals(1, small.size(), "the small partition never held the most");
        assertTrue(big.size() >= 3, "big partition written out early several times: " + big.size());
        assertEquals(rows / 10, small.get(0).stats().numRecords());
        assertEquals(rows, readBack(files).size());
    }

    @Test
    void rowGroupsAlreadyWrittenDoNotCountAsBuffered() throws Exception {
        long rowGroup = 8 * 1024;
        WriterSettings settings = WriterSettings.defaults().withRowGroupSizeBytes(rowGroup);
        // room for one open file's overhead and two row groups held at three times their size (the
        // dictionaries of unique values, held until the row group is written, are bigger than the values)
        long bound = settings.openFileOverheadBytes(2) + 2 * 3 * WriterSettings.ROW_DATA_FACTOR * rowGroup;
        PartitionedWriter w = writer(settings.withBufferMaxBytes(bound));
        int rows = 40_000;
        for (int i = 0; i < rows; i++) {
            w.write(row("one", i));
            assertTrue(w.openFiles() <= 1);
            assertTrue(w.bufferedBytes() <= bound);
        }
        List<DataFile> files = w.finish();
        assertEquals(1, files.size(), "no early close while row groups keep the buffer small");
        assertTrue(files.get(0).size() > 2 * bound, "file grew far past the buffer bound: " + files.get(0).size());
        assertTrue(ParquetTestFiles.footer(dir.resolve(files.get(0).path())).getBlocks().size() > 4);
        assertEquals(rows, readBack(files).size());
    }

    @Test
    void abortDeletesFinishedAndOpenFiles() throws Exception {
        PartitionedWriter w = writer(WriterSettings.defaults().withTargetFileSizeBytes(16 * 1024)
                .withRowGroupSizeBytes(8 * 1024));
        for (int i = 0; i < 5000; i++) {
            w.write(row(i % 2 == 0 ? "x" : "y", i));
        }
        assertTrue(w.bufferedBytes() > 0, "rows in memory: in open files or waiting for one");
        long filesBefore = ParquetTestFiles.filesUnder(dir).stream()
                .filter(p -> p.toString().endsWith(".parquet")).count();
        assertTrue(filesBefore > 2, "rolled files exist before abort: " + filesBefore);

        w.abort();
        assertEquals(List.of(), ParquetTestFiles.filesUnder(dir));
        assertEquals(0, w.openFiles());
        assertEquals(0, w.rowsBuffered());
        assertEquals(0, w.bufferedBytes());

        // the writer goes on after an abort; only new rows show up
        w.write(row("x", 1_000_000));
        List<DataFile> files = w.finish();
        assertEquals(1, files.size());
        assertEquals(Set.of(1_000_000L * 7919 + 13), readBack(files));
        assertEquals(1, ParquetTestFiles.filesUnder(dir).stream().filter(p -> p.toString().endsWith(".parquet")).count());
    }

    @Test
    void finishedFilesOfAnEarlierFinishSurviveAnAbort() throws Exception {
        PartitionedWriter w = writer(WriterSettings.defaults());
        w.write(row("x", 1));
        DataFile committed = w.finish().get(0);
        w.write(row("x", 2));
        w.abort();
        assertTrue(Files.isRegularFile(dir.resolve(committed.path())));
        assertFalse(w.finish().iterator().hasNext());
    }

    @Test
    void localFilesHaveNoChecksumSidecars() throws Exception {
        PartitionedWriter w = writer(WriterSettings.defaults());
        for (int i = 0; i < 30; i++) {
            w.write(row("p" + i % 3, i));
        }
        List<DataFile> files = w.finish();
        assertEquals(3, files.size());
        // created with java.nio, not through Hadoop's checksummed local file system, which forks
        // chmod for every file and its .crc
        assertEquals(files.stream().map(f -> dir.resolve(f.path())).collect(java.util.stream.Collectors.toSet()),
                Set.copyOf(ParquetTestFiles.filesUnder(dir)));
        assertEquals(30, readBack(files).size());
    }

    @ParameterizedTest
    @CsvSource({"snappy, .c000.snappy.parquet, SNAPPY", "zstd, .c000.zstd.parquet, ZSTD",
        "gzip, .c000.gz.parquet, GZIP", "uncompressed, .c000.parquet, UNCOMPRESSED"})
    void everyCodecWritesReadableFiles(String codec, String suffix, CompressionCodecName expected) throws Exception {
        PartitionedWriter w = writer(WriterSettings.defaults().withCompression(codec));
        for (int i = 0; i < 500; i++) {
            w.write(row("c", i));
        }
        List<DataFile> files = w.finish();
        assertEquals(1, files.size());
        assertTrue(files.get(0).path().endsWith(suffix), files.get(0).path());
        assertEquals(500, readBack(files).size());
        for (BlockMetaData block : ParquetTestFiles.footer(dir.resolve(files.get(0).path())).getBlocks()) {
            for (ColumnChunkMetaData chunk : block.getColumns()) {
                assertEquals(expected, chunk.getCodec());
            }
        }
    }
}
