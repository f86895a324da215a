package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.storage.StorageSettings;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SinkRecords;

/**
 * Records whose values no Delta reader could hold, or that the mapping cannot read without
 * guessing, go to the dead letter queue; the table keeps only the well-formed rows and stays
 * readable by an independent reader (Kernel's scan), partition values and statistics included.
 */
class PoisonRecordsTest {
    private static final String TOPIC = "sensor-events";
    private static final TopicPartition TP0 = new TopicPartition(TOPIC, 0);
    /** A timestamp, a date, Kafka's record timestamp and a payload path, partitioned by device_type and the event's date. */
    private static final String COLUMNS = "device_id:string=device_id, device_type:string=device_type, "
            + "event_time:timestamp=ingested_at, kafka_time:timestamp=@timestamp, day:date=day, "
            + "power:double=payload.power, raw_payload:string=raw(payload), kafka_offset:long=@offset, "
            + "event_date:date=date(event_time)";
    private static final long GOOD_KAFKA_TIME = Instant.parse("2026-06-22T08:00:00Z").toEpochMilli();

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

    /** An envelope as JSON text; {@code ingestedAt}, {@code day} and {@code payload} are JSON tokens written as given. */
    private static String envelope(String deviceType, String ingestedAt, String day, String payload) {
        return "{\"device_id\":\"plug-1\",\"device_type\":" + deviceType + ",\"ingested_at\":" + ingestedAt
                + ",\"day\":" + day + ",\"payload\":" + payload + "}";
    }

    private static String good() {
        return envelope("\"smart_plug\"", "\"2026-06-22T09:15:30.123456+02:00\"", "\"2026-06-22\"",
                "\"{\\\"power\\\":84.5}\"");
    }

    private static SinkRecord record(long offset, String value) {
        return SinkRecords.withTimestamp(TOPIC, 0, offset, value, GOOD_KAFKA_TIME);
    }

    /** A bad record and a part of the message it must be reported with. */
    private record Poison(SinkRecord record, String problem) {
    }

    /** The bad records, by what is wrong with them; each is a good envelope with one value changed. */
    private static Map<String, Poison> poison(long firstOffset) {
        Map<String, String[]> values = new LinkedHashMap<>();
        String ts = "\"2026-06-22T09:15:30Z\"";
        String day = "\"2026-06-22\"";
        String payload = "\"{\\\"power\\\":84.5}\"";
        String type = "\"smart_plug\"";
        String range = "outside the range Delta readers can hold";
        values.put("year 10000 after UTC normalisation",
                new String[] {envelope(type, "\"9999-12-31T23:00:00-05:00\"", day, payload), range});
        values.put("year 0 after UTC normalisation",
                new String[] {envelope(type, "\"0001-01-01T00:30:00+01:00\"", day, payload), range});
        values.put("year 0 as written", new String[] {envelope(type, "\"0000-06-01T00:00:00Z\"", day, payload), range});
        values.put("a date past 9999-12-31 as days", new String[] {envelope(type, ts, "3000000", payload), range});
        values.put("a date before 0001-01-01 as days", new String[] {envelope(type, ts, "-800000", payload), range});
        values.put("a date in year 0", new String[] {envelope(type, ts, "\"0000-12-31\"", payload), range});
        values.put("epoch seconds without a unit",
                new String[] {envelope(type, "1782119730", day, payload), "timestamp.numeric.unit"});
        values.put("epoch milliseconds as text without a unit",
                new String[] {envelope(type, "\"1782119730000\"", day, payload), "timestamp.numeric.unit"});
        String through = "path 'payload.power' goes through field 'payload'";
        values.put("a payload that is a boolean", new String[] {envelope(type, ts, day, "true"), through});
        values.put("a payload that is JSON text of a boolean", new String[] {envelope(type, ts, day, "\"true\""), through});
        values.put("a payload that is a number", new String[] {envelope(type, ts, day, "42"), through});
        values.put("a payload that is a list", new String[] {envelope(type, ts, day, "\"[1,2]\""), through});
        values.put("a payload that is text, not JSON", new String[] {envelope(type, ts, day, "\"on\""),
            "field 'payload' holds text that is not JSON"});
        String unicode = "text is not valid Unicode";
        values.put("a partition value with an unpaired surrogate",
                new String[] {envelope("\"smart\\ud800plug\"", ts, day, payload), unicode});
        values.put("a raw payload with an unpaired surrogate",
                new String[] {envelope(type, ts, day, "{\"power\":1.5,\"note\":\"\\udc00\"}"), unicode});
        Map<String, Poison> out = new LinkedHashMap<>();
        long offset = firstOffset;
        for (Map.Entry<String, String[]> e : values.entrySet()) {
            out.put(e.getKey(), new Poison(record(offset++, e.getValue()[0]), e.getValue()[1]));
        }
        out.put("Kafka record timestamp in year 10000", new Poison(SinkRecords.withTimestamp(TOPIC, 0, offset,
                good(), Instant.parse("+10000-01-01T00:00:00Z").toEpochMilli()), range));
        return out;
    }

    @Test
    void recordsNoReaderCouldReadBackGoToTheDeadLetterQueue() {
        RecordingContext ctx = new RecordingContext(true);
        SinkSession s = session(ctx, Map.of("errors.tolerance", "all"));
        s.open(List.of(TP0));
        List<SinkRecord> batch = new ArrayList<>();
        batch.add(record(0, good()));
        Map<String, Poison> bad = poison(1);
        bad.values().forEach(p -> batch.add(p.record()));
        long next = 1 + bad.size();
        batch.add(record(next, good()));
        s.put(batch);

        assertEquals(Map.of(TP0, new OffsetAndMetadata(next + 1)), s.commit(Map.of()));
        List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
        assertEquals(List.of(0L, next), rows.stream().map(r -> (Long) r.get("kafka_offset")).sorted().toList());
        Map<Long, String> reported = new TreeMap<>();
        for (int i = 0; i < ctx.reported.size(); i++) {
            reported.put(ctx.reported.get(i).kafkaOffset(), ctx.reportedErrors.get(i).getMessage());
        }
        assertEquals(bad.values().stream().map(p -> p.record().kafkaOffset()).toList(), List.copyOf(reported.keySet()),
                "every poison record is reported: " + bad.keySet() + "\n" + reported);
        for (Map.Entry<String, Poison> e : bad.entrySet()) {
            String message = reported.get(e.getValue().record().kafkaOffset());
            assertTrue(message.contains(e.getValue().problem()) && message.contains("sensor-events/0@"
                    + e.getValue().record().kafkaOffset()), e.getKey() + ": " + message);
        }
    }

    @Test
    void withoutToleranceTheTaskFailsNamingTheRecordAndTheValue() {
        SinkSession s = session(new RecordingContext(true), Map.of());
        s.open(List.of(TP0));
        DataException e = assertThrows(DataException.class, () -> s.put(List.of(record(0, good()),
                record(1, envelope("\"smart_plug\"", "\"9999-12-31T23:00:00-05:00\"", "null", "null")))));
        assertTrue(e.getMessage().contains("sensor-events/0@1") && e.getMessage().contains("event_time")
                && e.getMessage().contains("9999-12-31T23:00:00-05:00"), e.getMessage());
    }

    /** What a put of {@code batch} and a commit left: the offsets, the rows by offset, the reports in order. */
    private record Outcome(Map<TopicPartition, OffsetAndMetadata> committed, Map<Long, Map<String, Object>> rows,
                           List<Long> reported, List<String> messages) {
    }

    private Outcome putAndCommit(List<SinkRecord> batch, String threads) {
        String location = sessions.dir().resolve("threads-" + threads).toString();
        RecordingContext ctx = new RecordingContext(true);
        SinkSession s = session(ctx, Map.of("errors.tolerance", "all", DeltaSinkConfig.CONVERT_THREADS, threads,
                DeltaSinkConfig.TABLE_LOCATION, location));
        s.open(List.of(TP0));
        s.put(batch);
        Map<TopicPartition, OffsetAndMetadata> committed = s.commit(Map.of());
        s.stop();
        Map<Long, Map<String, Object>> rows = new TreeMap<>();
        DeltaTableReader.readAll(StorageSettings.normalize(location)).forEach(r -> rows.put((Long) r.get("kafka_offset"), r));
        return new Outcome(committed, rows, ctx.reported.stream().map(SinkRecord::kafkaOffset).toList(),
                ctx.reportedErrors.stream().map(Throwable::getMessage).toList());
    }

    /** Poison every seventh record of {@code n}, the kinds in turn, good records between. */
    private static List<SinkRecord> poisonAmongGood(int n) {
        List<Poison> kinds = List.copyOf(poison(0).values());
        List<SinkRecord> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            SinkRecord p = kinds.get(i / 7 % kinds.size()).record();
            batch.add(i % 7 == 3 ? SinkRecords.withTimestamp(TOPIC, 0, i, p.value(), p.timestamp()) : record(i, good()));
        }
        return batch;
    }

    @Test
    void aLongPutWithPoisonAmongItGivesOnSeveralConversionThreadsWhatOneThreadGives() {
        List<SinkRecord> batch = poisonAmongGood(2500); // more than one window of converted records
        Outcome one = putAndCommit(batch, "1");
        Outcome several = putAndCommit(batch, "4");
        assertEquals(Map.of(TP0, new OffsetAndMetadata(2500)), one.committed());
        assertEquals(2500 - 2500 / 7 - (2500 % 7 > 3 ? 1 : 0), one.rows().size());
        assertEquals(2500 - one.rows().size(), one.reported().size());
        assertEquals(one.reported().stream().sorted().toList(), one.reported(), "reported in record order");
        assertEquals(one, several);
    }

    @Test
    void withoutToleranceAPoisonDeepInALongPutFailsItAsOnOneThread() {
        List<SinkRecord> batch = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            batch.add(record(i, i == 250 ? envelope("\"smart_plug\"", "\"9999-12-31T23:00:00-05:00\"", "null", "null")
                    : good()));
        }
        List<String> messages = new ArrayList<>();
        for (String threads : List.of("1", "2", "3")) {
            SinkSession s = session(new RecordingContext(true), Map.of(DeltaSinkConfig.CONVERT_THREADS, threads,
                    DeltaSinkConfig.TABLE_LOCATION, sessions.dir().resolve("none-" + threads).toString()));
            s.open(List.of(TP0));
            messages.add(assertThrows(DataException.class, () -> s.put(batch)).getMessage());
            s.stop();
        }
        assertTrue(messages.get(0).contains("sensor-events/0@250") && messages.get(0).contains("event_time"),
                messages.get(0));
        assertEquals(List.of(messages.get(0), messages.get(0), messages.get(0)), messages);
    }
}
