package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.ColumnMapping;
import io.deltasink.convert.MappingConverter;
import io.deltasink.storage.StorageSettings;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.LogCapture;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.S3ProxyServer;
import io.deltasink.testing.S3Server;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * The session writing a partitioned table to s3a:// through a real S3 HTTP server (S3Proxy on
 * 127.0.0.1, path-style access, plain HTTP, the s3.* settings), read back independently.
 */
class S3TableTest {
    static final String BUCKET = "sensor-data";
    static final String TOPIC = SinkSessionTest.TOPIC;
    static final int PARTITIONS = 3;
    static final int PER_PARTITION_AND_COMMIT = 1000;
    static final String WRONG_SECRET = "wrong-secret-Hq4nB7cV2";
    /** S3A and the SDK are captured down to DEBUG: a secret must not show up there either. */
    static final String[] DEBUG_LOGGERS = {"org.apache.hadoop.fs.s3a", "software.amazon.awssdk"};

    @RegisterExtension
    static final S3Server s3 = new S3Server(BUCKET);
    private static final List<StorageSettings> OPENED = new ArrayList<>();

    @AfterEach
    void closeStorage() {
        OPENED.forEach(StorageSettings::close);
        OPENED.clear();
    }

    private static String table(String name) {
        return "s3a://" + BUCKET + "/delta/" + name;
    }

    private static SinkSession session(String table, Map<String, String> overrides) {
        Map<String, String> p = new HashMap<>();
        p.put("name", "sensors");
        p.put(DeltaSinkConfig.TABLE_LOCATION, table);
        p.put(DeltaSinkConfig.COLUMNS, SinkSessionTest.COLUMNS);
        p.put(DeltaSinkConfig.COLUMNS_NOT_NULL, "device_id,device_type");
        p.put(DeltaSinkConfig.PARTITION_COLUMNS, "device_type,event_date");
        p.put(DeltaSinkConfig.COMMIT_RETRY_BACKOFF_MS, "1");
        p.putAll(s3.server().connectorSettings());
        // fail fast on errors S3A would otherwise retry for minutes
        p.put("delta.hadoop.fs.s3a.attempts.maximum", "2");
        p.put("delta.hadoop.fs.s3a.retry.limit", "2");
        p.putAll(overrides);
        DeltaSinkConfig config = new DeltaSinkConfig(p);
        ColumnMapping mapping = ColumnMapping.parse(config.columns(), config.notNullColumns());
        StorageSettings storage = StorageSettings.from(config);
        OPENED.add(storage);
        return new SinkSession(config, storage, r -> new MappingConverter(mapping, Clock.systemUTC()),
                new RecordingContext(false), Clock.systemUTC(), ms -> { }, "test-engine connector=sensors");
    }

    private static long seq(int partition, long offset) {
        return offset * PARTITIONS + partition;
    }

    /** The day of the events of a commit: the first commit writes DAY, the second DAY + 1. */
    private static LocalDate day(long offset) {
        return SensorEvents.DAY.plusDays(offset / PER_PARTITION_AND_COMMIT);
    }

    private static List<SinkRecord> events(int partition, long from, int count) {
        List<SinkRecord> out = new ArrayList<>();
        for (long o = from; o < from + count; o++) {
            out.add(SinkRecords.of(TOPIC, partition, o, SensorEvents.event(seq(partition, o), day(o)).json()));
        }
        return out;
    }

    @Test
    void partitionedTableOnS3IsReadBackExactly() throws IOException {
        String table = table("sensor_events");
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            tps.add(new TopicPartition(TOPIC, p));
        }
        try (LogCapture logs = new LogCapture(DEBUG_LOGGERS)) {
            SinkSession session = session(table, Map.of());
            session.open(tps);
            List<Long> versions = new ArrayList<>();
            for (int commit = 0; commit < 2; commit++) {
                long from = (long) commit * PER_PARTITION_AND_COMMIT;
                for (int chunk = 0; chunk < PER_PARTITION_AND_COMMIT; chunk += 250) {
                    for (int p = 0; p < PARTITIONS; p++) {
                        session.put(events(p, from + chunk, 250));
                    }
                }
                Map<TopicPartition, OffsetAndMetadata> offsets = session.commit(Map.of());
                for (TopicPartition tp : tps) {
                    assertEquals(new OffsetAndMetadata(from + PER_PARTITION_AND_COMMIT), offsets.get(tp), tp.toString());
                }
                versions.add(DeltaTableReader.version(table, s3.server().hadoopConf()));
            }
            session.stop();
            assertEquals(versions.get(0) + 1, versions.get(1), "one table version per commit: " + versions);

            // independent read through S3A against the server
            List<Map<String, Object>> rows = DeltaTableReader.readAll(table, s3.server().hadoopConf());
            int total = PARTITIONS * 2 * PER_PARTITION_AND_COMMIT;
            assertEquals(total, rows.size());
            Set<String> seen = new TreeSet<>();
            for (Map<String, Object> row : rows) {
                int partition = (Integer) row.get("kafka_partition");
                long offset = (Long) row.get("kafka_offset");
                assertTrue(seen.add(partition + "@" + offset), "duplicate row " + row);
                SensorEvents.Event e = SensorEvents.event(seq(partition, offset), day(offset));
                assertEquals(e.deviceId(), row.get("device_id"), row.toString());
                assertEquals(e.deviceType(), row.get("device_type"), row.toString());
                assertEquals(Instant.ofEpochSecond(0, e.ingestedAtMicros() * 1000), row.get("event_time"), row.toString());
                assertEquals(e.linkquality(), row.get("linkquality"), row.toString());
                assertEquals(e.power(), row.get("power"), row.toString());
                assertEquals(day(offset), row.get("event_date"), row.toString());
            }
            assertEquals(total, seen.size());

            for (int p = 0; p < PARTITIONS; p++) {
                assertEquals(Long.valueOf(2L * PER_PARTITION_AND_COMMIT),
                        DeltaTableReader.txnVersion(table, "sensors/" + TOPIC + "/" + p, s3.server().hadoopConf()).orElseThrow());
            }
            for (long version : versions) {
                assertEquals(PARTITIONS, DeltaTableReader.actions(table, version, s3.server().hadoopConf()).stream()
                        .filter(a -> a.has("txn")).count(), "one txn per Kafka partition in version " + version);
            }

            // the partition folders are there as objects, listed through S3
            Set<String> folders = new TreeSet<>();
            boolean commitFile = false;
            org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path(table);
            try (FileSystem fs = root.getFileSystem(s3.server().hadoopConf())) {
                RemoteIterator<LocatedFileStatus> files = fs.listFiles(root, true);
                while (files.hasNext()) {
                    String relative = root.toUri().relativize(files.next().getPath().toUri()).getPath();
                    if (relative.endsWith(".parquet")) {
                        folders.add(relative.substring(0, relative.lastIndexOf('/')));
                    }
                    commitFile |= relative.equals(String.format("_delta_log/%020d.json", versions.get(1)));
                }
            }
            assertEquals(Set.of(
                    "device_type=door_window/event_date=2026-06-22", "device_type=door_window/event_date=2026-06-23",
                    "device_type=smart_plug/event_date=2026-06-22", "device_type=smart_plug/event_date=2026-06-23"),
                    folders);
            assertTrue(commitFile, "the last commit file is an object of the bucket");

            assertFalse(logs.lines().isEmpty(), "the log capture must see the run");
            assertTrue(logs.lines().stream().anyMatch(l -> l.contains("Committed version")), "capture works");
            assertEquals(List.of(), logs.linesContaining(S3ProxyServer.SECRET_KEY), "the secret key was logged");
        }
    }

    @Test
    void wrongSecretKeyFailsClearlyWithoutShowingAnySecret() {
        try (LogCapture logs = new LogCapture(DEBUG_LOGGERS)) {
            SinkSession session = session(table("wrong_secret"), Map.of("s3.secret.key", WRONG_SECRET));
            ConnectException e = assertThrows(ConnectException.class,
                    () -> session.open(List.of(new TopicPartition(TOPIC, 0))));
            String text = fullText(e);
            String lower = text.toLowerCase(Locale.ROOT);
            assertTrue(lower.contains("403") || lower.contains("access denied") || lower.contains("accessdenied")
                    || lower.contains("signature"), "the failure must say access was refused: " + e.getMessage());
            assertFalse(text.contains(WRONG_SECRET), "the secret key is in the exception: " + text);
            assertFalse(text.contains(S3ProxyServer.SECRET_KEY), text);
            assertEquals(List.of(), logs.linesContaining(WRONG_SECRET), "the secret key was logged");
            assertEquals(List.of(), logs.linesContaining(S3ProxyServer.SECRET_KEY), "a secret key was logged");
        }
    }

    /** Messages and stack traces of the exception and all its causes and suppressed ones. */
    private static String fullText(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        return out.toString();
    }
}
