package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.LogCapture;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/** The session against real Delta tables in a temp dir, read back with the independent reader. */
class SinkSessionTest {
    static final String TOPIC = "sensor-events";
    static final String COLUMNS = "device_id:string=device_id, device_type:string=device_type, "
            + "event_time:timestamp=ingested_at, linkquality:int=payload.linkquality, power:double=payload.power, "
            + "kafka_partition:int=@partition, kafka_offset:long=@offset, event_date:date=date(event_time)";
    static final TopicPartition TP0 = new TopicPartition(TOPIC, 0);
    static final TopicPartition TP1 = new TopicPartition(TOPIC, 1);

    @RegisterExtension
    final Sessions sessions = Sessions.of("sensors", Map.of(DeltaSinkConfig.COLUMNS, COLUMNS,
            DeltaSinkConfig.COLUMNS_NOT_NULL, "device_id,device_type",
            DeltaSinkConfig.PARTITION_COLUMNS, "device_type,event_date"));

    private SinkSession session(RecordingContext context, Map<String, String> extra) {
        return sessions.create(context, extra);
    }

    private String table() {
        return sessions.table();
    }

    private static List<SinkRecord> events(int partition, long fromOffset, int count) {
        List<SinkRecord> out = new ArrayList<>();
        for (long o = fromOffset; o < fromOffset + count; o++) {
            out.add(SinkRecords.of(TOPIC, partition, o, SensorEvents.event(o * 10 + partition).json()));
        }
        return out;
    }

    private static Set<String> coordinates(List<Map<String, Object>> rows) {
        Set<String> out = new HashSet<>();
        for (Map<String, Object> r : rows) {
            assertTrue(out.add(r.get("kafka_partition") + "@" + r.get("kafka_offset")), "duplicate row " + r);
        }
        return out;
    }

    @Test
    void oneCommitCarriesRowsAndATxnPerPartition() {
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = session(ctx, Map.of());
        s.open(List.of(TP0, TP1));
        assertTrue(ctx.seeks.isEmpty(), "a new table has no positions to seek to");
        s.put(events(0, 0, 60));
        s.put(events(1, 5, 40));
        Map<TopicPartition, OffsetAndMetadata> offsets = s.commit(Map.of());

        assertEquals(Map.of(TP0, new OffsetAndMetadata(60), TP1, new OffsetAndMetadata(45)), offsets);
        long version = DeltaTableReader.version(table());
        List<JsonNode> txns = DeltaTableReader.actions(table(), version, "txn");
        assertEquals(2, txns.size(), "one txn action per Kafka partition in the same commit");
        assertEquals(Long.valueOf(60), DeltaTableReader.txnVersion(table(), "sensors/sensor-events/0").orElseThrow());
        assertEquals(Long.valueOf(45), DeltaTableReader.txnVersion(table(), "sensors/sensor-events/1").orElseThrow());
        List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
        assertEquals(100, rows.size());
        assertEquals(100, coordinates(rows).size());

        // no new records: no commit
        assertEquals(offsets, s.commit(Map.of()));
        assertEquals(version, DeltaTableReader.version(table()));
    }

    @Test
    void reopenedTaskSeeksFromTheTableAndSkipsRedeliveredRecords() {
        SinkSession first = session(new RecordingContext(false), Map.of());
        first.open(List.of(TP0));
        first.put(events(0, 0, 50));
        first.commit(Map.of());
        first.stop();

        // a restarted task whose consumer group was lost: the worker redelivers from offset 0
        RecordingContext ctx = new RecordingContext(false);
        SinkSession second = session(ctx, Map.of());
        second.open(List.of(TP0));
        assertEquals(Map.of(TP0, 49L), ctx.seeks, "open() must seek to the table's txn version (one record early, "
                + "so that the worker commits the group's offset: PartitionPositions.seekTarget)");
        second.put(events(0, 0, 80));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(80)), second.commit(Map.of()));

        List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
        assertEquals(80, rows.size());
        assertEquals(80, coordinates(rows).size());
    }

    @Test
    void staleWriterIsFencedAndLeavesNoRowsOrFilesBehind() throws IOException {
        RecordingContext zombieCtx = new RecordingContext(false);
        SinkSession zombie = session(zombieCtx, Map.of());
        SinkSession owner = session(new RecordingContext(false), Map.of());
        zombie.open(List.of(TP0));
        owner.open(List.of(TP0));

        owner.put(events(0, 0, 30));
        owner.commit(Map.of());
        zombie.put(events(0, 0, 50));
        Map<TopicPartition, OffsetAndMetadata> zombieOffsets = zombie.commit(Map.of());

        assertEquals(Map.of(TP0, new OffsetAndMetadata(30)), zombieOffsets, "the zombie reports the table's offset");
        assertEquals(1.0, zombieCtx.metric("delta-fenced-total"));
        assertEquals(0.0, zombieCtx.metric("delta-commit-total"));
        zombie.put(List.of()); // the rewind is handed to the worker in the next put (a poll always delivers one)
        assertEquals(Map.of(TP0, 29L), zombieCtx.seeks, "the zombie re-seeks to the table's position (one record early)");
        List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
        assertEquals(30, rows.size(), "only the owner's rows are in the table");
        assertEquals(Long.valueOf(30), DeltaTableReader.txnVersion(table(), "sensors/sensor-events/0").orElseThrow());
        long referenced = 0;
        for (long v = 0; v <= DeltaTableReader.version(table()); v++) {
            referenced += DeltaTableReader.actions(table(), v, "add").size();
        }
        try (Stream<Path> files = Files.walk(sessions.dir().resolve("table"))) {
            assertEquals(referenced, files.filter(f -> f.toString().endsWith(".parquet"))
                    .filter(f -> !f.toString().contains("_delta_log")).count(), "the fenced batch's files are deleted");
        }

        // after the re-seek the zombie continues correctly from the table's position
        zombie.put(events(0, 30, 20));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(50)), zombie.commit(Map.of()));
        assertEquals(50, coordinates(DeltaTableReader.readAll(table())).size());
    }

    @Test
    void tombstonesAreSkippedAndTheirOffsetsCommitted() {
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = session(ctx, Map.of());
        s.open(List.of(TP0));
        List<SinkRecord> batch = new ArrayList<>(events(0, 0, 10));
        batch.add(SinkRecords.of(TOPIC, 0, 10, null));
        batch.add(SinkRecords.of(TOPIC, 0, 11, null));
        s.put(batch);
        assertEquals(Map.of(TP0, new OffsetAndMetadata(12)), s.commit(Map.of()));
        assertEquals(2, s.tombstones());
        assertEquals(2.0, ctx.metric("delta-tombstone-total"));
        assertEquals(10, DeltaTableReader.readAll(table()).size());

        s.put(List.of(SinkRecords.of(TOPIC, 0, 12, null)));
        long before = DeltaTableReader.version(table());
        assertEquals(Map.of(TP0, new OffsetAndMetadata(13)), s.commit(Map.of()));
        assertEquals(before + 1, DeltaTableReader.version(table()), "offset-only commit");
        assertTrue(DeltaTableReader.actions(table(), before + 1, "add").isEmpty());
    }

    @Test
    void tombstoneFailsWhenConfigured() {
        SinkSession s = session(new RecordingContext(false), Map.of(DeltaSinkConfig.NULL_VALUE_BEHAVIOR, "fail"));
        s.open(List.of(TP0));
        DataException e = assertThrows(DataException.class, () -> s.put(List.of(SinkRecords.of(TOPIC, 0, 7, null))));
        assertTrue(e.getMessage().contains("sensor-events/0@7"), e.getMessage());
    }

    @Test
    void badRecordFailsTheTaskWithoutTolerance() {
        SinkSession s = session(new RecordingContext(true), Map.of());
        s.open(List.of(TP0));
        List<SinkRecord> batch = new ArrayList<>(events(0, 0, 3));
        batch.add(SinkRecords.of(TOPIC, 0, 3, "{\"device_id\":\"x\",\"device_type\":\"smart_plug\","
                + "\"ingested_at\":\"2026-06-22T09:15:30Z\",\"payload\":\"{\\\"linkquality\\\":\\\"abc\\\"}\"}"));
        DataException e = assertThrows(DataException.class, () -> s.put(batch));
        assertTrue(e.getMessage().contains("sensor-events/0@3") && e.getMessage().contains("linkquality")
                && e.getMessage().contains("abc"), e.getMessage());
        // the task stays failed
        assertThrows(DataException.class, () -> s.put(List.of()));
    }

    @Test
    void badRecordsGoToTheReporterWithTolerance() {
        RecordingContext ctx = new RecordingContext(true);
        SinkSession s = session(ctx, Map.of("errors.tolerance", "all"));
        s.open(List.of(TP0));
        List<SinkRecord> batch = new ArrayList<>(events(0, 0, 5));
        batch.add(SinkRecords.of(TOPIC, 0, 5, "not json at all"));
        batch.add(SinkRecords.of(TOPIC, 0, 6, "{\"device_type\":\"smart_plug\",\"ingested_at\":\"2026-06-22T09:15:30Z\"}"));
        batch.addAll(events(0, 7, 3));
        s.put(batch);
        assertEquals(Map.of(TP0, new OffsetAndMetadata(10)), s.commit(Map.of()));
        assertEquals(List.of(5L, 6L), ctx.reported.stream().map(SinkRecord::kafkaOffset).toList());
        assertTrue(ctx.reportedErrors.get(1).getMessage().contains("device_id"), ctx.reportedErrors.get(1).getMessage());
        assertEquals(8, DeltaTableReader.readAll(table()).size());
        assertEquals(2.0, ctx.metric("delta-bad-record-total"));
        assertEquals(8.0, ctx.metric("delta-rows-total"));
        assertEquals(1.0, ctx.metric("delta-commit-total"));
    }

    @Test
    void manyBufferedRowsAskForAnEarlyCommit() {
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = session(ctx, Map.of(DeltaSinkConfig.FLUSH_MAX_RECORDS, "25"));
        s.open(List.of(TP0));
        s.put(events(0, 0, 20));
        assertEquals(0, ctx.commitRequests);
        s.put(events(0, 20, 10));
        assertEquals(1, ctx.commitRequests);
    }

    @Test
    void aPartitionRevokedRightAfterAFailedCommitIsNeverSought() {
        // The worker seeks every offset a task requested at its next poll, even for a partition a
        // rebalance took away meanwhile, and that seek kills the task. preCommit() is the last call
        // before a revocation, so a rewind decided there must not reach the worker for a closed partition.
        RecordingContext zombieCtx = new RecordingContext(false);
        SinkSession zombie = session(zombieCtx, Map.of());
        SinkSession owner = session(new RecordingContext(false), Map.of());
        zombie.open(List.of(TP0, TP1));
        owner.open(List.of(TP0));
        owner.put(events(0, 0, 30));
        owner.commit(Map.of());

        List<SinkRecord> batch = new ArrayList<>(events(0, 0, 50));
        batch.addAll(events(1, 0, 20));
        zombie.put(batch);
        zombie.commit(Map.of()); // fenced on TP0: the whole batch is dropped, both partitions must be read again
        zombie.close(List.of(TP0)); // the revocation that followed
        zombie.put(List.of());

        assertEquals(Map.of(TP1, 0L), zombieCtx.seeks, "only the partition still assigned is rewound");
    }

    @Test
    void closeWithAnUncommittedBatchRequestsNoSeekForTheClosedPartitions() {
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = session(ctx, Map.of());
        s.open(List.of(TP0, TP1));
        s.put(events(0, 0, 10));
        s.put(events(1, 0, 10));
        s.close(List.of(TP0)); // partitions lost: no commit before close
        s.put(List.of());

        assertEquals(Map.of(TP1, 0L), ctx.seeks, "the dropped batch of TP1 is read again, TP0 belongs to another task");
    }

    @Test
    void closeDropsAnUncommittedBatchAndTheNextOwnerResumesFromTheTable() {
        SinkSession s = session(new RecordingContext(false), Map.of());
        s.open(List.of(TP0));
        s.put(events(0, 0, 10));
        s.commit(Map.of());
        s.put(events(0, 10, 10));
        s.close(List.of(TP0));
        assertFalse(DeltaTableReader.readAll(table()).size() > 10);

        RecordingContext ctx = new RecordingContext(false);
        SinkSession next = session(ctx, Map.of());
        next.open(List.of(TP0));
        assertEquals(Map.of(TP0, 9L), ctx.seeks, "the table's position, one record early");
    }

    @Test
    void aMissingTableIsAnErrorWhenAutoCreateIsOff() {
        SinkSession s = session(new RecordingContext(false), Map.of(DeltaSinkConfig.TABLE_AUTO_CREATE, "false"));
        org.apache.kafka.connect.errors.ConnectException e = assertThrows(
                org.apache.kafka.connect.errors.ConnectException.class, () -> s.open(List.of(TP0)));
        assertTrue(e.getMessage().contains("table.auto.create"), e.getMessage());
    }

    @Test
    void anExistingTablePartitionedDifferentlyIsRefusedNamingTheDifference() {
        SinkSession first = session(new RecordingContext(false), Map.of());
        first.open(List.of(TP0));
        SinkSession second = session(new RecordingContext(false), Map.of(DeltaSinkConfig.PARTITION_COLUMNS, "event_date"));
        org.apache.kafka.connect.errors.ConnectException e = assertThrows(
                org.apache.kafka.connect.errors.ConnectException.class, () -> second.open(List.of(TP0)));
        assertTrue(e.getMessage().contains("partition"), e.getMessage());
        assertTrue(e.getMessage().contains("device_type"), e.getMessage());
    }

    @Test
    void autoModeCreatesTheTableFromTheFirstRecord() {
        SinkSession s = session(new RecordingContext(false), Map.of(DeltaSinkConfig.COLUMNS, "auto",
                DeltaSinkConfig.COLUMNS_NOT_NULL, "", DeltaSinkConfig.PARTITION_COLUMNS, "device_type"));
        s.open(List.of(TP0));
        List<SinkRecord> batch = new ArrayList<>();
        for (long o = 0; o < 20; o++) {
            batch.add(SinkRecords.of(TOPIC, 0, o, SensorEvents.smartPlug(o).map()));
        }
        s.put(batch);
        assertEquals(Map.of(TP0, new OffsetAndMetadata(20)), s.commit(Map.of()));
        List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
        assertEquals(20, rows.size());
        assertTrue(rows.get(0).containsKey("device_id") && rows.get(0).get("device_type").equals("smart_plug"),
                rows.get(0).toString());
    }

    @Test
    void withoutConditionalWritesTheTaskWarnsThatOnlyOneWriterIsSafe() {
        String table = "s3a://sensor-data/delta/single_writer";
        for (String value : List.of("true", "false")) {
            try (LogCapture logs = new LogCapture()) {
                session(new RecordingContext(false), Map.of(DeltaSinkConfig.TABLE_LOCATION, table,
                        DeltaSinkConfig.S3_CONDITIONAL_WRITES, value));
                List<String> warnings = logs.lines().stream().filter(l -> l.startsWith("WARN")
                        && l.contains("s3.conditional.writes=false") && l.contains(table)
                        && l.contains("Only ONE connector task in ONE worker") && l.contains("commits can be lost"))
                        .distinct().toList(); // the capture may see a line once per logger config
                assertEquals(value.equals("false") ? 1 : 0, warnings.size(), value + ": " + logs.lines());
            }
        }
    }
}
