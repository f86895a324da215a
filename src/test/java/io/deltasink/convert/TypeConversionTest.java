package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.deltasink.testing.SinkRecords;

/** The type rules, through the converter: a one-column mapping {@code v:<type>=v} over {"v": value}. */
class TypeConversionTest {

    private static Object convert(String type, Object value) {
        return converter(type).convert(SinkRecords.of("t", 0, 0L, map(value)))[0];
    }

    /** The same value read from JSON text instead of a Map. */
    private static Object convertJson(String type, String jsonValue) {
        return converter(type).convert(SinkRecords.of("t", 0, 0L, "{\"v\":" + jsonValue + "}"))[0];
    }

    private static String error(String type, Object value) {
        RecordConversionException e = assertThrows(RecordConversionException.class,
                () -> converter(type).convert(SinkRecords.of("t", 0, 0L, map(value))), type + " <- " + value);
        assertTrue(e.getMessage().contains("column 'v': field 'v': "), e.getMessage());
        return e.getMessage();
    }

    private static String jsonError(String type, String jsonValue) {
        RecordConversionException e = assertThrows(RecordConversionException.class,
                () -> converter(type).convert(SinkRecords.of("t", 0, 0L, "{\"v\":" + jsonValue + "}")), type + " <- " + jsonValue);
        return e.getMessage();
    }

    private static MappingConverter converter(String type) {
        return new MappingConverter(ColumnMapping.parse("v:" + type + "=v"), Clock.systemUTC());
    }

    private static Map<String, Object> map(Object value) {
        Map<String, Object> m = new HashMap<>();
        m.put("v", value);
        return m;
    }

    @Test
    void stringTakesAnyScalarAsTextAndContainersAsJson() {
        assertEquals("abc", convert("string", "abc"));
        assertEquals("42", convert("string", 42L));
        assertEquals("42", convert("string", 42));
        assertEquals("84.3", convert("string", 84.3));
        assertEquals("true", convert("string", true));
        assertEquals("42", convertJson("string", "42"));
        assertEquals("84.3", convertJson("string", "84.3"));
        assertEquals("84.30", convertJson("string", "84.30"));
        assertEquals("false", convertJson("string", "false"));
        assertEquals("{\"a\":[1,2.5,\"x\",null]}", convertJson("string", "{ \"a\" : [1, 2.5, \"x\", null] }"));
        assertEquals("{\"a\":1}", convert("string", Map.of("a", 1)));
        assertEquals("[1,\"b\"]", convert("string", List.of(1, "b")));
        assertEquals("héllo", convert("string", "héllo".getBytes(StandardCharsets.UTF_8)));
        assertEquals(null, convertJson("string", "null"));
    }

    @Test
    void integralTypesAcceptWholeNumbersInRange() {
        assertEquals(255, convert("int", 255L));
        assertEquals(255, convert("int", 255.0));
        assertEquals(255, convertJson("int", "255.0"));
        assertEquals(255, convert("int", " 255 "));
        assertEquals(255, convert("int", "255.00"));
        assertEquals(-7L, convert("long", "-7"));
        assertEquals(Long.MAX_VALUE, convertJson("long", Long.toString(Long.MAX_VALUE)));
        assertEquals((short) 300, convert("short", 300));
        assertEquals((byte) -128, convert("byte", -128));
        assertEquals(1000L, convertJson("long", "1e3"));
        assertEquals(Integer.class, convert("int", (byte) 1).getClass());
        assertEquals(Short.class, convert("short", 1).getClass());
        assertEquals(Byte.class, convert("byte", 1).getClass());
    }

    @Test
    void integralTypesRejectFractionsTextBooleansObjectsAndOutOfRange() {
        assertTrue(error("int", "abc").contains("cannot convert text to int: not a number; value: 'abc'"));
        assertTrue(error("int", 84.3).contains("cannot convert 84.3 to int: it has a fraction; value: '84.3'"));
        assertTrue(jsonError("int", "84.3").contains("cannot convert 84.3 to int: it has a fraction"));
        assertTrue(error("int", true).contains("cannot convert boolean to int"));
        assertTrue(jsonError("int", "{\"a\":1}").contains("cannot convert JSON object to int; value: '{\"a\":1}'"));
        assertTrue(error("int", 2_147_483_648L).contains("number is out of range for int"));
        assertTrue(error("byte", 128).contains("number is out of range for byte"));
        assertTrue(error("short", "40000").contains("out of range for short"));
        assertTrue(jsonError("long", "9223372036854775808").contains("out of range for long"));
        assertTrue(error("long", new BigInteger("99999999999999999999")).contains("out of range for long"));
        assertTrue(error("long", 1e30).contains("out of range for long"));
        assertTrue(error("int", "0x10").contains("not a number"));
    }

    @Test
    void floatingTypesAcceptNumbersAndNumericText() {
        assertEquals(84.3, convert("double", 84.3));
        assertEquals(84.3, convertJson("double", "84.3"));
        assertEquals(7.0, convert("double", 7L));
        assertEquals(1.5, convert("double", " 1.5 "));
        assertEquals(1e-7, convert("double", "1e-7"));
        assertEquals(Double.NaN, convert("double", "NaN"));
        assertEquals(0.1, convert("double", new BigDecimal("0.1")));
        assertEquals(2.5f, convert("float", 2.5));
        assertEquals(2.5f, convertJson("float", "2.5"));
        assertEquals(Float.class, convert("float", 1).getClass());
        assertTrue(error("double", "84,3").contains("cannot convert text to double: not a number"));
        assertTrue(error("double", "1.5d").contains("not a number"));
        assertTrue(error("double", false).contains("cannot convert boolean to double"));
        assertTrue(error("float", 1e300).contains("out of range for float"));
        assertTrue(jsonError("double", "[1]").contains("cannot convert JSON array to double"));
    }

    @Test
    void booleanAcceptsBooleansAndTrueFalseText() {
        assertEquals(true, convert("boolean", true));
        assertEquals(false, convertJson("boolean", "false"));
        assertEquals(true, convert("boolean", "TRUE"));
        assertEquals(false, convert("boolean", "False"));
        assertTrue(error("boolean", "yes").contains("cannot convert text to boolean: expected true or false"));
        assertTrue(error("boolean", 1).contains("cannot convert number to boolean"));
    }

    @Test
    void timestampParsesIsoTextExactlyToMicros() {
        long base = SeedMappingTest.micros("2026-06-22T09:15:30.123456Z");
        assertEquals(base, convert("timestamp", "2026-06-22T09:15:30.123456+00:00"));
        assertEquals(base, convert("timestamp", "2026-06-22T11:15:30.123456+02:00"));
        assertEquals(base, convert("timestamp", "2026-06-22T09:15:30.123456Z"));
        assertEquals(base, convert("timestamp", "2026-06-22T09:15:30.123456"));
        assertEquals(base, convert("timestamp", "2026-06-22 09:15:30.123456"));
        assertEquals(base, convert("timestamp", "2026-06-22T11:15:30.123456789+0200"));
        assertEquals(base, convert("timestamp", "2026-06-22T04:15:30.123456-05"));
        assertEquals(base - 123_456, convert("timestamp", "2026-06-22T09:15:30Z"));
        assertEquals(base - 30_123_456, convert("timestamp", "2026-06-22T09:15Z"));
        assertEquals(base + 400_000 - 123_456, convert("timestamp", "2026-06-22T09:15:30.4Z"));
        assertEquals(SeedMappingTest.micros("2026-06-22T00:00:00Z"), convert("timestamp", "2026-06-22"));
        assertEquals(SeedMappingTest.micros("1969-12-31T23:59:59.999999Z"), convert("timestamp", "1969-12-31T23:59:59.999999Z"));
    }

    @Test
    void timestampTakesDatesInstantsAndNumbersInTheColumnsUnit() {
        assertEquals(1_750_583_760_000_000L, convert("timestamp(millis)", 1_750_583_760_000L));
        assertEquals(1_750_583_760_000_000L, convertJson("timestamp(millis)", "1750583760000"));
        assertEquals(1_750_583_760_000_500L, convert("timestamp(millis)", 1_750_583_760_000.5));
        assertEquals(1_750_583_760_000_000L, convert("timestamp(millis)", "1750583760000"));
        assertTrue(error("timestamp", 1_750_583_760_000L).contains("needs its unit"));
        assertEquals(1_750_583_760_123_000L, convert("timestamp", new java.util.Date(1_750_583_760_123L)));
        assertEquals(1_750_583_760_123_456L, convert("timestamp", Instant.ofEpochSecond(1_750_583_760L, 123_456_789)));
    }

    @Test
    void timestampRejectsBadText() {
        for (String bad : List.of("yesterday", "2026-06-22T25:00:00Z", "2026-02-30", "2026-06-22T09:15:30+2",
                "2026-06-22T09:15:30.1234567890Z", "22/06/2026", "2026-06-22T09:15:30Z[UTC]", "2026-06-22X09:15")) {
            String m = error("timestamp", bad);
            assertTrue(m.contains("value: '" + bad + "'"), m);
        }
        assertTrue(error("timestamp", "yesterday").contains("text is not an ISO-8601 timestamp"));
        assertTrue(error("timestamp", "2026-02-30").contains("not a valid date"));
        assertTrue(error("timestamp", true).contains("cannot convert boolean to timestamp"));
    }

    @Test
    void dateTakesDatesTimestampsAndEpochDays() {
        int day = (int) LocalDate.of(2026, 6, 22).toEpochDay();
        assertEquals(day, convert("date", "2026-06-22"));
        assertEquals(day, convert("date", "2026-06-22T23:59:59.999999Z"));
        assertEquals(day + 1, convert("date", "2026-06-22T23:30:00-02:00"));
        assertEquals(day, convert("date", new java.util.Date(LocalDate.of(2026, 6, 22).toEpochDay() * 86_400_000L + 5)));
        assertEquals(day, convert("date", day));
        assertEquals(day, convert("date", (long) day));
        assertEquals(day, convertJson("date", Integer.toString(day)));
        assertEquals(-1, convert("date", "1969-12-31T12:00:00Z"));
        assertTrue(error("date", "June 22").contains("not an ISO-8601 timestamp"));
        assertTrue(error("date", 1.5).contains("it has a fraction"));
    }

    @Test
    void decimalRescalesHalfUpAndChecksPrecision() {
        assertEquals(new BigDecimal("84.30"), convert("decimal(10,2)", 84.3));
        assertEquals(new BigDecimal("84.30"), convertJson("decimal(10,2)", "84.3"));
        assertEquals(new BigDecimal("0.13"), convert("decimal(10,2)", "0.125"));
        assertEquals(new BigDecimal("-0.13"), convert("decimal(10,2)", new BigDecimal("-0.125")));
        assertEquals(new BigDecimal("12.00"), convert("decimal(4,2)", 12));
        assertEquals(new BigDecimal("12345678901234567.89"), convertJson("decimal(19,2)", "12345678901234567.891"));
        assertEquals(new BigDecimal("5"), convert("decimal(3)", "4.5"));
        assertTrue(error("decimal(4,2)", 123).contains("number needs 5 digits at scale 2; decimal(4,2) holds at most 4"));
        assertTrue(error("decimal(4,2)", "99.995").contains("holds at most 4"));
        assertTrue(error("decimal(10,2)", "abc").contains("cannot convert text to decimal(10,2): not a number"));
        assertTrue(error("decimal(10,2)", true).contains("cannot convert boolean to decimal(10,2)"));
    }

    @Test
    void numbersWithHugeExponentsAreRejectedOrRoundedWithoutHugeArithmetic() throws BadValueException {
        // exact arithmetic on 1e-99999999 or 1e99999999 (a BigDecimal from 12 characters of JSON) runs for minutes
        assertEquals(BigDecimal.valueOf(1, 61), Coercions.bounded(new BigDecimal("1e-99999999"), "x"));
        assertEquals(BigDecimal.valueOf(-1, 61), Coercions.bounded(new BigDecimal("-7e-99999999"), "x"));
        assertEquals(new BigDecimal("1e59"), Coercions.bounded(new BigDecimal("1e59"), "x"));
        assertThrows(BadValueException.class, () -> Coercions.bounded(new BigDecimal("1e99999999"), "x"));

        assertEquals(new BigDecimal("0.00"), convertJson("decimal(10,2)", "1e-99999999"));
        assertEquals(new BigDecimal("-0.00"), convertJson("decimal(10,2)", "-1e-99999999"));
        assertEquals(0L, convertJson("timestamp(seconds)", "1e-99999999"));
        assertEquals(-1L, convertJson("timestamp(seconds)", "-1e-99999999"));
        assertEquals(0.0, convertJson("double", "1e-99999999"));
        assertTrue(jsonError("decimal(10,2)", "1e99999999").contains("out of range for decimal(10,2)"));
        assertTrue(jsonError("long", "1e99999999").contains("out of range for long"));
        assertTrue(jsonError("int", "1e-99999999").contains("it has a fraction"));
        assertTrue(jsonError("timestamp(nanos)", "1e99999999").contains("out of range for timestamp"));
        assertTrue(jsonError("date", "1e99999999").contains("out of range for date"));
        assertTrue(error("long", "1e99999999").contains("out of range for long"));
    }

    @Test
    void binaryTakesBytesBuffersAndText() {
        assertArrayEquals(new byte[] {1, 2, 3}, (byte[]) convert("binary", new byte[] {1, 2, 3}));
        ByteBuffer buffer = ByteBuffer.wrap(new byte[] {9, 1, 2, 3}, 1, 3);
        assertArrayEquals(new byte[] {1, 2, 3}, (byte[]) convert("binary", buffer));
        assertEquals(3, buffer.remaining(), "the buffer is not consumed");
        assertArrayEquals("hé".getBytes(StandardCharsets.UTF_8), (byte[]) convert("binary", "hé"));
        assertTrue(error("binary", 5).contains("cannot convert number to binary"));
    }
}
