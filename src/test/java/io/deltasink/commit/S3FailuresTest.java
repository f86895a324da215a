package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.ColumnMapping;
import io.deltasink.convert.MappingConverter;
import io.deltasink.storage.StorageSettings;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.LogCapture;
import io.deltasink.testing.LogEdits;
import io.deltasink.testing.LogFaults;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.S3ProxyServer;
import io.deltasink.testing.S3Server;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * The session against a real S3 server (S3Proxy) that fails: stopped (transient: put() throws
 * RetriableException after asking the worker to wait, nothing is lost or duplicated), a wrong
 * secret key, a missing bucket, an endpoint that does not resolve (permanent: the task stops at
 * once with the setting to fix) or that refuses connections (transient). No secret may appear in
 * any log line or exception text.
 */
class S3FailuresTest {
    static final String BUCKET = "failures";
    static final String TOPIC = SinkSessionTest.TOPIC;
    static final TopicPartition TP0 = new TopicPartition(TOPIC, 0);
    static final TopicPartition TP1 = new TopicPartition(TOPIC, 1);
    static final String WRONG_SECRET = "wrong-secret-Kp3sX9qL7";
    static final String[] DEBUG_LOGGERS = {"org.apache.hadoop.fs.s3a", "software.amazon.awssdk", "io.deltasink"};

    @RegisterExtension
    static final S3Server s3 = new S3Server(BUCKET);

    private static Map<String, String> props(String table, Map<String, String> overrides) {
        Map<String, String> p = new HashMap<>();
        p.put("name", "sensors");
        p.put(DeltaSinkConfig.TABLE_LOCATION, table);
        p.put(DeltaSinkConfig.COLUMNS, SinkSessionTest.COLUMNS);
        p.put(DeltaSinkConfig.COLUMNS_NOT_NULL, "device_id,device_type");
        p.put(DeltaSinkConfig.PARTITION_COLUMNS, "device_type,event_date");
        p.put(DeltaSinkConfig.COMMIT_RETRY_BACKOFF_MS, "50");
        p.putAll(s3.server().connectorSettings());
        // S3A gives up quickly instead of retrying a refused connection for minutes
        p.put("delta.hadoop.fs.s3a.attempts.maximum", "1");
        p.put("delta.hadoop.fs.s3a.retry.limit", "1");
        p.put("delta.hadoop.fs.s3a.retry.interval", "10ms");
        p.put("delta.hadoop.fs.s3a.connection.establish.timeout", "2s");
        p.putAll(overrides);
        return p;
    }

    private static SinkSession session(String table, Map<String, String> overrides, RecordingContext context) {
        DeltaSinkConfig config = new DeltaSinkConfig(props(table, overrides));
        ColumnMapping mapping = ColumnMapping.parse(config.columns(), config.notNullColumns());
        return new SinkSession(config, StorageSettings.from(config), r -> new MappingConverter(mapping, Clock.systemUTC()),
                context, Clock.systemUTC(), ms -> { }, "test-engine connector=sensors");
    }

    private static String table(String name) {
        return "s3a://" + BUCKET + "/delta/" + name;
    }

    private static List<SinkRecord> events(int partition, long from, int count) {
        List<SinkRecord> out = new ArrayList<>();
        for (long o = from; o < from + count; o++) {
            out.add(SinkRecords.of(TOPIC, partition, o, SensorEvents.event(o * 2 + partition).json()));
        }
        return out;
    }

    /** Every row's partition@offset, failing on a duplicate. */
    private static Set<String> rows(String table) {
        Set<String> out = new TreeSet<>();
        for (Map<String, Object> r : DeltaTableReader.readAll(table, s3.server().hadoopConf())) {
            assertTrue(out.add(r.get("kafka_partition") + "@" + r.get("kafka_offset")), "duplicate row " + r);
        }
        return out;
    }

    private static Set<String> expected(int partition, long from, long to) {
        Set<String> out = new TreeSet<>();
        for (long o = from; o < to; o++) {
            out.add(partition + "@" + o);
        }
        return out;
    }

    private static String fullText(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        return out.toString();
    }

    private static int closedPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aServerDownWhileWritingFilesMakesPutRetriableAndLosesNothing() {
        String table = table("outage_put");
        RecordingContext ctx = new RecordingContext(false);
        // tiny files and the smallest memory bound: put() writes (uploads) files itself
        SinkSession s = session(table, Map.of(DeltaSinkConfig.FILE_TARGET_BYTES, "1024",
                DeltaSinkConfig.BUFFER_MAX_BYTES, "65536"), ctx);
        s.open(List.of(TP0, TP1));
        s.put(events(0, 0, 30));
        s.put(events(1, 0, 30));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(30), TP1, new OffsetAndMetadata(30)), s.commit(Map.of()));
        s.put(events(0, 30, 30)); // buffered

        s3.server().stop();
        try {
            // more rows than 64 KiB hold: put() writes some out
            List<SinkRecord> batch = events(0, 60, 300);
            RetriableException e = assertThrows(RetriableException.class, () -> s.put(batch));
            assertTrue(e.getMessage().contains(table), e.getMessage());
            assertEquals(List.of(50L), ctx.timeouts, "the worker is asked to wait commit.retry.backoff.ms first");
            assertEquals(29L, ctx.seeks.get(TP0), "TP0 is rewound to the table's offset (one record early)");
            ctx.seeks.clear();

            // the worker seeks, waits and delivers the same batch again: records ahead of the rewind are skipped
            s.put(batch);
            assertEquals(Map.of(TP0, 29L), ctx.seeks, "the rewind is requested again");
        } finally {
            s3.server().start();
        }
        // after the seek the records come again from offset 30
        s.put(events(0, 30, 330));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(360), TP1, new OffsetAndMetadata(30)), s.commit(Map.of()));
        Set<String> want = expected(0, 0, 360);
        want.addAll(expected(1, 0, 30));
        assertEquals(want, rows(table));
    }

    @Test
    void aServerDownAtCommitMakesTheNextPutRetriableAndLosesNothing() {
        String table = table("outage_commit");
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = session(table, Map.of(), ctx);
        s.open(List.of(TP0, TP1));
        s.put(events(0, 0, 20));
        s.put(events(1, 0, 20));
        s.commit(Map.of());
        s.put(events(0, 20, 30));
        s.put(events(1, 20, 30));

        s3.server().stop();
        try {
            // preCommit never throws: it reports the table's offsets and drops the batch
            assertEquals(Map.of(TP0, new OffsetAndMetadata(20), TP1, new OffsetAndMetadata(20)), s.commit(Map.of()));
            assertTrue(ctx.timeouts.isEmpty(), "nothing waits in preCommit");
            List<SinkRecord> next = events(0, 50, 10);
            assertThrows(RetriableException.class, () -> s.put(next));
            assertEquals(List.of(50L), ctx.timeouts);
            assertEquals(Map.of(TP0, 19L, TP1, 19L), ctx.seeks);
            ctx.seeks.clear();
            s.put(next); // redelivered: skipped, the rewinds requested again
            assertEquals(Map.of(TP0, 19L, TP1, 19L), ctx.seeks);
        } finally {
            s3.server().start();
        }
        s.put(List.of());
        s.put(events(0, 20, 40));
        s.put(events(1, 20, 30));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(60), TP1, new OffsetAndMetadata(50)), s.commit(Map.of()));
        Set<String> want = expected(0, 0, 60);
        want.addAll(expected(1, 0, 50));
        assertEquals(want, rows(table));
    }

    @Test
    void aServerDownAtOpenDefersThePositionsToPut() {
        String table = table("outage_open");
        SinkSession first = session(table, Map.of(), new RecordingContext(false));
        first.open(List.of(TP0));
        first.put(events(0, 0, 25));
        first.commit(Map.of());
        first.stop();

        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = session(table, Map.of(), ctx);
        s3.server().stop();
        try (LogCapture logs = new LogCapture(DEBUG_LOGGERS)) {
            s.open(List.of(TP0)); // must not throw: that would kill the task
            assertTrue(ctx.seeks.isEmpty());
            assertFalse(logs.linesContaining("cannot read their positions").isEmpty(), "a WARN says why");
            // the group's position is behind the table here: nothing may be taken before the table answers
            List<SinkRecord> batch = events(0, 10, 30);
            assertThrows(RetriableException.class, () -> s.put(batch));
            assertEquals(List.of(50L), ctx.timeouts);
            assertTrue(s.commit(Map.of()).isEmpty(), "no offset is reported for a partition whose position is unknown");
        } finally {
            s3.server().start();
        }
        s.put(events(0, 10, 30)); // the redelivery: positions read now; 10..24 are in the table, 25.. taken
        s.put(List.of());
        assertEquals(Map.of(TP0, new OffsetAndMetadata(40)), s.commit(Map.of()));
        assertEquals(expected(0, 0, 40), rows(table));
    }

    @Test
    void aPositionAheadOfTheGroupIsSoughtAndRecordsBeyondItWait() {
        String table = table("outage_open_ahead");
        SinkSession first = session(table, Map.of(), new RecordingContext(false));
        first.open(List.of(TP0));
        first.put(events(0, 0, 25));
        first.commit(Map.of());
        first.stop();

        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = session(table, Map.of(), ctx);
        s3.server().stop();
        try {
            s.open(List.of(TP0));
        } finally {
            s3.server().start();
        }
        // the group says 40 (it ran ahead of the table): 40.. must not be taken before 25..39
        s.put(events(0, 40, 10));
        assertEquals(Map.of(TP0, 24L), ctx.seeks, "the partition is sought to the table's position, one record early");
        s.put(events(0, 25, 25));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(50)), s.commit(Map.of()));
        assertEquals(expected(0, 0, 50), rows(table));
    }

    @Test
    void aWrongSecretKeyStopsTheTaskAtOnceNamingTheSettingWithoutShowingTheSecret() {
        try (LogCapture logs = new LogCapture(DEBUG_LOGGERS)) {
            RecordingContext ctx = new RecordingContext(false);
            SinkSession s = session(table("wrong_secret"), Map.of(DeltaSinkConfig.S3_SECRET_KEY, WRONG_SECRET), ctx);
            ConnectException e = assertThrows(ConnectException.class, () -> s.open(List.of(TP0)));
            assertFalse(e instanceof RetriableException);
            assertTrue(e.getMessage().contains("s3.secret.key") && e.getMessage().contains("403")
                    && e.getMessage().contains(table("wrong_secret")), e.getMessage());
            assertTrue(ctx.timeouts.isEmpty(), "not retried");
            String text = fullText(e);
            assertFalse(text.contains(WRONG_SECRET), text);
            assertFalse(text.contains(S3ProxyServer.SECRET_KEY), text);
            assertTrue(logs.lines().size() > 5, "the capture sees S3A at DEBUG");
            assertEquals(List.of(), logs.linesContaining(WRONG_SECRET), "the secret key was logged");
            assertEquals(List.of(), logs.linesContaining(S3ProxyServer.SECRET_KEY), "a secret key was logged");
        }
    }

    @Test
    void anUnknownBucketStopsTheTaskNamingTheBucketAndTableLocation() {
        String table = "s3a://no-such-bucket-x7/delta/events";
        try (LogCapture logs = new LogCapture(DEBUG_LOGGERS)) {
            ConnectException e = assertThrows(ConnectException.class,
                    () -> session(table, Map.of(), new RecordingContext(false)).open(List.of(TP0)));
            assertFalse(e instanceof RetriableException);
            assertTrue(e.getMessage().contains("'no-such-bucket-x7'") && e.getMessage().contains("table.location")
                    && e.getMessage().contains("s3.endpoint"), e.getMessage());
            assertNoSecretIn(e, logs);
        }
    }

    private static void assertNoSecretIn(Throwable e, LogCapture logs) {
        StringWriter trace = new StringWriter();
        e.printStackTrace(new PrintWriter(trace));
        assertFalse(trace.toString().contains(S3ProxyServer.SECRET_KEY), "the secret key is in the exception");
        assertEquals(List.of(), logs.linesContaining(S3ProxyServer.SECRET_KEY), "a secret key was logged");
    }

    @Test
    void anEndpointThatDoesNotResolveStopsTheTaskNamingS3Endpoint() {
        try (LogCapture logs = new LogCapture(DEBUG_LOGGERS)) {
            ConnectException e = assertThrows(ConnectException.class, () -> session(table("no_host"),
                    Map.of(DeltaSinkConfig.S3_ENDPOINT, "http://no-such-host.invalid:9000"), new RecordingContext(false))
                    .open(List.of(TP0)));
            assertFalse(e instanceof RetriableException);
            assertTrue(e.getMessage().contains("s3.endpoint") && e.getMessage().contains("'no-such-host.invalid'"),
                    e.getMessage());
            assertNoSecretIn(e, logs);
        }
    }

    @Test
    void anEndpointRefusingConnectionsIsRetriedWithAWarningNamingS3Endpoint() {
        String endpoint = "http://127.0.0.1:" + closedPort();
        RecordingContext ctx = new RecordingContext(false);
        try (LogCapture logs = new LogCapture(DEBUG_LOGGERS)) {
            SinkSession s = session(table("refused"), Map.of(DeltaSinkConfig.S3_ENDPOINT, endpoint), ctx);
            s.open(List.of(TP0));
            RetriableException e = assertThrows(RetriableException.class, () -> s.put(events(0, 0, 5)));
            assertTrue(e.getMessage().contains("s3.endpoint"), e.getMessage());
            assertEquals(List.of(50L), ctx.timeouts);
            List<String> warnings = logs.lines().stream()
                    .filter(l -> l.startsWith("WARN io.deltasink") && l.contains("s3.endpoint=" + endpoint)).toList();
            assertFalse(warnings.isEmpty(), "a WARN names s3.endpoint");
            assertNoSecretIn(e, logs);
            assertInstanceOf(RetriableException.class, assertThrows(RetriableException.class, () -> s.put(List.of())));
            assertEquals(List.of(50L, 100L), ctx.timeouts, "the wait doubles while the endpoint stays down");
        }
    }

    /** A table with 25 rows of TP0 in two commits (versions 1 and 2). */
    private static String seeded(String name) {
        String table = table(name);
        SinkSession first = session(table, Map.of(), new RecordingContext(false));
        first.open(List.of(TP0));
        first.put(events(0, 0, 15));
        first.commit(Map.of());
        first.put(events(0, 15, 10));
        first.commit(Map.of());
        first.stop();
        return table;
    }

    private static void assertLogFaultRetriedThenLandsOnce(String table, Runnable faultOn) {
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = session(table, LogFaults.settings(table), ctx);
        faultOn.run();
        int injected = LogFaults.injected();
        try {
            s.open(List.of(TP0)); // must not throw: that would kill the task
            List<SinkRecord> batch = events(0, 20, 20);
            RetriableException e = assertThrows(RetriableException.class, () -> s.put(batch));
            assertTrue(e.getMessage().contains(table), e.getMessage());
            assertThrows(RetriableException.class, () -> s.put(batch));
            assertEquals(List.of(50L, 100L), ctx.timeouts);
            assertTrue(LogFaults.injected() > injected, "the fault was hit");
        } finally {
            LogFaults.stop(table);
        }
        s.put(events(0, 20, 20)); // positions read now: 20..24 are in the table, 25.. taken
        assertEquals(Map.of(TP0, new OffsetAndMetadata(40)), s.commit(Map.of()));
        assertEquals(expected(0, 0, 40), rows(table));
    }

    @Test
    void aReadTimeoutListingTheLogIsRetriedAndEveryRecordLandsOnce() {
        String table = seeded("log_timeout");
        assertLogFaultRetriedThenLandsOnce(table, () -> LogFaults.start(table, LogFaults.Fault.READ_TIMEOUT));
    }

    @Test
    void aConnectionResetReadingCommitFilesIsRetriedAndEveryRecordLandsOnce() {
        String table = seeded("log_reset");
        assertLogFaultRetriedThenLandsOnce(table,
                () -> LogFaults.start(table, LogFaults.Fault.CONNECTION_RESET, ".json"));
    }

    @Test
    void aDamagedCommitFileStopsTheTaskNamingTheVersion() {
        String table = seeded("damaged_commit");
        new LogEdits(table, s3.server().hadoopConf()).dropVersionChecksums().truncate(LogEdits.commit(1));
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = session(table, Map.of(), ctx);
        ConnectException e = assertThrows(ConnectException.class, () -> s.open(List.of(TP0)));
        assertFalse(e instanceof RetriableException);
        assertTrue(e.getMessage().contains(table) && e.getMessage().contains("version 1")
                && e.getMessage().contains(LogEdits.commit(1)) && e.getMessage().contains("damaged"), e.getMessage());
        assertTrue(ctx.timeouts.isEmpty(), "not retried");
        assertThrows(ConnectException.class, () -> s.put(events(0, 25, 5)));
    }
}
