package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.testing.DataFileFaults;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * The background writer (writer.background=true; off by default) under the session, against real tables
 * read back with the independent reader: data files fail on the writer thread (injected by
 * {@link DataFileFaults}) and every offset still lands once; a bad row still goes to the dead
 * letter queue with its own record; stop() leaves no writer thread and no conversion helper.
 */
class WriterThreadTest {
    static final String TOPIC = SinkSessionTest.TOPIC;
    static final String THREAD = "delta-writer-sensors-";
    /** A connector name of its own, so that threads of other tests' sessions in this JVM do not count. */
    static final String OWN_NAME = "writer-thread-test";
    static final List<TopicPartition> PARTITIONS = List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1),
            new TopicPartition(TOPIC, 2));

    @RegisterExtension
    final Sessions sessions = Sessions.of("sensors", Map.of(DeltaSinkConfig.COLUMNS, SinkSessionTest.COLUMNS,
            DeltaSinkConfig.COLUMNS_NOT_NULL, "device_id,device_type",
            DeltaSinkConfig.PARTITION_COLUMNS, "device_type,event_date"));

    @AfterEach
    void stopFaults() {
        DataFileFaults.stop(sessions.table());
    }

    /** Tiny files and the smallest bound: put() writes files all the time, on the writer thread. */
    private SinkSession session(RecordingContext ctx, Map<String, String> extra) {
        Map<String, String> settings = new HashMap<>(Map.of(DeltaSinkConfig.WRITER_BACKGROUND, "true"));
        settings.putAll(extra);
        return sessionWithDefaults(ctx, settings);
    }

    /** Tiny files and the smallest bound, writer.background as the connector's default unless given. */
    private SinkSession sessionWithDefaults(RecordingContext ctx, Map<String, String> extra) {
        Map<String, String> settings = new HashMap<>(DataFileFaults.settings());
        settings.put(DeltaSinkConfig.FILE_TARGET_BYTES, "2048");
        settings.put(DeltaSinkConfig.BUFFER_MAX_BYTES, "65536");
        settings.putAll(extra);
        return sessions.create(ctx, settings);
    }

    private static Map<TopicPartition, List<SinkRecord>> topic(int perPartition) {
        Map<TopicPartition, List<SinkRecord>> log = new HashMap<>();
        for (TopicPartition tp : PARTITIONS) {
            List<SinkRecord> records = new ArrayList<>();
            for (long o = 0; o < perPartition; o++) {
                records.add(SinkRecords.of(TOPIC, tp.partition(), o,
                        SensorEvents.event(o * 10 + tp.partition()).json()));
            }
            log.put(tp, records);
        }
        return log;
    }

    @ParameterizedTest(name = "{0} of data file {1}")
    @CsvSource({"CREATE, 1", "CREATE, 4", "WRITE, 2", "WRITE, 7"})
    void aDataFileFailingOnTheWriterThreadIsRetriedAndEveryOffsetLandsOnce(DataFileFaults.Fault fault, int nth)
            throws IOException {
        DataFileFaults.failNth(sessions.table(), fault, nth);
        RecordingContext ctx = new RecordingContext(false);
        int perPartition = 400;
        SinkSession session = session(ctx, Map.of());
        WorkerLoop worker = new WorkerLoop(session, ctx, topic(perPartition), new HashMap<>(), 150, 3)
                .assign(PARTITIONS).runToEnd(200);
        session.stop();

        assertTrue(DataFileFaults.injected(sessions.table()) > 0, "the fault happened");
        assertTrue(worker.retriable > 0, "the failure made a put() retriable");
        List<Map<String, Object>> rows = DeltaTableReader.readAll(sessions.table());
        Set<String> coordinates = new HashSet<>();
        for (Map<String, Object> r : rows) {
            assertTrue(coordinates.add(r.get("kafka_partition") + "@" + r.get("kafka_offset")), "duplicate row " + r);
        }
        assertEquals(PARTITIONS.size() * perPartition, coordinates.size(), "every offset once");
        for (TopicPartition tp : PARTITIONS) {
            assertEquals(Long.valueOf(perPartition), DeltaTableReader.txnVersion(sessions.table(),
                    "sensors/" + TOPIC + "/" + tp.partition()).orElseThrow());
        }
        Set<String> referenced = referencedFiles();
        for (String file : referenced) {
            String name = Paths.get(file).getFileName().toString();
            assertTrue(Files.exists(tableDir().resolve(file)), "referenced file exists: " + file);
            assertTrue(DataFileFaults.creatingThread(name).startsWith(THREAD),
                    file + " written by " + DataFileFaults.creatingThread(name));
        }
        // the batches dropped deleted their files: every data file on disk is referenced
        assertEquals(referenced, dataFilesOnDisk());
    }

    @Test
    void badRowsGoToTheDeadLetterQueueWithTheirOwnRecordsWhileRowsAroundThemLand() {
        RecordingContext ctx = new RecordingContext(true);
        SinkSession s = session(ctx, Map.of("errors.tolerance", "all"));
        s.open(List.of(PARTITIONS.get(0)));
        List<SinkRecord> batch = new ArrayList<>();
        for (long o = 0; o < 700; o++) {
            if (o == 300) { // a partition value too long for a folder name
                batch.add(SinkRecords.of(TOPIC, 0, o, SensorEvents.event(o, SensorEvents.DAY, "t".repeat(300)).json()));
            } else if (o == 301) { // null in a NOT NULL column
                Map<String, Object> value = SensorEvents.event(o).map();
                value.put("device_id", null);
                batch.add(SinkRecords.of(TOPIC, 0, o, value));
            } else {
                batch.add(SinkRecords.of(TOPIC, 0, o, SensorEvents.event(o).json()));
            }
        }
        s.put(batch.subList(0, 500));
        s.put(batch.subList(500, 700));
        s.commit(Map.of());
        s.stop();

        assertEquals(List.of(300L, 301L), ctx.reported.stream().map(SinkRecord::kafkaOffset).toList(),
                "each bad record reported with its own record");
        assertTrue(ctx.reportedErrors.get(0).getMessage().contains("device_type"), ctx.reportedErrors.get(0).getMessage());
        assertTrue(ctx.reportedErrors.get(1).getMessage().contains("device_id"), ctx.reportedErrors.get(1).getMessage());
        Set<Long> offsets = DeltaTableReader.readAll(sessions.table()).stream()
                .map(r -> ((Number) r.get("kafka_offset")).longValue()).collect(Collectors.toSet());
        assertEquals(698, offsets.size());
        assertTrue(offsets.contains(299L) && offsets.contains(302L) && !offsets.contains(300L)
                && !offsets.contains(301L), "rows before and after the bad ones land");
    }

    @Test
    void stopLeavesNoWriterThreadAfterCommitsAndAfterAFailure() throws InterruptedException {
        RecordingContext ctx = new RecordingContext(false);
        // a conversion helper too (convert.threads=2), which must go with the writer thread
        SinkSession s = session(ctx, Map.of(DeltaSinkConfig.CONNECTOR_NAME, OWN_NAME, DeltaSinkConfig.CONVERT_THREADS, "2"));
        s.open(PARTITIONS);
        s.put(topic(300).get(PARTITIONS.get(0)));
        s.commit(Map.of());
        assertEquals(1, writerThreads(), "the writer thread runs between commits");
        assertEquals(1, threads("delta-convert-"), "the conversion helper runs between commits");
        s.stop();
        awaitNoWriterThread();

        DataFileFaults.failNth(sessions.table(), DataFileFaults.Fault.CREATE, 1);
        SinkSession failing = session(new RecordingContext(false), Map.of(DeltaSinkConfig.CONNECTOR_NAME, OWN_NAME));
        failing.open(PARTITIONS);
        try {
            failing.put(topic(300).get(PARTITIONS.get(1)));
        } catch (RuntimeException expected) {
            // retriable: the batch is dropped
        }
        assertEquals(1, DataFileFaults.injected(sessions.table()));
        failing.stop();
        awaitNoWriterThread();
    }

    @Test
    void byDefaultTheTaskThreadWritesTheFiles() {
        RecordingContext ctx = new RecordingContext(false);
        // writer.background left to its default (false)
        SinkSession s = sessionWithDefaults(ctx, Map.of(DeltaSinkConfig.CONNECTOR_NAME, OWN_NAME));
        s.open(PARTITIONS);
        s.put(topic(300).get(PARTITIONS.get(0)));
        s.commit(Map.of());
        assertEquals(0, writerThreads());
        assertEquals(0, threads("delta-convert-"), "one conversion thread by default: the task's own");
        for (String file : referencedFiles()) {
            assertEquals(Thread.currentThread().getName(),
                    DataFileFaults.creatingThread(Paths.get(file).getFileName().toString()));
        }
        assertEquals(300, DeltaTableReader.readAll(sessions.table()).size());
        s.stop();
    }

    private static long writerThreads() {
        return threads("delta-writer-");
    }

    /** Live threads of this test's sessions whose names start with {@code prefix}. */
    private static long threads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith(prefix + OWN_NAME + "-")).count();
    }

    /** No writer thread and no conversion helper left once stop() returned. */
    private static void awaitNoWriterThread() throws InterruptedException {
        // stop() waits for the writer thread to end, the helper ends once idle; allow the JVM a moment to drop them
        for (int i = 0; i < 50 && writerThreads() + threads("delta-convert-") > 0; i++) {
            Thread.sleep(10);
        }
        assertEquals(0, writerThreads(), "no writer thread left");
        assertEquals(0, threads("delta-convert-"), "no conversion helper left");
    }

    private Path tableDir() {
        return sessions.dir().resolve("table");
    }

    /** Paths of the add actions of every commit; none twice. */
    private Set<String> referencedFiles() {
        Set<String> out = new HashSet<>();
        for (JsonNode add : DeltaTableReader.allActions(sessions.table(), "add")) {
            String path = java.net.URLDecoder.decode(add.get("path").asText(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(out.add(path), "file referenced twice: " + path);
        }
        return out;
    }

    private Set<String> dataFilesOnDisk() throws IOException {
        try (Stream<Path> files = Files.walk(tableDir())) {
            return files.filter(p -> p.getFileName().toString().endsWith(".parquet"))
                    .filter(p -> !p.toString().contains("_delta_log"))
                    .map(p -> tableDir().relativize(p).toString()).collect(Collectors.toSet());
        }
    }
}
