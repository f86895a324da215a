package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import io.deltasink.testing.SinkRecords;

/**
 * Every timestamp and date, whatever its source, lies within 0001-01-01T00:00:00Z ..
 * 9999-12-31T23:59:59.999999Z after normalisation to UTC, or the record is bad: Delta readers
 * cannot hold anything else (Kernel fails the scan of the whole table on such a partition value).
 */
class TimestampRangeTest {
    static final long MIN_MICROS = micros("0001-01-01T00:00:00Z");
    static final long MAX_MICROS = micros("9999-12-31T23:59:59.999999Z");
    static final int MIN_DAY = (int) LocalDate.of(1, 1, 1).toEpochDay();
    static final int MAX_DAY = (int) LocalDate.of(9999, 12, 31).toEpochDay();
    private static final String RANGE = "0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z";

    static long micros(String instant) {
        Instant i = Instant.parse(instant);
        return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1000);
    }

    private static Object[] convert(String columns, SinkRecord record, Clock clock) {
        return new MappingConverter(ColumnMapping.parse(columns), clock).convert(record);
    }

    private static Object convert(String type, Object value) {
        return convert("v:" + type + "=v", SinkRecords.of("t", 0, 0L, map(value)), Clock.systemUTC())[0];
    }

    private static String error(String columns, SinkRecord record, Clock clock) {
        RecordConversionException e = assertThrows(RecordConversionException.class,
                () -> convert(columns, record, clock), columns + " <- " + record);
        return e.getMessage();
    }

    private static String error(String type, Object value) {
        String m = error("v:" + type + "=v", SinkRecords.of("t", 0, 7L, map(value)), Clock.systemUTC());
        assertTrue(m.startsWith("Cannot convert record t/0@7, column 'v': field 'v': "), m);
        return m;
    }

    private static Map<String, Object> map(Object value) {
        Map<String, Object> m = new HashMap<>();
        m.put("v", value);
        return m;
    }

    @Test
    void isoTextAtTheEdgesIsKeptAndOneStepOutsideIsBad() {
        assertEquals(MIN_MICROS, convert("timestamp", "0001-01-01T00:00:00Z"));
        assertEquals(MIN_MICROS, convert("timestamp", "0001-01-01T01:00:00+01:00"));
        assertEquals(MIN_MICROS, convert("timestamp", "0001-01-01"));
        assertEquals(MAX_MICROS, convert("timestamp", "9999-12-31T23:59:59.999999Z"));
        assertEquals(MAX_MICROS, convert("timestamp", "9999-12-31T23:59:59.999999999Z"));
        assertEquals(MAX_MICROS, convert("timestamp", "9999-12-31T18:59:59.999999-05:00"));
        for (String bad : List.of("9999-12-31T23:00:00-05:00", "9999-12-31T23:59:59.999999-00:01",
                "0001-01-01T00:30:00+01:00", "0001-01-01T00:00:00+00:01", "0000-06-01T00:00:00Z", "0000-01-01")) {
            String m = error("timestamp", bad);
            assertTrue(m.contains("outside the range Delta readers can hold (" + RANGE + ")"), m);
            assertTrue(m.contains("value: '" + bad + "'"), m);
        }
        assertTrue(error("timestamp", "9999-12-31T23:00:00-05:00").contains("timestamp +10000-01-01T04:00:00Z"));
        assertTrue(error("timestamp", "0001-01-01T00:30:00+01:00").contains("timestamp 0000-12-31T23:30:00Z"));
    }

    @Test
    void javaTimeValuesAndConnectTimestampsAreCheckedToo() {
        assertEquals(MAX_MICROS, convert("timestamp", Instant.parse("9999-12-31T23:59:59.999999999Z")));
        for (Object bad : List.of(Instant.parse("+10000-01-01T00:00:00Z"), Instant.parse("0000-12-31T23:59:59Z"),
                Instant.MAX, Instant.MIN,
                OffsetDateTime.parse("9999-12-31T23:00:00-05:00"),
                ZonedDateTime.of(LocalDateTime.parse("0001-01-01T00:30:00"), ZoneId.of("+01:00")),
                LocalDateTime.parse("+10000-01-01T00:00:00"),
                LocalDate.of(0, 1, 1), LocalDate.of(-5, 1, 1),
                new java.util.Date(Instant.parse("+10000-01-01T00:00:00Z").toEpochMilli()),
                new java.util.Date(Long.MIN_VALUE), new java.util.Date(Long.MAX_VALUE))) {
            String m = error("timestamp", bad);
            assertTrue(m.contains(RANGE), m);
        }
        Schema schema = SchemaBuilder.struct().field("at", Timestamp.builder().build()).build();
        Struct struct = new Struct(schema).put("at", new java.util.Date(micros("+12345-01-01T00:00:00Z") / 1000));
        String m = error("at:timestamp=at", SinkRecords.of("t", 0, 3L, struct), Clock.systemUTC());
        assertTrue(m.contains("column 'at'") && m.contains(RANGE), m);
    }

    @Test
    void datesOfEverySourceAreChecked() {
        assertEquals(MIN_DAY, convert("date", "0001-01-01"));
        assertEquals(MAX_DAY, convert("date", "9999-12-31"));
        assertEquals(MAX_DAY, convert("date", MAX_DAY));
        assertEquals(MIN_DAY, convert("date", Integer.toString(MIN_DAY)));
        assertEquals(MAX_DAY, convert("date", LocalDate.of(9999, 12, 31)));
        String dateRange = "0001-01-01 to 9999-12-31";
        for (Object bad : List.of("0000-12-31", "9999-12-31T23:00:00-05:00", MAX_DAY + 1, (long) MIN_DAY - 1,
                Integer.toString(MAX_DAY + 1), Integer.MAX_VALUE, Long.MIN_VALUE,
                LocalDate.of(10000, 1, 1), LocalDate.MIN, Instant.MAX, Instant.parse("0000-06-01T00:00:00Z"),
                new java.util.Date(Long.MAX_VALUE), new java.util.Date(Long.MIN_VALUE),
                // days past the int range used to wrap around silently into a valid date
                new java.util.Date(86_400_000L * (1L << 32) + 86_400_000L))) {
            String m = error("date", bad);
            assertTrue(m.contains("outside the range Delta readers can hold (" + dateRange + ")"), m);
        }
    }

    @Test
    void recordTimestampAndProcessingTimeAreChecked() {
        String columns = "ts:timestamp=@timestamp, day:date=@timestamp";
        long future = Instant.parse("+10000-01-01T00:00:00Z").toEpochMilli();
        String m = error(columns, SinkRecords.withTimestamp("t", 1, 9L, "{}", future), Clock.systemUTC());
        assertTrue(m.startsWith("Cannot convert record t/1@9, column 'ts': @timestamp: timestamp +10000-01-01T00:00:00Z"), m);
        assertTrue(m.contains(RANGE), m);
        assertTrue(error("day:date=@timestamp", SinkRecords.withTimestamp("t", 1, 9L, "{}", future), Clock.systemUTC())
                .contains("0001-01-01 to 9999-12-31"));
        // Kafka's record timestamp as epoch milliseconds stays what it is in a long column
        assertEquals(future, convert("ms:long=@timestamp", SinkRecords.withTimestamp("t", 1, 9L, "{}", future),
                Clock.systemUTC())[0]);

        Clock farFuture = Clock.fixed(Instant.parse("+10000-01-01T00:00:00Z"), ZoneOffset.UTC);
        assertTrue(error("now:timestamp=@now", SinkRecords.of("t", 0, 1L, "{}"), farFuture).contains(RANGE));
    }

    @Test
    void theDateOfAValidTimestampIsValid() {
        Object[] row = convert("t:timestamp=ts, d:date=date(t), s:string=date(t)",
                SinkRecords.of("t", 0, 0L, Map.of("ts", "9999-12-31T18:59:59.999999-05:00")), Clock.systemUTC());
        assertArrayEquals(new Object[] {MAX_MICROS, MAX_DAY, "9999-12-31"}, row);
        Object[] first = convert("t:timestamp=ts, d:date=date(t), s:string=date(t)",
                SinkRecords.of("t", 0, 0L, Map.of("ts", "0001-01-01T01:00:00+01:00")), Clock.systemUTC());
        assertArrayEquals(new Object[] {MIN_MICROS, MIN_DAY, "0001-01-01"}, first);
    }
}
