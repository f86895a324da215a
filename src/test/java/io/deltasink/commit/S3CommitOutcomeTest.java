package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.ColumnMapping;
import io.deltasink.convert.MappingConverter;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.ResponseDroppingProxy;
import io.deltasink.testing.S3Server;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * A commit to S3 whose answer is lost on the network: the conditional PUT of the commit file is
 * stored, the response never reaches the writer, the client retries the PUT and S3 answers 412
 * (the object exists: it is ours). The writer must recognise its commit, keep its files and move
 * on; each offset once. Real S3 server (S3Proxy) behind a proxy that loses that one answer.
 */
class S3CommitOutcomeTest {
    static final String BUCKET = "sensor-data";
    static final String TOPIC = SinkSessionTest.TOPIC;
    static final Pattern COMMIT_FILE_PUT = Pattern.compile("PUT \\S*_delta_log/\\d{20}\\.json\\S* HTTP/1\\.1");

    @RegisterExtension
    static final S3Server s3 = new S3Server(BUCKET);
    static ResponseDroppingProxy proxy;
    private final List<StorageSettings> opened = new ArrayList<>();

    @BeforeAll
    static void startServer() {
        proxy = new ResponseDroppingProxy(s3.server().port());
    }

    @AfterAll
    static void stopServer() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @AfterEach
    void closeStorage() {
        opened.forEach(StorageSettings::close);
    }

    private Map<String, String> props(String table) {
        Map<String, String> p = new HashMap<>();
        p.put("name", "sensors");
        p.put("topics", TOPIC);
        p.put(DeltaSinkConfig.TABLE_LOCATION, table);
        p.put(DeltaSinkConfig.COLUMNS, SinkSessionTest.COLUMNS);
        p.put(DeltaSinkConfig.PARTITION_COLUMNS, "device_type,event_date");
        p.put(DeltaSinkConfig.COMMIT_RETRY_BACKOFF_MS, "1");
        p.putAll(s3.server().connectorSettings());
        p.put(DeltaSinkConfig.S3_ENDPOINT, proxy.endpoint());
        // the client retries a request whose answer was lost, soon
        p.put("delta.hadoop.fs.s3a.attempts.maximum", "3");
        p.put("delta.hadoop.fs.s3a.retry.limit", "3");
        p.put("delta.hadoop.fs.s3a.retry.interval", "50ms");
        return p;
    }

    private StorageSettings storage(DeltaSinkConfig config) {
        StorageSettings storage = StorageSettings.from(config);
        opened.add(storage);
        return storage;
    }

    private SinkSession session(String table, RecordingContext ctx) {
        DeltaSinkConfig config = new DeltaSinkConfig(props(table));
        ColumnMapping mapping = ColumnMapping.parse(config.columns(), config.notNullColumns());
        return new SinkSession(config, storage(config), r -> new MappingConverter(mapping, Clock.systemUTC()), ctx,
                Clock.systemUTC(), ms -> { }, "test-engine connector=sensors");
    }

    private static List<SinkRecord> events(int partition, long from, int count) {
        List<SinkRecord> out = new ArrayList<>();
        for (long o = from; o < from + count; o++) {
            out.add(SinkRecords.of(TOPIC, partition, o, SensorEvents.event(o * 2 + partition).json()));
        }
        return out;
    }

    private static void assertExactlyOnce(String table, int perPartition) {
        Set<String> seen = new HashSet<>();
        for (Map<String, Object> r : DeltaTableReader.readAll(table, s3.server().hadoopConf())) {
            assertTrue(seen.add(r.get("kafka_partition") + "@" + r.get("kafka_offset")), "duplicate row " + r);
        }
        assertEquals(2 * perPartition, seen.size());
        String key = table.substring(("s3a://" + BUCKET + "/").length());
        for (long v = 0; v <= DeltaTableReader.version(table, s3.server().hadoopConf()); v++) {
            for (JsonNode add : DeltaTableReader.actions(table, v, s3.server().hadoopConf()).stream()
                    .filter(a -> a.has("add")).map(a -> a.get("add")).toList()) {
                String path = java.net.URLDecoder.decode(add.get("path").asText(), java.nio.charset.StandardCharsets.UTF_8);
                assertTrue(Files.exists(s3.server().bucketDir().resolve(key).resolve(path)),
                        "the log names a file that is not in the bucket: " + path);
            }
        }
    }

    @Test
    void aCommitWhoseAnswerWasLostIsRecognisedAsOursAndNothingIsLostOrDoubled() {
        String table = "s3a://" + BUCKET + "/delta/lost_answer";
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = session(table, ctx);
        List<TopicPartition> tps = List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1));
        s.open(tps);
        s.put(events(0, 0, 50));
        s.put(events(1, 0, 50));
        int before = proxy.dropped();
        proxy.dropNextResponse(COMMIT_FILE_PUT);
        assertEquals(Map.of(tps.get(0), new org.apache.kafka.clients.consumer.OffsetAndMetadata(50),
                tps.get(1), new org.apache.kafka.clients.consumer.OffsetAndMetadata(50)), s.commit(Map.of()));
        assertEquals(before + 1, proxy.dropped(), "the answer to the commit's PUT was lost");
        assertEquals(0.0, ctx.metric("delta-fenced-total"), "not fenced by its own commit");
        assertEquals(0.0, ctx.metric("delta-dropped-batch-total"));

        // the session goes on from there
        s.put(events(0, 50, 25));
        s.put(events(1, 50, 25));
        s.commit(Map.of());
        assertExactlyOnce(table, 75);
        assertEquals(Long.valueOf(75), DeltaTableReader.txnVersion(table, "sensors/" + TOPIC + "/0",
                s3.server().hadoopConf()).orElseThrow());
    }

    @Test
    void offsetsSetThroughTheRestApiWhoseAnswerWasLostAreWrittenOnce() {
        String table = "s3a://" + BUCKET + "/delta/lost_answer_offsets";
        SinkSession s = session(table, new RecordingContext(false));
        s.open(List.of(new TopicPartition(TOPIC, 0)));
        s.put(events(0, 0, 10));
        s.commit(Map.of());
        long before = DeltaTableReader.version(table, s3.server().hadoopConf());

        Map<String, String> props = props(table);
        DeltaSinkConfig config = new DeltaSinkConfig(props);
        StorageSettings storage = storage(config);
        int dropped = proxy.dropped();
        proxy.dropNextResponse(COMMIT_FILE_PUT);
        new OffsetsOverride(config, props, new DeltaTable(storage.createEngine(), storage.tableUri()),
                "test-engine connector=sensors", ms -> { }).apply(Map.of(new TopicPartition(TOPIC, 0), 4L));
        assertEquals(dropped + 1, proxy.dropped());
        assertEquals(before + 1, DeltaTableReader.version(table, s3.server().hadoopConf()), "one commit");
        assertEquals(Long.valueOf(4), DeltaTableReader.txnVersion(table, "sensors/" + TOPIC + "/0",
                s3.server().hadoopConf()).orElseThrow());
    }
}
