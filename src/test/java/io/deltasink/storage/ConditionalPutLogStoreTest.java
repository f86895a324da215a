package io.deltasink.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FSDataOutputStreamBuilder;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.s3a.RemoteFileChangedException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.delta.kernel.defaults.internal.logstore.LogStoreProvider;
import io.delta.storage.CloseableIterator;
import io.delta.storage.LogStore;
import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.testing.S3Server;

/** The conditional-put log store against a real S3 HTTP server (S3Proxy honours If-None-Match). */
class ConditionalPutLogStoreTest {
    static final String BUCKET = "logstore";

    @RegisterExtension
    static final S3Server s3 = new S3Server(BUCKET);
    /** The settings the tests made (some on other threads): closed after each test. */
    private final ConcurrentLinkedQueue<StorageSettings> opened = new ConcurrentLinkedQueue<>();

    @AfterEach
    void closeStorage() {
        for (StorageSettings s; (s = opened.poll()) != null; ) {
            s.close();
        }
    }

    /** The Hadoop configuration the connector builds for a table on this server. */
    private Configuration connectorConf(Map<String, String> extra) {
        Map<String, String> p = new HashMap<>();
        p.put("name", "sensors");
        p.put(DeltaSinkConfig.TABLE_LOCATION, "s3a://" + BUCKET + "/delta/t");
        p.putAll(s3.server().connectorSettings());
        p.put("delta.hadoop.fs.s3a.attempts.maximum", "2");
        p.put("delta.hadoop.fs.s3a.retry.limit", "2");
        p.putAll(extra);
        StorageSettings storage = StorageSettings.from(new DeltaSinkConfig(p));
        opened.add(storage);
        return storage.hadoopConf();
    }

    private static org.apache.hadoop.fs.Path commitFile(String table, long version) {
        return new org.apache.hadoop.fs.Path(String.format("s3a://%s/%s/_delta_log/%020d.json", BUCKET, table, version));
    }

    private static List<String> read(LogStore store, org.apache.hadoop.fs.Path path, Configuration conf)
            throws IOException {
        List<String> lines = new ArrayList<>();
        try (CloseableIterator<String> it = store.read(path, conf)) {
            it.forEachRemaining(lines::add);
        }
        return lines;
    }

    @Test
    void kernelResolvesTheConditionalPutStoreForS3Schemes() {
        Configuration conf = connectorConf(Map.of());
        assertEquals("io.delta.kernel.logStore.s3a.impl", StorageSettings.logStoreKey("s3a"));
        for (String scheme : List.of("s3a", "s3", "s3n")) {
            LogStore store = LogStoreProvider.getLogStore(conf, scheme);
            assertInstanceOf(ConditionalPutLogStore.class, store, scheme);
        }
        // the local file system has a store of its own
        assertInstanceOf(ExclusiveLocalLogStore.class, LogStoreProvider.getLogStore(conf, "file"));
        assertEquals("false", conf.get("fs.s3a.create.performance"));
        assertEquals("true", conf.get("fs.s3a.create.conditional.enabled"));
    }

    @Test
    void aLogStoreTheUserConfiguredIsKeptAndCreatePerformanceStaysOff() {
        Configuration conf = connectorConf(Map.of(
                "delta.hadoop.io.delta.kernel.logStore.s3a.impl", "io.delta.storage.S3SingleDriverLogStore",
                "delta.hadoop.fs.s3a.create.performance", "true"));
        assertEquals("io.delta.storage.S3SingleDriverLogStore", LogStoreProvider.getLogStore(conf, "s3a").getClass().getName());
        assertInstanceOf(ConditionalPutLogStore.class, LogStoreProvider.getLogStore(conf, "s3"));
        assertEquals("false", conf.get("fs.s3a.create.performance"), "create performance turns create into overwrite");
    }

    @Test
    void theSecondWriteOfACommitFileFailsAndTheFirstStaysIntact() throws IOException {
        Configuration conf = connectorConf(Map.of());
        LogStore store = new ConditionalPutLogStore(conf);
        org.apache.hadoop.fs.Path path = commitFile("twice", 0);
        store.write(path, List.of("{\"first\":1}", "{\"first\":2}").iterator(), false, conf);
        FileAlreadyExistsException e = assertThrows(FileAlreadyExistsException.class,
                () -> store.write(path, List.of("{\"second\":1}").iterator(), false, conf));
        assertTrue(e.getFile().endsWith("00000000000000000000.json"), e.getFile());
        assertEquals(List.of("{\"first\":1}", "{\"first\":2}"), read(store, path, conf));
        assertFalse(store.isPartialWriteVisible(path, conf));
    }

    @Test
    void overwriteReplacesTheFile() throws IOException {
        Configuration conf = connectorConf(Map.of());
        LogStore store = new ConditionalPutLogStore(conf);
        org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("s3a://" + BUCKET + "/over/_delta_log/_last_checkpoint");
        store.write(path, List.of("{\"version\":10}").iterator(), true, conf);
        store.write(path, List.of("{\"version\":20}").iterator(), true, conf);
        assertEquals(List.of("{\"version\":20}"), read(store, path, conf));
    }

    @Test
    void aFailingActionIteratorLeavesNoFile() throws IOException {
        Configuration conf = connectorConf(Map.of());
        LogStore store = new ConditionalPutLogStore(conf);
        org.apache.hadoop.fs.Path path = commitFile("broken", 3);
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
        try (FileSystem fs = path.getFileSystem(conf)) {
            assertFalse(fs.exists(path), "no partial commit file");
        }
        store.write(path, List.of("{\"ok\":1}").iterator(), false, conf);
        assertEquals(List.of("{\"ok\":1}"), read(store, path, conf));
    }

    @Test
    void listFromListsCommitFilesInOrder() throws IOException {
        Configuration conf = connectorConf(Map.of());
        LogStore store = new ConditionalPutLogStore(conf);
        for (long v = 0; v < 4; v++) {
            store.write(commitFile("listed", v), List.of("{\"v\":" + v + "}").iterator(), false, conf);
        }
        List<String> names = new ArrayList<>();
        Iterator<FileStatus> it = store.listFrom(commitFile("listed", 2), conf);
        it.forEachRemaining(s -> names.add(s.getPath().getName()));
        assertEquals(List.of(String.format("%020d.json", 2), String.format("%020d.json", 3)), names);
    }

    /** Both writers pass S3A's existence probe; S3 refuses the second PUT with HTTP 412 at close. */
    @Test
    void s3RefusesTheSecondOfTwoOpenCreatesWith412() throws IOException {
        Configuration conf = connectorConf(Map.of());
        org.apache.hadoop.fs.Path path = commitFile("raw412", 0);
        try (FileSystem fs = path.getFileSystem(conf)) {
            FSDataOutputStream first = conditionalCreate(fs, path);
            FSDataOutputStream second = conditionalCreate(fs, path);
            first.write("first".getBytes(StandardCharsets.UTF_8));
            second.write("second".getBytes(StandardCharsets.UTF_8));
            first.close();
            IOException e = assertThrows(IOException.class, second::close);
            assertTrue(ConditionalPutLogStore.alreadyExists(e), "412 seen as already-exists: " + e);
            assertEquals(5, fs.getFileStatus(path).getLen(), "the first content stays");
        }
    }

    private static FSDataOutputStream conditionalCreate(FileSystem fs, org.apache.hadoop.fs.Path path)
            throws IOException {
        FSDataOutputStreamBuilder<FSDataOutputStream, ?> builder = fs.createFile(path);
        builder.overwrite(false);
        builder.must(Options.CreateFileOptionKeys.FS_OPTION_CREATE_CONDITIONAL_OVERWRITE, true);
        return builder.build();
    }

    @Test
    void theFailureMappingLooksThroughTheCauseChain() {
        RemoteFileChangedException precondition = new RemoteFileChangedException("s3a://b/k", "put", "412");
        assertTrue(ConditionalPutLogStore.alreadyExists(precondition));
        assertTrue(ConditionalPutLogStore.alreadyExists(new IOException("wrapped", new IOException(precondition))));
        assertTrue(ConditionalPutLogStore.alreadyExists(new org.apache.hadoop.fs.FileAlreadyExistsException("k")));
        assertFalse(ConditionalPutLogStore.alreadyExists(new IOException("connection reset")));
    }

    /** Many threads, each with its own store and file system, race for the same versions. */
    @Test
    void racingWritersGetExactlyOneWinnerPerVersion() throws Exception {
        int writers = 6;
        int versions = 5;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            CyclicBarrier barrier = new CyclicBarrier(writers);
            List<Future<List<Long>>> results = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                results.add(pool.submit(() -> {
                    Configuration conf = connectorConf(Map.of());
                    LogStore store = new ConditionalPutLogStore(conf);
                    List<Long> won = new ArrayList<>();
                    for (long v = 0; v < versions; v++) {
                        barrier.await(60, TimeUnit.SECONDS);
                        try {
                            store.write(commitFile("race", v), List.of("{\"writer\":" + writer + "}").iterator(), false, conf);
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
                    Integer previous = winners.put(v, w);
                    assertEquals(null, previous, "version " + v + " won twice");
                }
            }
            assertEquals(versions, winners.size(), "every version has a winner: " + winners);
            Configuration conf = connectorConf(Map.of());
            LogStore store = new ConditionalPutLogStore(conf);
            for (long v = 0; v < versions; v++) {
                assertEquals(List.of("{\"writer\":" + winners.get(v) + "}"), read(store, commitFile("race", v), conf),
                        "the winner's content at version " + v);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
