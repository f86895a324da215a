package io.deltasink.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.DeltaSinkTask;
import io.deltasink.commit.SinkSession;
import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.ColumnMapping;
import io.deltasink.convert.MappingConverter;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.S3Server;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * The S3 file systems of a {@link StorageSettings} against a real S3 server (S3Proxy): one real
 * S3A instance per bucket for everything a session does, closed with the settings, never shared
 * with other settings, and no threads left behind by tasks that come and go.
 */
class ScopedFileSystemTest {
    static final String BUCKET = "scoped";
    static final String TOPIC = "sensors";
    static final String COLUMNS = "device_id:string=$.device_id, device_type:string=$.device_type, "
            + "event_time:timestamp=$.ingested_at, linkquality:int=$.linkquality, power:double=$.power";
    static final String WRONG_SECRET = "wrong-secret-Lp5sD8fG1";
    static final List<TopicPartition> TPS = List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1));

    @TempDir
    static Path dir;
    @RegisterExtension
    static final S3Server s3 = new S3Server(BUCKET);

    private static String table(String name) {
        return "s3a://" + BUCKET + "/delta/" + name;
    }

    private static Map<String, String> props(String table, Map<String, String> overrides) {
        Map<String, String> p = new HashMap<>();
        p.put("name", "sensors");
        p.put(DeltaSinkConfig.TABLE_LOCATION, table);
        p.put(DeltaSinkConfig.COLUMNS, COLUMNS);
        p.put(DeltaSinkConfig.COMMIT_RETRY_BACKOFF_MS, "1");
        p.putAll(s3.server().connectorSettings());
        // fail fast on errors S3A would otherwise retry for minutes
        p.put("delta.hadoop.fs.s3a.attempts.maximum", "2");
        p.put("delta.hadoop.fs.s3a.retry.limit", "2");
        p.putAll(overrides);
        return p;
    }

    private static List<SinkRecord> events(int partition, long from, int count) {
        List<SinkRecord> out = new ArrayList<>();
        for (long o = from; o < from + count; o++) {
            out.add(SinkRecords.of(TOPIC, partition, o, SensorEvents.event(o * 2 + partition).json()));
        }
        return out;
    }

    @Test
    void aSessionUsesOneS3AFileSystemUntilTheSettingsAreClosed() throws IOException {
        String table = table("one_instance");
        DeltaSinkConfig config = new DeltaSinkConfig(props(table, Map.of()));
        StorageSettings storage = StorageSettings.from(config);
        FileSystemScope scope = storage.fileSystems();
        ColumnMapping mapping = ColumnMapping.parse(config.columns(), config.notNullColumns());
        SinkSession session = new SinkSession(config, storage, r -> new MappingConverter(mapping, Clock.systemUTC()),
                new RecordingContext(false), Clock.systemUTC(), ms -> { }, "test-engine");
        session.open(TPS);
        int commits = 4;
        for (int c = 0; c < commits; c++) {
            for (int p = 0; p < TPS.size(); p++) {
                session.put(events(p, c * 100L, 100));
            }
            Map<TopicPartition, OffsetAndMetadata> offsets = session.commit(Map.of());
            assertEquals(new OffsetAndMetadata((c + 1) * 100L), offsets.get(TPS.get(0)));
        }
        session.stop();

        // table creation, data files, commit files, snapshot reads: all through one instance
        assertEquals(1, scope.created());
        Map<String, FileSystem> open = scope.openFileSystems();
        assertEquals(Set.of("s3a://" + BUCKET), open.keySet());
        FileSystem real = open.get("s3a://" + BUCKET);
        assertInstanceOf(S3AFileSystem.class, real);

        // what Hadoop hands out for the configuration is a view of that instance; closing a view
        // leaves it open
        org.apache.hadoop.fs.Path log = new org.apache.hadoop.fs.Path(table, "_delta_log");
        FileSystem view = log.getFileSystem(storage.hadoopConf());
        assertInstanceOf(ScopedFileSystem.class, view);
        assertSame(real, real(view));
        assertTrue(view.exists(log));
        view.close();
        assertTrue(real.exists(log), "closing a view must not close the shared instance");
        assertEquals(1, scope.created());
        assertSame(scope, FileSystemScope.lookup(scope.id()));

        storage.close();
        assertNull(FileSystemScope.lookup(scope.id()), "a closed scope leaves the registry");
        IOException closed = assertThrows(IOException.class, () -> real.exists(log));
        assertTrue(closed.getMessage().toLowerCase(Locale.ROOT).contains("closed"), closed.getMessage());
        IOException noMore = assertThrows(IOException.class, () -> log.getFileSystem(storage.hadoopConf()));
        assertTrue(noMore.getMessage().contains("closed"), noMore.getMessage());
        assertEquals(1, scope.created(), "nothing new was created after close");
        storage.close(); // idempotent

        assertEquals(commits * 2 * 100, DeltaTableReader.readAll(table, s3.server().hadoopConf()).size());
    }

    @Test
    void eachBucketGetsItsOwnInstanceAndTheLocalFileSystemIsNotScoped() throws IOException {
        try (StorageSettings storage = StorageSettings.from(new DeltaSinkConfig(props(table("t"), Map.of())))) {
            FileSystem a = new org.apache.hadoop.fs.Path("s3a://" + BUCKET + "/x").getFileSystem(storage.hadoopConf());
            FileSystem b = new org.apache.hadoop.fs.Path("s3a://other-bucket/x").getFileSystem(storage.hadoopConf());
            FileSystem a2 = new org.apache.hadoop.fs.Path("s3a://" + BUCKET + "/y").getFileSystem(storage.hadoopConf());
            assertSame(real(a), real(a2));
            assertNotSame(real(a), real(b));
            assertEquals("s3a://other-bucket", b.getUri().toString());
            assertEquals(2, storage.fileSystems().created());

            FileSystem local = new org.apache.hadoop.fs.Path(dir.toUri()).getFileSystem(storage.hadoopConf());
            assertInstanceOf(LocalFileSystem.class, local);
            assertEquals(2, storage.fileSystems().created());
        }
    }

    /** The wrong secret comes second: were the instance shared, it would succeed with the first one's. */
    @Test
    void settingsWithOtherCredentialsForTheSameBucketNeverShareAnInstance() throws IOException {
        String table = table("credentials");
        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(table, "probe.txt");
        try (StorageSettings good = StorageSettings.from(new DeltaSinkConfig(props(table, Map.of())));
             StorageSettings bad = StorageSettings.from(new DeltaSinkConfig(
                     props(table, Map.of("s3.secret.key", WRONG_SECRET))))) {
            FileSystem goodFs = file.getFileSystem(good.hadoopConf());
            try (FSDataOutputStream out = goodFs.create(file, true)) {
                out.write("hello".getBytes(StandardCharsets.UTF_8));
            }

            FileSystem badFs = file.getFileSystem(bad.hadoopConf());
            assertNotSame(real(goodFs), real(badFs));
            IOException refused = assertThrows(IOException.class, () -> badFs.open(file).close());
            String text = refused.toString().toLowerCase(Locale.ROOT);
            assertTrue(refused instanceof java.nio.file.AccessDeniedException || text.contains("403")
                    || text.contains("access denied") || text.contains("signature"), "access refused: " + refused);

            try (FSDataInputStream in = goodFs.open(file)) {
                assertEquals("hello", new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
            assertEquals(1, good.fileSystems().created());
            assertEquals(1, bad.fileSystems().created());
            assertNotSame(good.fileSystems().openFileSystems().get("s3a://" + BUCKET),
                    bad.fileSystems().openFileSystems().get("s3a://" + BUCKET));
        }
    }

    /**
     * Twenty task lifecycles (start, open, put, commit, stop) through DeltaSinkTask: each stop
     * leaves the registry as it was, and the live threads after the last cycle stay near those
     * after the second. Without closing, every cycle would leave an S3A instance's threads behind.
     */
    @Test
    void tasksThatComeAndGoLeaveNoThreadsBehind() throws InterruptedException {
        String table = table("lifecycles");
        Map<String, String> props = props(table, Map.of());
        int scopesBefore = FileSystemScope.openScopes();
        int threadsAfterSecond = -1;
        int cycles = 20;
        for (int cycle = 0; cycle < cycles; cycle++) {
            DeltaSinkTask task = new DeltaSinkTask();
            task.initialize(new RecordingContext(false));
            task.start(props);
            assertEquals(scopesBefore + 1, FileSystemScope.openScopes());
            task.open(TPS);
            for (int p = 0; p < TPS.size(); p++) {
                task.put(events(p, cycle * 10L, 10));
            }
            Map<TopicPartition, OffsetAndMetadata> offsets = task.preCommit(Map.of());
            assertEquals(new OffsetAndMetadata((cycle + 1) * 10L), offsets.get(TPS.get(0)), "cycle " + cycle);
            task.close(TPS);
            task.stop();
            assertEquals(scopesBefore, FileSystemScope.openScopes(), "the task's scope is gone after stop");
            if (cycle == 1) {
                threadsAfterSecond = liveThreads();
            }
        }
        int bound = threadsAfterSecond + 20;
        // closed pools may take a moment to let their threads end: wait (bounded) rather than race them
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (liveThreads() > bound && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        int threads = liveThreads();
        assertTrue(threads <= bound, "live threads after " + cycles + " task lifecycles: " + threads
                + ", after the second: " + threadsAfterSecond + "; " + threadNames());
        assertEquals(cycles * 2 * 10, DeltaTableReader.readAll(table, s3.server().hadoopConf()).size());
    }

    /** The shared instance behind a file system Hadoop handed out for a connector configuration. */
    private static FileSystem real(FileSystem view) {
        return assertInstanceOf(ScopedFileSystem.class, view).getRawFileSystem();
    }

    private static int liveThreads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    private static Set<String> threadNames() {
        Set<String> names = new HashSet<>();
        Thread.getAllStackTraces().keySet().forEach(t -> names.add(t.getName().replaceAll("\\d+", "#")));
        return names;
    }
}
