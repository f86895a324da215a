package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.ColumnMapping;
import io.deltasink.convert.MappingConverter;
import io.deltasink.storage.StorageSettings;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.S3ProxyServer;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * A batch spanning hundreds of table partitions under a small memory bound, on a local table and
 * on S3 (S3Proxy): a few busy partitions get open files, which the open-file cap and the bound
 * close early; the others' rows wait in memory and are written out together. Every record is in
 * the table once, read back with the independent reader.
 */
class ManyPartitionsTest {
    static final String TOPIC = SinkSessionTest.TOPIC;
    static final String BUCKET = "many-partitions";
    static final int KAFKA_PARTITIONS = 3;
    static final int BUSY = 4;
    static final int SPARSE = 200;
    static final int PER_COMMIT = 9000;

    @TempDir
    static Path dir;
    static S3ProxyServer server;

    @BeforeAll
    static void startServer() {
        server = new S3ProxyServer(dir.resolve("s3"), BUCKET).start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    /** Event i: two thirds go to four busy table partitions, the rest spread over 200 others. */
    static SensorEvents.Event event(long i) {
        long k = i / KAFKA_PARTITIONS;
        if (k % 3 != 0) {
            return SensorEvents.event(i, SensorEvents.DAY, SensorEvents.SMART_PLUG + "_busy" + (k % BUSY));
        }
        long sparse = k / 3 % SPARSE;
        LocalDate day = SensorEvents.DAY.minusDays(sparse / 20);
        return SensorEvents.event(i, day, SensorEvents.SMART_PLUG + "_" + (sparse % 20));
    }

    private static List<SinkRecord> records(int partition, long fromOffset, int count) {
        List<SinkRecord> out = new ArrayList<>();
        for (long o = fromOffset; o < fromOffset + count; o++) {
            out.add(SinkRecords.of(TOPIC, partition, o, event(o * KAFKA_PARTITIONS + partition).json()));
        }
        return out;
    }

    /** S3A's upload blocks on disk: one file per open output stream (small files have one block). */
    private static int filesIn(Path blocks) {
        if (!Files.isDirectory(blocks)) {
            return 0;
        }
        try (Stream<Path> files = Files.list(blocks)) {
            return (int) files.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parquet files under the table that this process holds open, from /proc/self/fd. */
    private static int openFilesUnder(Path table) {
        Path fds = Path.of("/proc/self/fd");
        assumeTrue(Files.isDirectory(fds), "open files are counted through /proc");
        int open = 0;
        try (Stream<Path> links = Files.list(fds)) {
            for (Path link : (Iterable<Path>) links::iterator) {
                try {
                    Path target = Files.readSymbolicLink(link);
                    if (target.startsWith(table) && target.toString().endsWith(".parquet")) {
                        open++;
                    }
                } catch (IOException closedMeanwhile) {
                    // the descriptor of the listing itself, or one closed since
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return open;
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "s3"})
    void everyRecordIsInTheTableOnceUnderASmallBound(String storageKind) {
        boolean s3 = storageKind.equals("s3");
        String location = s3 ? "s3a://" + BUCKET + "/delta/events" : dir.resolve("local-table").toString();
        Map<String, String> p = new HashMap<>();
        p.put("name", "sensors");
        p.put(DeltaSinkConfig.TABLE_LOCATION, location);
        p.put(DeltaSinkConfig.COLUMNS, SinkSessionTest.COLUMNS);
        p.put(DeltaSinkConfig.COLUMNS_NOT_NULL, "device_id,device_type");
        p.put(DeltaSinkConfig.PARTITION_COLUMNS, "device_type,event_date");
        p.put(DeltaSinkConfig.BUFFER_MAX_BYTES, Integer.toString(1 << 20));
        Path uploadBlocks = dir.resolve("s3a-blocks-" + storageKind);
        if (s3) {
            p.putAll(server.connectorSettings());
            p.put("delta.hadoop.fs.s3a.buffer.dir", uploadBlocks.toString());
        }
        // 6 data columns: each open file counts 32 + 6 x 20 KiB, so 3 fit into half of 1 MiB
        int cap = 3;
        DeltaSinkConfig config = new DeltaSinkConfig(p);
        ColumnMapping mapping = ColumnMapping.parse(config.columns(), config.notNullColumns());
        Configuration readConf = s3 ? server.hadoopConf() : new Configuration();
        String table = StorageSettings.normalize(location);
        try (StorageSettings storage = StorageSettings.from(config)) {
            SinkSession session = new SinkSession(config, storage, r -> new MappingConverter(mapping, Clock.systemUTC()),
                    new RecordingContext(false), Clock.systemUTC(), ms -> { }, "test-engine connector=sensors");
            List<TopicPartition> tps = new ArrayList<>();
            for (int kp = 0; kp < KAFKA_PARTITIONS; kp++) {
                tps.add(new TopicPartition(TOPIC, kp));
            }
            session.open(tps);
            int perPartition = PER_COMMIT / KAFKA_PARTITIONS;
            int mostOpen = 0;
            for (int commit = 0; commit < 2; commit++) {
                long from = (long) commit * perPartition;
                for (int chunk = 0; chunk < perPartition; chunk += 100) {
                    for (int kp = 0; kp < KAFKA_PARTITIONS; kp++) {
                        session.put(records(kp, from + chunk, 100));
                        int open = s3 ? filesIn(uploadBlocks) : openFilesUnder(dir.resolve("local-table"));
                        assertTrue(open <= cap, open + " data files open at once, more than " + cap);
                        mostOpen = Math.max(mostOpen, open);
                    }
                }
                Map<TopicPartition, OffsetAndMetadata> offsets = session.commit(Map.of());
                for (TopicPartition tp : tps) {
                    assertEquals(new OffsetAndMetadata(from + perPartition), offsets.get(tp), tp.toString());
                }
                // the busy partitions' files were closed early: several files each in one commit
                List<JsonNode> adds = DeltaTableReader.actions(table, DeltaTableReader.version(table, readConf),
                        readConf).stream().filter(a -> a.has("add")).toList();
                long busyFiles = adds.stream().filter(a -> a.get("add").get("path").asText().contains("_busy")).count();
                assertTrue(busyFiles > 2 * BUSY, "busy partitions closed early: " + busyFiles + " files");
                assertTrue(adds.size() < BUSY + SPARSE + 200, "waiting rows written out together: " + adds.size());
            }
            session.stop();
            assertTrue(mostOpen >= 2, "files were open between puts: " + mostOpen);
        }

        List<Map<String, Object>> rows = DeltaTableReader.readAll(table, readConf);
        assertEquals(2 * PER_COMMIT, rows.size());
        Set<Long> seen = new HashSet<>();
        Set<String> tablePartitions = new HashSet<>();
        for (Map<String, Object> row : rows) {
            long i = (Long) row.get("kafka_offset") * KAFKA_PARTITIONS + (Integer) row.get("kafka_partition");
            assertTrue(seen.add(i), "duplicate row " + row);
            SensorEvents.Event e = event(i);
            assertEquals(e.deviceType(), row.get("device_type"), row.toString());
            assertEquals(e.deviceId(), row.get("device_id"), row.toString());
            assertEquals(LocalDate.ofEpochDay(e.epochDay()), row.get("event_date"), row.toString());
            tablePartitions.add(row.get("device_type") + "/" + row.get("event_date"));
        }
        assertEquals(BUSY + SPARSE, tablePartitions.size());
        for (int kp = 0; kp < KAFKA_PARTITIONS; kp++) {
            assertEquals(Long.valueOf(2L * PER_COMMIT / KAFKA_PARTITIONS),
                    DeltaTableReader.txnVersion(table, "sensors/" + TOPIC + "/" + kp, readConf).orElseThrow());
        }
    }
}
