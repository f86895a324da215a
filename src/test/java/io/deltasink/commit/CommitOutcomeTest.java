package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.FaultyLogStore;
import io.deltasink.testing.LogCapture;
import io.deltasink.testing.LogFaults;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * Commits whose outcome storage reports wrongly (the commit landed but the writer was told it
 * failed, or it was lost), driven through the session the way the worker drives a task: every
 * record ends up in the table exactly once, every file the log names exists.
 */
class CommitOutcomeTest {
    static final String TOPIC = SinkSessionTest.TOPIC;
    static final int PARTITIONS = 3;
    static final int PER_PARTITION = 300;

    @RegisterExtension
    final Sessions sessions = Sessions.of("sensors", Map.of("topics", TOPIC, DeltaSinkConfig.COLUMNS, SinkSessionTest.COLUMNS,
            DeltaSinkConfig.COLUMNS_NOT_NULL, "device_id,device_type",
            DeltaSinkConfig.PARTITION_COLUMNS, "device_type,event_date",
            DeltaSinkConfig.HADOOP_PREFIX + FaultyLogStore.KEY, FaultyLogStore.class.getName()));

    @AfterEach
    void stopFaults() {
        LogFaults.stop(table());
    }

    private SinkSession session(RecordingContext context) {
        return sessions.create(context);
    }

    private String table() {
        return sessions.table();
    }

    private static List<TopicPartition> partitions() {
        List<TopicPartition> out = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            out.add(new TopicPartition(TOPIC, p));
        }
        return out;
    }

    private static Map<TopicPartition, List<SinkRecord>> topic(int perPartition) {
        Map<TopicPartition, List<SinkRecord>> log = new HashMap<>();
        for (TopicPartition tp : partitions()) {
            List<SinkRecord> records = new ArrayList<>();
            for (long o = 0; o < perPartition; o++) {
                records.add(SinkRecords.of(TOPIC, tp.partition(), o,
                        SensorEvents.event(o * PARTITIONS + tp.partition()).json()));
            }
            log.put(tp, records);
        }
        return log;
    }

    /** Every (partition, offset) is a row exactly once, the txn versions are at the end, every named file exists. */
    private void assertExactlyOnce(int perPartition) {
        List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
        Set<String> seen = new HashSet<>();
        for (Map<String, Object> r : rows) {
            assertTrue(seen.add(r.get("kafka_partition") + "@" + r.get("kafka_offset")), "duplicate row " + r);
        }
        assertEquals(PARTITIONS * perPartition, seen.size());
        for (TopicPartition tp : partitions()) {
            assertEquals(Long.valueOf(perPartition), DeltaTableReader.txnVersion(table(),
                    "sensors/" + TOPIC + "/" + tp.partition()).orElseThrow());
        }
        for (JsonNode add : DeltaTableReader.allActions(table(), "add")) {
            String path = URLDecoder.decode(add.get("path").asText(), StandardCharsets.UTF_8);
            assertTrue(Files.exists(sessions.dir().resolve("table").resolve(path)), "the log names a missing file: " + path);
        }
    }

    @ParameterizedTest
    @EnumSource(FaultyLogStore.Fault.class)
    void everyRecordLandsOnceWhateverStorageReportsAboutACommit(FaultyLogStore.Fault fault) {
        RecordingContext ctx = new RecordingContext(false);
        Map<TopicPartition, Long> group = new HashMap<>();
        WorkerLoop worker = new WorkerLoop(session(ctx), ctx, topic(PER_PARTITION), group, 100, 3).assign(partitions());
        FaultyLogStore.arm(table(), fault, fault); // the first two commits of the batches
        worker.runToEnd(1000);

        assertEquals(0, FaultyLogStore.pending(table()), "both faults were injected");
        assertExactlyOnce(PER_PARTITION);
        for (TopicPartition tp : partitions()) {
            assertEquals(Long.valueOf(PER_PARTITION), group.get(tp), "the consumer group follows the table");
        }
        if (fault == FaultyLogStore.Fault.LOST_BEFORE_WRITE) {
            assertEquals(2.0, ctx.metric("delta-dropped-batch-total"), "a lost commit drops its batch");
        } else {
            assertEquals(0.0, ctx.metric("delta-dropped-batch-total"), "a landed commit is recognised, not dropped");
            assertEquals(0.0, ctx.metric("delta-fenced-total"), "a writer is never fenced by its own commit");
        }
    }

    @Test
    void offsetsSetThroughTheRestApiAreWrittenOnceWhenTheirCommitLandsButReportsAFailure() {
        RecordingContext ctx = new RecordingContext(false);
        new WorkerLoop(session(ctx), ctx, topic(20), new HashMap<>(), 100, 1).assign(partitions()).runToEnd(100);
        long before = DeltaTableReader.version(table());

        FaultyLogStore.arm(table(), FaultyLogStore.Fault.LANDED_THEN_EXISTS);
        override(Map.of(new TopicPartition(TOPIC, 0), 5L), Map.of());

        assertEquals(0, FaultyLogStore.pending(table()));
        assertEquals(before + 1, DeltaTableReader.version(table()), "one commit, recognised as written");
        assertEquals("Manual Update", DeltaTableReader.commitOperations(table()).get(before + 1));
        assertEquals(Long.valueOf(5), DeltaTableReader.txnVersion(table(), "sensors/" + TOPIC + "/0").orElseThrow());
    }

    /**
     * The request's commit is lost before it is stored, or it is stored but cannot be read back: the
     * call fails saying so and what to do; the table holds the request once or not at all, and the
     * request sent again leaves it there exactly once.
     */
    @ParameterizedTest
    @EnumSource(value = FaultyLogStore.Fault.class, names = {"LOST_BEFORE_WRITE", "LANDED_THEN_IO_ERROR"})
    void offsetsWhoseCommitHasAnUnknownOutcomeAreWrittenOnceWhenTheRequestIsSentAgain(FaultyLogStore.Fault fault) {
        RecordingContext ctx = new RecordingContext(false);
        new WorkerLoop(session(ctx), ctx, topic(20), new HashMap<>(), 100, 1).assign(partitions()).runToEnd(100);
        long before = DeltaTableReader.version(table());
        boolean landed = fault == FaultyLogStore.Fault.LANDED_THEN_IO_ERROR;
        Map<String, String> faulty = LogFaults.settings(table());
        Map<TopicPartition, Long> request = Map.of(new TopicPartition(TOPIC, 0), 5L, new TopicPartition(TOPIC, 1), 7L);

        FaultyLogStore.arm(table(), fault);
        if (landed) {
            // reading the stored commit back times out, so it cannot be recognised as this request's
            LogFaults.start(table(), LogFaults.Fault.READ_TIMEOUT, String.format(Locale.ROOT, "%020d.json", before + 1));
        }
        ConnectException e = assertThrows(ConnectException.class, () -> override(request, faulty));
        LogFaults.stop(table());

        assertEquals(0, FaultyLogStore.pending(table()), "the fault was injected");
        assertTrue(e.getMessage().startsWith("Cannot tell whether the offsets of connector sensors were written to "
                + "the Delta table at " + table()) && e.getMessage().contains("Send the request again"), e.getMessage());
        assertEquals(landed ? List.of(before + 1) : List.of(), manualUpdates(), "the request once or not at all");
        assertEquals(Optional.of(landed ? 5L : 20L), DeltaTableReader.txnVersion(table(), "sensors/" + TOPIC + "/0"));

        override(request, faulty); // sent again, storage answering
        assertEquals(before + 1, DeltaTableReader.version(table()), "one commit for the request in all");
        assertEquals(List.of(before + 1), manualUpdates());
        assertEquals(Optional.of(5L), DeltaTableReader.txnVersion(table(), "sensors/" + TOPIC + "/0"));
        assertEquals(Optional.of(7L), DeltaTableReader.txnVersion(table(), "sensors/" + TOPIC + "/1"));
        assertEquals(Optional.of(20L), DeltaTableReader.txnVersion(table(), "sensors/" + TOPIC + "/2"), "untouched");
        assertEquals(PARTITIONS * 20, DeltaTableReader.readAll(table()).size());
    }

    /** Offsets set through the worker's offsets API, with the connector's settings and {@code extra}. */
    private void override(Map<TopicPartition, Long> offsets, Map<String, String> extra) {
        Map<String, String> props = sessions.props(extra);
        DeltaSinkConfig config = new DeltaSinkConfig(props);
        StorageSettings storage = sessions.storage(config);
        new OffsetsOverride(config, props, new DeltaTable(storage.createEngine(), storage.tableUri()),
                "test-engine connector=sensors", ms -> { }).apply(offsets);
    }

    /** The versions of the table's Manual Update commits (offsets set from outside). */
    private List<Long> manualUpdates() {
        return DeltaTableReader.commitOperations(table()).entrySet().stream()
                .filter(e -> "Manual Update".equals(e.getValue())).map(Map.Entry::getKey).toList();
    }

    @Test
    void aDeletedConsumerGroupReturnsToTheTablesPositionsWithoutNewRecords() {
        Map<TopicPartition, List<SinkRecord>> log = topic(40);
        Map<TopicPartition, Long> group = new HashMap<>();
        RecordingContext first = new RecordingContext(false);
        new WorkerLoop(session(first), first, log, group, 50, 2).assign(partitions()).runToEnd(100);
        assertEquals(Map.of(new TopicPartition(TOPIC, 0), 40L, new TopicPartition(TOPIC, 1), 40L,
                new TopicPartition(TOPIC, 2), 40L), group);

        group.clear(); // the group is deleted while the connector is stopped; no new records arrive
        RecordingContext second = new RecordingContext(false);
        WorkerLoop worker = new WorkerLoop(session(second), second, log, group, 50, 1).assign(partitions());
        worker.poll(); // one poll and one offset commit of the worker
        for (TopicPartition tp : partitions()) {
            assertEquals(Long.valueOf(40), group.get(tp), "the group is back at the table's position of " + tp);
        }
        worker.runToEnd(20);
        assertExactlyOnce(40);
    }

    @Test
    void aPartitionWhoseLogRestartedBelowTheTablePositionIsReportedAndCounted() {
        Map<TopicPartition, List<SinkRecord>> log = topic(40);
        Map<TopicPartition, Long> group = new HashMap<>();
        RecordingContext first = new RecordingContext(false);
        new WorkerLoop(session(first), first, log, group, 50, 2).assign(partitions()).runToEnd(100);

        // the topic is deleted and created again: partition 1 starts over at offset 0 with 10 new records
        TopicPartition tp1 = new TopicPartition(TOPIC, 1);
        List<SinkRecord> recreated = new ArrayList<>();
        for (long o = 0; o < 10; o++) {
            recreated.add(SinkRecords.of(TOPIC, 1, o, SensorEvents.event(10_000 + o).json()));
        }
        log.put(tp1, recreated);
        group.clear();
        RecordingContext second = new RecordingContext(false);
        try (LogCapture logs = new LogCapture()) {
            new WorkerLoop(session(second), second, log, group, 50, 1).assign(partitions()).runToEnd(20);
            List<String> warnings = logs.linesContaining("no longer holds");
            assertEquals(1, warnings.size(), "one WARN for the partition: " + warnings);
            assertTrue(warnings.get(0).contains(tp1 + "@0") && warnings.get(0).contains("table position 40"),
                    warnings.get(0));
        }
        assertEquals(10.0, second.metric("delta-records-below-position-total"), "each skipped record is counted");
        assertEquals(120, DeltaTableReader.readAll(table()).size(), "the table is unchanged");
    }
}
