package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/** Every kind of bad input gives its own problem text plus the record's coordinates, column and value. */
class ConversionErrorTest {
    private final MappingConverter converter = new MappingConverter(
            ColumnMapping.parse(SeedMappingTest.SEED_COLUMNS, SeedMappingTest.SEED_NOT_NULL),
            Clock.fixed(SeedMappingTest.NOW, ZoneOffset.UTC));

    private RecordConversionException fail(Object value) {
        return assertThrows(RecordConversionException.class,
                () -> converter.convert(SinkRecords.of("sensors", 3, 42L, value)));
    }

    private static void assertMessage(RecordConversionException e, String column, String problem, String valueExcerpt) {
        String m = e.getMessage();
        assertTrue(m.startsWith("Cannot convert record sensors/3@42"), m);
        assertTrue(m.contains("column '" + column + "'"), m);
        assertEquals(column, e.column());
        assertTrue(m.contains(problem), m);
        assertTrue(m.contains("value: '" + valueExcerpt + "'"), m);
    }

    private static String envelope(String payloadJson) {
        Map<String, Object> m = new LinkedHashMap<>(SensorEvents.smartPlug(1).map());
        m.put("payload", payloadJson);
        return new Json().write(m, null);
    }

    @Test
    void valueThatIsNotJson() {
        RecordConversionException e = fail("device=plug-1 power=84.3");
        assertMessage(e, "device_id", "value is not valid JSON", "device=plug-1 power=84.3");

        RecordConversionException bytes = fail("{\"device_id\": ".getBytes(StandardCharsets.UTF_8));
        assertMessage(bytes, "device_id", "value is not valid JSON", "{\"device_id\": ");

        RecordConversionException trailing = fail("{\"device_id\":\"a\"} extra");
        assertMessage(trailing, "device_id", "value is not valid JSON", "{\"device_id\":\"a\"} extra");
    }

    @Test
    void fieldHoldingTextThatIsNotJson() {
        RecordConversionException e = fail(envelope("power=84.3;state=ON"));
        assertMessage(e, "linkquality", "field 'payload' holds text that is not JSON", "power=84.3;state=ON");
    }

    @Test
    void valueOfTheWrongType() {
        RecordConversionException text = fail(envelope("{\"linkquality\":\"abc\"}"));
        assertMessage(text, "linkquality", "field 'payload.linkquality': cannot convert text to int", "abc");

        RecordConversionException fraction = fail(envelope("{\"battery\":84.3}"));
        assertMessage(fraction, "battery", "cannot convert 84.3 to int: it has a fraction", "84.3");

        RecordConversionException bool = fail(envelope("{\"contact\":\"open\"}"));
        assertMessage(bool, "contact", "cannot convert text to boolean", "open");

        RecordConversionException object = fail(envelope("{\"power\":{\"w\":1}}"));
        assertMessage(object, "power", "cannot convert JSON object to double", "{\"w\":1}");

        RecordConversionException time = fail(envelope("{}").replace("2026-06-22T08:00:10.123457+00:00", "yesterday"));
        assertMessage(time, "event_time", "field 'ingested_at': text is not an ISO-8601 timestamp", "yesterday");
    }

    @Test
    void requiredFieldMissingOrNull() {
        String expected = "Cannot convert record sensors/3@42, column 'device_id': required field 'device_id' is missing";
        RecordConversionException missing = fail("{\"device_type\":\"smart_plug\",\"payload\":\"{}\"}");
        assertEquals(expected, missing.getMessage());
        assertEquals("device_id", missing.column());

        RecordConversionException jsonNull = fail("{\"device_id\":null,\"device_type\":\"t\"}");
        assertEquals(expected, jsonNull.getMessage());

        RecordConversionException mapNull = fail(new LinkedHashMap<>(Map.of("device_type", "t")));
        assertEquals(expected, mapNull.getMessage());

        RecordConversionException nested = assertThrows(RecordConversionException.class, () -> new MappingConverter(
                ColumnMapping.parse("q:int=payload.linkquality", java.util.Set.of("q")), Clock.systemUTC())
                .convert(SinkRecords.of("sensors", 3, 42L, envelope("{\"power\":1.5}"))));
        assertEquals("Cannot convert record sensors/3@42, column 'q': required field 'payload.linkquality' is missing",
                nested.getMessage());
    }

    @Test
    void longBadValueIsShortened() {
        String big = "x".repeat(10 * 1024);
        RecordConversionException e = fail(big);
        String m = e.getMessage();
        assertTrue(m.contains("value is not valid JSON"), m);
        assertTrue(m.contains("'" + "x".repeat(RecordConversionException.EXCERPT_CHARS) + "...' (10240 chars)"), m);
        assertTrue(m.length() < 600, "message length " + m.length());

        RecordConversionException field = fail(envelope("{\"plug\":" + big));
        assertTrue(field.getMessage().contains("(10248 chars)"), field.getMessage());
        assertTrue(field.getMessage().length() < 600, field.getMessage());
    }

    @Test
    void nullValueIsRejected() {
        RecordConversionException e = assertThrows(RecordConversionException.class,
                () -> converter.convert(SinkRecords.of("sensors", 3, 42L, null)));
        assertTrue(e.getMessage().startsWith("Cannot convert record sensors/3@42: value is null"), e.getMessage());
        assertNull(e.column());
    }

    @Test
    void requiredDerivedColumnIsNullWhenItsSourceIsMissing() {
        MappingConverter c = new MappingConverter(ColumnMapping.parse(
                "t:timestamp=ts, d:date=date(t)", java.util.Set.of("d")), Clock.systemUTC());
        RecordConversionException e = assertThrows(RecordConversionException.class,
                () -> c.convert(SinkRecords.of("sensors", 3, 42L, Map.of("other", 1))));
        assertEquals("Cannot convert record sensors/3@42, column 'd': required column is null because column 't' is null",
                e.getMessage());
    }
}
