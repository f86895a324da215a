package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.testing.SinkRecords;

/**
 * A number in a timestamp column means nothing without its unit: the unit comes from the
 * column's type ({@code timestamp(seconds|millis|micros|nanos)}) or the connector's
 * {@code timestamp.numeric.unit}; without one, numbers and numeric text are bad records.
 */
class TimestampUnitTest {
    /** 2025-06-22T09:16:00.123456789Z in each unit. */
    private static final long SECONDS = 1_750_583_760L;
    private static final long MICROS = 1_750_583_760_123_456L;
    private static final String UNIT_HINT = "set timestamp.numeric.unit (seconds, millis, micros or nanos) for the "
            + "connector, or give the column its unit, e.g. v:timestamp(millis)=v";

    private static Object convert(String type, Object value) {
        return convert(type, EpochUnit.NONE, value);
    }

    private static Object convert(String type, EpochUnit connectorDefault, Object value) {
        return converter(type, connectorDefault).convert(SinkRecords.of("t", 0, 0L, map(value)))[0];
    }

    private static Object convertJson(String type, String jsonValue) {
        return converter(type, EpochUnit.NONE).convert(SinkRecords.of("t", 0, 0L, "{\"v\":" + jsonValue + "}"))[0];
    }

    private static MappingConverter converter(String type, EpochUnit connectorDefault) {
        return new MappingConverter(ColumnMapping.parse("v:" + type + "=v"), Clock.systemUTC(), connectorDefault);
    }

    private static String error(String type, EpochUnit connectorDefault, SinkRecord record) {
        return assertThrows(RecordConversionException.class, () -> converter(type, connectorDefault).convert(record),
                type + " <- " + record.value()).getMessage();
    }

    private static String error(String type, Object value) {
        return error(type, EpochUnit.NONE, SinkRecords.of("t", 0, 4L, map(value)));
    }

    private static Map<String, Object> map(Object value) {
        Map<String, Object> m = new HashMap<>();
        m.put("v", value);
        return m;
    }

    @Test
    void withoutAUnitEveryKindOfNumberIsABadRecordNamingTheSettings() {
        for (Object number : List.of(1_750_583_760, SECONDS * 1000, (short) 5, (byte) 1, 1.75e9, 1.5f,
                new BigDecimal("1750583760.5"), BigInteger.valueOf(SECONDS), "1750583760", " 1750583760000 ", "+17",
                "-5", "1750583760.25", "1e9", "0")) {
            String m = error("timestamp", number);
            assertTrue(m.startsWith("Cannot convert record t/0@4, column 'v': field 'v': "), m);
            assertTrue(m.contains("a number in a timestamp column needs its unit: " + UNIT_HINT), m);
        }
        for (String json : List.of("1750583760", "1750583760123", "1750583760.5", "-1", "12345678901234567890123")) {
            String m = error("timestamp", EpochUnit.NONE, SinkRecords.of("t", 0, 4L, "{\"v\":" + json + "}"));
            assertTrue(m.contains(UNIT_HINT), m);
        }
        // a header or a key holding a number needs a unit as well
        MappingConverter metadata = new MappingConverter(ColumnMapping.parse("h:timestamp=@header.sent, k:timestamp=@key"),
                Clock.systemUTC());
        String header = assertThrows(RecordConversionException.class, () -> metadata.convert(
                SinkRecords.builder("t", 0, 4L).value("{}").header("sent", SECONDS).build())).getMessage();
        assertTrue(header.contains("column 'h': @header.sent: a number in a timestamp column needs its unit")
                && header.contains("e.g. h:timestamp(millis)=@header.sent"), header);
        String key = assertThrows(RecordConversionException.class, () -> metadata.convert(
                SinkRecords.of("t", 0, 4L, "1750583760", "{}"))).getMessage();
        assertTrue(key.contains("column 'k': @key: a number in a timestamp column needs its unit"), key);
    }

    @Test
    void theColumnsUnitScalesIntegersAndNumericText() {
        assertEquals(SECONDS * 1_000_000, convert("timestamp(seconds)", SECONDS));
        assertEquals(SECONDS * 1_000_000, convert("timestamp(seconds)", (int) SECONDS));
        assertEquals(SECONDS * 1_000_000, convert("timestamp(seconds)", "1750583760"));
        assertEquals(SECONDS * 1_000_000, convert("timestamp(seconds)", " +1750583760 "));
        assertEquals(SECONDS * 1_000_000, convertJson("timestamp(seconds)", "1750583760"));
        assertEquals(SECONDS * 1_000_000, convert("timestamp(seconds)", BigInteger.valueOf(SECONDS)));
        assertEquals(1_750_583_760_123_000L, convert("timestamp(millis)", 1_750_583_760_123L));
        assertEquals(1_750_583_760_123_000L, convert("timestamp(millis)", "1750583760123"));
        assertEquals(MICROS, convert("timestamp(micros)", MICROS));
        assertEquals(MICROS, convert("timestamp(nanos)", 1_750_583_760_123_456_789L));
        assertEquals(MICROS, convert("timestamp(nanos)", "1750583760123456789"));
        assertEquals(-1_000_000L, convert("timestamp(seconds)", -1));
        assertEquals(-1L, convert("timestamp(nanos)", -1), "nanos truncate towards the earlier microsecond");
        assertEquals(-1L, convert("timestamp(nanos)", -999));
        assertEquals(-1L, convert("timestamp(nanos)", -1000));
        assertEquals(0L, convert("timestamp(nanos)", 999));
    }

    @Test
    void fractionsAreExactToTheMicrosecondAndTruncatedBelow() {
        assertEquals(1_500_000L, convert("timestamp(seconds)", 1.5));
        assertEquals(1_500_000L, convert("timestamp(seconds)", 1.5f));
        assertEquals(1_500_000L, convert("timestamp(seconds)", "1.5"));
        assertEquals(1_500_000L, convertJson("timestamp(seconds)", "1.5"));
        assertEquals(1_750_583_760_123_456L, convertJson("timestamp(seconds)", "1750583760.123456789"));
        assertEquals(1_750_583_760_123_456L, convert("timestamp(seconds)", new BigDecimal("1750583760.1234569")));
        assertEquals(1_750_583_760_100_000L, convert("timestamp(seconds)", 1_750_583_760.1));
        assertEquals(2_500L, convert("timestamp(millis)", 2.5));
        assertEquals(1L, convert("timestamp(micros)", 1.9));
        assertEquals(-2L, convert("timestamp(micros)", -1.5));
        assertEquals(SECONDS * 1_000_000, convert("timestamp(seconds)", "1.75058376e9"));
    }

    @Test
    void aNumberPastTheRangeOrOverflowingIsABadRecord() {
        for (Object huge : List.of(Long.MAX_VALUE, Long.MIN_VALUE, 1e300, -1e300, new BigDecimal("1e30"),
                new BigInteger("123456789012345678901234567890"), "99999999999999999999999")) {
            String m = error("timestamp(seconds)", huge);
            assertTrue(m.contains("outside the range Delta readers can hold") || m.contains("out of range"), m);
        }
        String m = error("timestamp(seconds)", 253_402_300_800L); // 10000-01-01T00:00:00Z
        assertTrue(m.contains("timestamp 253402300800 seconds since 1970-01-01T00:00:00Z (+10000-01-01T00:00:00Z) "
                + "is outside the range"), m);
        assertTrue(error("timestamp(millis)", Double.NaN).contains("cannot convert NaN to timestamp"));
        assertTrue(error("timestamp(millis)", "NaN").contains("not an ISO-8601 timestamp"));
    }

    @Test
    void theConnectorDefaultAppliesToColumnsWithoutTheirOwnUnit() {
        assertEquals(SECONDS * 1_000_000, convert("timestamp", EpochUnit.SECONDS, SECONDS));
        assertEquals(SECONDS * 1_000, convert("timestamp", EpochUnit.MILLIS, SECONDS));
        assertEquals(SECONDS, convert("timestamp", EpochUnit.MICROS, SECONDS));
        assertEquals(SECONDS / 1000, convert("timestamp", EpochUnit.NANOS, SECONDS));
        assertEquals(SECONDS * 1_000_000, convert("timestamp(seconds)", EpochUnit.MILLIS, SECONDS),
                "the column's own unit wins");
        Object[] row = new MappingConverter(ColumnMapping.parse("a:timestamp=a, b:timestamp(micros)=b, c:timestamp=c"),
                Clock.systemUTC(), EpochUnit.MILLIS).convert(SinkRecords.of("t", 0, 0L,
                Map.of("a", 1000, "b", 1000, "c", "1970-01-01T00:00:01Z")));
        assertEquals(List.of(1_000_000L, 1000L, 1_000_000L), List.of(row));
    }

    @Test
    void connectTimestampsJavaTimeAndIsoTextIgnoreTheUnit() {
        java.util.Date date = new java.util.Date(1_750_583_760_123L);
        for (EpochUnit unit : EpochUnit.values()) {
            assertEquals(1_750_583_760_123_000L, convert("timestamp", unit, date), unit.toString());
            assertEquals(MICROS, convert("timestamp", unit, Instant.ofEpochSecond(SECONDS, 123_456_789)));
            assertEquals(MICROS, convert("timestamp", unit, "2025-06-22T09:16:00.123456Z"));
        }
        assertEquals(MICROS, convert("timestamp(seconds)", "2025-06-22T11:16:00.123456+02:00"));
        Schema schema = SchemaBuilder.struct().field("at", Timestamp.SCHEMA).build();
        Object[] row = new MappingConverter(ColumnMapping.parse("at:timestamp=at"), Clock.systemUTC())
                .convert(SinkRecords.of("t", 0, 0L, new Struct(schema).put("at", date)));
        assertEquals(1_750_583_760_123_000L, row[0]);
        // Kafka's record timestamp is epoch milliseconds by definition
        assertEquals(1_750_583_760_123_000L, new MappingConverter(ColumnMapping.parse("ts:timestamp=@timestamp"),
                Clock.systemUTC()).convert(SinkRecords.withTimestamp("t", 0, 0L, "{}", 1_750_583_760_123L))[0]);
    }

    @Test
    void dateColumnsKeepIntegersAsDaysWhateverTheUnit() {
        int day = (int) LocalDate.of(2026, 6, 22).toEpochDay();
        for (EpochUnit unit : EpochUnit.values()) {
            assertEquals(day, convert("date", unit, day));
            assertEquals(day, convert("date", unit, Integer.toString(day)));
        }
    }

    @Test
    void theUnitIsPartOfTheColumnsTypeInTheGrammar() {
        ColumnMapping m = ColumnMapping.parse("a:timestamp(seconds)=x, b: Timestamp ( Millis ) =y, c:timestamp(micros)=z, "
                + "d:timestamp(nanos)=@header.sent, e:timestamp=w", Set.of("a"));
        assertEquals(List.of(Column.of("a", ColumnType.TIMESTAMP, false), Column.of("b", ColumnType.TIMESTAMP, true),
                Column.of("c", ColumnType.TIMESTAMP, true), Column.of("d", ColumnType.TIMESTAMP, true),
                Column.of("e", ColumnType.TIMESTAMP, true)), m.schema().columns());
        assertEquals("a:timestamp(seconds)=x, b:timestamp(millis)=y, c:timestamp(micros)=z, d:timestamp(nanos)=@header.sent, "
                + "e:timestamp=w", m.toString());
        assertEquals(m, ColumnMapping.parse(m.toString(), Set.of("a")));
        assertTrue(!m.equals(ColumnMapping.parse("a:timestamp(millis)=x, b:timestamp(millis)=y, c:timestamp(micros)=z, "
                + "d:timestamp(nanos)=@header.sent, e:timestamp=w", Set.of("a"))), "the unit is part of the mapping");

        for (String bad : List.of("t:timestamp(weeks)=x", "t:timestamp()=x", "t:timestamp(none)=x", "t:timestamp(ms)=x")) {
            String e = assertThrows(ConfigException.class, () -> ColumnMapping.parse(bad)).getMessage();
            assertTrue(e.contains("Invalid value " + bad + " for configuration columns")
                    && e.contains("seconds, millis, micros or nanos"), e);
        }
        String e = assertThrows(ConfigException.class, () -> ColumnMapping.parse("t:long(seconds)=x")).getMessage();
        assertTrue(e.contains("unknown column type 'long(seconds)'"), e);
    }

    @Test
    void theConnectorSettingNamesItsUnits() {
        assertEquals(EpochUnit.NONE, EpochUnit.parse("none"));
        assertEquals(EpochUnit.SECONDS, EpochUnit.parse(" Seconds "));
        assertEquals(EpochUnit.NANOS, EpochUnit.parse("nanos"));
        assertThrows(IllegalArgumentException.class, () -> EpochUnit.parse("ms"));
        assertEquals("millis", EpochUnit.MILLIS.toString());
    }
}
