package io.deltasink.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.defaults.internal.logstore.LogStoreProvider;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.delta.storage.LogStore;

/**
 * Commits on the local file system: the first writer of a version wins, whatever the number of
 * writers, and every Hadoop-based reader (which checks a checksum file when there is one) reads the
 * winner's content.
 */
class ExclusiveLocalLogStoreTest {
    @TempDir
    java.nio.file.Path root;

    /** The Hadoop configuration the connector builds for a local table. */
    private Configuration connectorConf(Map<String, String> settings) {
        try (StorageSettings storage = new StorageSettings(root.resolve("t").toString(), settings)) {
            return storage.hadoopConf();
        }
    }

    private Path commitFile(String table, long version) throws IOException {
        java.nio.file.Path log = root.resolve(table).resolve("_delta_log");
        Files.createDirectories(log);
        return new Path(log.resolve(String.format("%020d.json", version)).toUri());
    }

    /** Reads through Hadoop's local file system, which verifies the checksum file when it exists. */
    private static List<String> readChecked(Path path, Configuration conf) throws IOException {
        List<String> lines = new ArrayList<>();
        try (FileSystem fs = FileSystem.newInstance(path.toUri(), conf);
                FSDataInputStream in = fs.open(path);
                BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            reader.lines().forEach(lines::add);
        }
        return lines;
    }

    @Test
    void kernelCommitsLocalTablesThroughTheExclusiveStore() throws IOException {
        Configuration conf = connectorConf(Map.of());
        assertInstanceOf(ExclusiveLocalLogStore.class, LogStoreProvider.getLogStore(conf, "file"));
    }

    /**
     * Kernel writes checkpoints through the engine's "atomic" Parquet write, which writes in place
     * when the log store says partial writes are invisible: a reader listing the log meanwhile would
     * load half a checkpoint. The file must appear under its name only once complete.
     */
    @Test
    void aCheckpointFileAppearsOnlyWhenComplete() throws IOException {
        java.nio.file.Path log = Files.createDirectories(root.resolve("t/_delta_log"));
        java.nio.file.Path json = Files.writeString(log.resolve("rows.json"), "{\"a\":1}\n{\"a\":2}\n");
        java.nio.file.Path checkpoint = log.resolve(String.format("%020d.checkpoint.parquet", 10));
        try (StorageSettings storage = new StorageSettings(root.resolve("t").toString(), Map.of())) {
            Engine engine = storage.createEngine();
            StructType schema = new StructType().add("a", LongType.LONG);
            FileStatus input = FileStatus.of(json.toUri().toString(), Files.size(json), 0);
            List<FilteredColumnarBatch> batches = new ArrayList<>();
            try (CloseableIterator<ColumnarBatch> read = engine.getJsonHandler().readJsonFiles(
                    Utils.toCloseableIterator(List.of(input).iterator()), schema, Optional.empty())) {
                read.forEachRemaining(b -> batches.add(new FilteredColumnarBatch(b, Optional.empty())));
            }
            List<Boolean> visibleWhileWriting = new ArrayList<>();
            Iterator<FilteredColumnarBatch> data = batches.iterator();
            engine.getParquetHandler().writeParquetFileAtomically(checkpoint.toUri().toString(),
                    Utils.toCloseableIterator(new Iterator<>() {
                        @Override
                        public boolean hasNext() {
                            visibleWhileWriting.add(Files.exists(checkpoint));
                            return data.hasNext();
                        }

                        @Override
                        public FilteredColumnarBatch next() {
                            return data.next();
                        }
                    }));
            assertFalse(visibleWhileWriting.contains(true), "the checkpoint was visible while written");
            assertTrue(Files.size(checkpoint) > 0);
        }
    }

    @Test
    void aLogStoreTheUserConfiguredForFilesIsKept() {
        Configuration conf = connectorConf(Map.of(StorageSettings.logStoreKey("file"), "io.delta.storage.LocalLogStore"));
        assertEquals("io.delta.storage.LocalLogStore", LogStoreProvider.getLogStore(conf, "file").getClass().getName());
    }

    /**
     * Each writer asks Kernel's provider for its store, as every Kernel commit does, and all race for
     * the same versions. Before, two writers could both "win" a version: the second rename replaced
     * the first commit, and the checksum file of one content could end beside the other.
     */
    @Test
    void racingWritersGetExactlyOneWinnerPerVersion() throws Exception {
        Configuration conf = connectorConf(Map.of());
        race("race", c -> LogStoreProvider.getLogStore(c, "file"), conf);
    }

    /** The same race where the file system makes no hard links (FAT): the lock decides. */
    @Test
    void withoutHardLinksTheLockKeepsOneWinnerPerVersion() throws Exception {
        Configuration conf = connectorConf(Map.of());
        race("locked", c -> new ExclusiveLocalLogStore(c, false), conf);
        assertTrue(Files.exists(root.resolve("locked/_delta_log").resolve(ExclusiveLocalLogStore.LOCK_FILE)));
    }

    private void race(String table, Function<Configuration, LogStore> stores, Configuration conf) throws Exception {
        int writers = 4;
        int versions = 60;
        for (long v = 0; v < versions; v++) {
            commitFile(table, v); // creates the log directory
        }
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            CyclicBarrier barrier = new CyclicBarrier(writers);
            List<Future<List<Long>>> results = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                results.add(pool.submit(() -> {
                    List<Long> won = new ArrayList<>();
                    for (long v = 0; v < versions; v++) {
                        barrier.await(60, TimeUnit.SECONDS);
                        try {
                            stores.apply(conf).write(commitFile(table, v),
                                    List.of("{\"writer\":" + writer + "}", "{\"version\":" + v + "}").iterator(), false, conf);
                            won.add(v);
                        } catch (FileAlreadyExistsException lost) {
                            // another writer has this version
                        }
                    }
                    return won;
                }));
            }
            Map<Long, Integer> winners = new HashMap<>();
            for (int w = 0; w < writers; w++) {
                for (long v : results.get(w).get(120, TimeUnit.SECONDS)) {
                    assertNull(winners.put(v, w), "version " + v + " won twice");
                }
            }
            assertEquals(versions, winners.size(), "every version has a winner: " + winners);
            for (long v = 0; v < versions; v++) {
                assertEquals(List.of("{\"writer\":" + winners.get(v) + "}", "{\"version\":" + v + "}"),
                        readChecked(commitFile(table, v), conf), "the winner's content at version " + v);
            }
            try (Stream<java.nio.file.Path> files = Files.list(root.resolve(table).resolve("_delta_log"))) {
                List<String> left = files.map(f -> f.getFileName().toString())
                        .filter(n -> n.endsWith(".tmp") || n.endsWith(".crc")).toList();
                assertEquals(List.of(), left, "no temporary or checksum files left");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theSecondWriteOfACommitFileFailsAndTheFirstStaysIntact() throws IOException {
        Configuration conf = connectorConf(Map.of());
        LogStore store = new ExclusiveLocalLogStore(conf);
        Path path = commitFile("twice", 0);
        store.write(path, List.of("{\"first\":1}", "{\"first\":2}").iterator(), false, conf);
        FileAlreadyExistsException e = assertThrows(FileAlreadyExistsException.class,
                () -> store.write(path, List.of("{\"second\":1}").iterator(), false, conf));
        assertTrue(e.getFile().endsWith("00000000000000000000.json"), e.getFile());
        assertEquals(List.of("{\"first\":1}", "{\"first\":2}"), readChecked(path, conf));
    }

    /** A checksum file from some earlier writer would make the new content unreadable: it goes. */
    @Test
    void aStaleChecksumFileBesideANewCommitIsRemoved() throws IOException {
        Configuration conf = connectorConf(Map.of());
        Path path = commitFile("stale", 4);
        java.nio.file.Path crc = ExclusiveLocalLogStore.localPath(path).resolveSibling("." + path.getName() + ".crc");
        Files.write(crc, new byte[] {'c', 'r', 'c', 0, 0, 2, 0, 0, 1, 2, 3, 4});
        new ExclusiveLocalLogStore(conf).write(path, List.of("{\"v\":4}").iterator(), false, conf);
        assertFalse(Files.exists(crc));
        assertEquals(List.of("{\"v\":4}"), readChecked(path, conf));
    }

    @Test
    void overwriteReplacesTheFileAndItsChecksum() throws IOException {
        Configuration conf = connectorConf(Map.of());
        LogStore store = new ExclusiveLocalLogStore(conf);
        Path path = new Path(commitFile("over", 0).getParent(), "_last_checkpoint");
        store.write(path, List.of("{\"version\":10}").iterator(), true, conf);
        store.write(path, List.of("{\"version\":20}").iterator(), true, conf);
        assertEquals(List.of("{\"version\":20}"), readChecked(path, conf));
    }

    @Test
    void aFailingActionIteratorLeavesNoFile() throws IOException {
        Configuration conf = connectorConf(Map.of());
        LogStore store = new ExclusiveLocalLogStore(conf);
        Path path = commitFile("broken", 3);
        Iterator<String> failing = new Iterator<>() {
            int n;

            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public String next() {
                if (n++ == 2) {
                    throw new IllegalStateException("action serialization failed");
                }
                return "{\"n\":" + n + "}";
            }
        };
        assertThrows(IllegalStateException.class, () -> store.write(path, failing, false, conf));
        try (Stream<java.nio.file.Path> files = Files.list(ExclusiveLocalLogStore.localPath(path).getParent())) {
            assertEquals(0, files.count(), "no commit file and no temporary file");
        }
        store.write(path, List.of("{\"ok\":1}").iterator(), false, conf);
        assertEquals(List.of("{\"ok\":1}"), readChecked(path, conf));
    }

    @Test
    void aMissingLogDirectoryIsNotCreated() {
        Configuration conf = connectorConf(Map.of());
        Path path = new Path(root.resolve("absent/_delta_log/00000000000000000000.json").toUri());
        assertThrows(FileNotFoundException.class,
                () -> new ExclusiveLocalLogStore(conf).write(path, List.of("{}").iterator(), false, conf));
        assertFalse(Files.exists(root.resolve("absent")));
    }

    /** Table locations with spaces and non-ASCII names reach the same file Kernel reads. */
    @Test
    void pathsWithSpacesAndNonAsciiNamesWork() throws IOException {
        Configuration conf = connectorConf(Map.of());
        Path path = commitFile("a table é", 0);
        new ExclusiveLocalLogStore(conf).write(path, List.of("{\"v\":0}").iterator(), false, conf);
        assertTrue(Files.exists(root.resolve("a table é/_delta_log/00000000000000000000.json")));
        assertEquals(List.of("{\"v\":0}"), readChecked(path, conf));
    }
}
