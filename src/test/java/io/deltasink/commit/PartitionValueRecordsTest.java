package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * Partition values that cannot be written as the record says (a folder name too long for any file
 * system, an empty string in a NOT NULL partition column) are bad records: with
 * errors.tolerance=all they go to the reporter with their coordinates and the column, and the task
 * goes on; without it the task stops at once with that message. Never a storage failure retried
 * forever, never a row whose partition value a reader returns differently.
 */
class PartitionValueRecordsTest {
    static final String TOPIC = "sensor-events";
    static final TopicPartition TP0 = new TopicPartition(TOPIC, 0);

    @RegisterExtension
    final Sessions sessions = Sessions.of("sensors", Map.of(DeltaSinkConfig.COLUMNS, SinkSessionTest.COLUMNS,
            DeltaSinkConfig.PARTITION_COLUMNS, "device_type,event_date"));

    private SinkSession session(RecordingContext context, String notNull, Map<String, String> extra) {
        Map<String, String> settings = new HashMap<>(extra);
        settings.put(DeltaSinkConfig.COLUMNS_NOT_NULL, notNull);
        return sessions.create(context, settings);
    }

    private String table() {
        return sessions.table();
    }

    /** Sensor event {@code offset} with its device type replaced. */
    private static SinkRecord event(long offset, String deviceType) {
        Map<String, Object> value = new HashMap<>(SensorEvents.event(offset).map());
        value.put("device_type", deviceType);
        return SinkRecords.of(TOPIC, 0, offset, value);
    }

    private static SinkRecord event(long offset) {
        return SinkRecords.of(TOPIC, 0, offset, SensorEvents.event(offset).map());
    }

    @Test
    void aPartitionValueTooLongForAFolderNameIsABadRecordWithTolerance() {
        RecordingContext ctx = new RecordingContext(true);
        SinkSession s = session(ctx, "device_id,device_type", Map.of(DeltaSinkConfig.ERRORS_TOLERANCE, "all"));
        s.open(List.of(TP0));
        String emoji = "\uD83D\uDE00".repeat(70); // 140 chars, 840 bytes once escaped
        s.put(List.of(event(0), event(1, "x".repeat(300)), event(2, emoji), event(3)));

        assertEquals(Map.of(TP0, new OffsetAndMetadata(4)), s.commit(Map.of()));
        assertEquals(List.of(1L, 2L), ctx.reported.stream().map(SinkRecord::kafkaOffset).toList());
        String message = ctx.reportedErrors.get(1).getMessage();
        assertTrue(message.contains(TOPIC + "/0@2") && message.contains("'device_type'")
                && message.contains("255 bytes"), message);
        List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
        assertEquals(List.of(0L, 3L), rows.stream().map(r -> (Long) r.get("kafka_offset")).sorted().toList());
        assertEquals(2.0, ctx.metric("delta-bad-record-total"));
    }

    @Test
    void withoutToleranceTheTaskStopsAtOnceNamingTheRecordAndColumn() {
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = session(ctx, "device_id,device_type", Map.of());
        s.open(List.of(TP0));
        List<SinkRecord> batch = List.of(event(0), event(1, "y".repeat(300)));
        ConnectException e = assertThrows(ConnectException.class, () -> s.put(batch));
        assertFalse(e instanceof RetriableException, "a bad record is not retried: " + e);
        assertTrue(e.getMessage().contains(TOPIC + "/0@1") && e.getMessage().contains("'device_type'"), e.getMessage());
        assertSame(e, assertThrows(ConnectException.class, () -> s.put(List.of())), "the task stays stopped");
        assertTrue(ctx.timeouts.isEmpty(), "no retry wait was asked for");
    }

    @Test
    void anEmptyStringInANotNullPartitionColumnIsABadRecord() {
        RecordingContext ctx = new RecordingContext(true);
        SinkSession s = session(ctx, "device_id,device_type", Map.of(DeltaSinkConfig.ERRORS_TOLERANCE, "all"));
        s.open(List.of(TP0));
        s.put(List.of(event(0), event(1, ""), event(2)));

        assertEquals(Map.of(TP0, new OffsetAndMetadata(3)), s.commit(Map.of()));
        assertEquals(List.of(1L), ctx.reported.stream().map(SinkRecord::kafkaOffset).toList());
        String message = ctx.reportedErrors.get(0).getMessage();
        assertTrue(message.contains(TOPIC + "/0@1") && message.contains("'device_type'")
                && message.contains("empty"), message);
        for (Map<String, Object> row : DeltaTableReader.readAll(table())) {
            assertTrue(row.get("device_type") != null, "a NOT NULL partition column reads back null: " + row);
        }
    }

    @Test
    void anEmptyStringInANullablePartitionColumnIsStoredAndReadAsNull() {
        RecordingContext ctx = new RecordingContext(true);
        SinkSession s = session(ctx, "device_id", Map.of(DeltaSinkConfig.ERRORS_TOLERANCE, "all"));
        s.open(List.of(TP0));
        s.put(List.of(event(0, ""), event(1, null), event(2)));

        assertEquals(Map.of(TP0, new OffsetAndMetadata(3)), s.commit(Map.of()));
        assertTrue(ctx.reported.isEmpty());
        Map<Long, Object> deviceTypes = new HashMap<>();
        DeltaTableReader.readAll(table()).forEach(r -> deviceTypes.put((Long) r.get("kafka_offset"), r.get("device_type")));
        assertNull(deviceTypes.get(0L), "an empty string reads back as null");
        assertTrue(deviceTypes.containsKey(0L) && deviceTypes.containsKey(1L));
        assertNull(deviceTypes.get(1L));
        assertEquals(SensorEvents.event(2).deviceType(), deviceTypes.get(2L));
        long version = DeltaTableReader.version(table());
        for (JsonNode add : DeltaTableReader.actions(table(), version, "add")) {
            JsonNode value = add.get("partitionValues").get("device_type");
            assertTrue(value.isNull() || !value.asText().isEmpty(), "the log holds null, never an empty string: " + add);
        }
    }
}
