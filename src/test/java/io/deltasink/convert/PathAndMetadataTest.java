package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import io.deltasink.testing.SinkRecords;

/** Paths through Struct, Map, List and JSON text; raw(); record metadata; date(). */
class PathAndMetadataTest {
    private static final Instant NOW = Instant.parse("2026-06-22T10:00:00.000001Z");

    private static Object[] convert(String columns, SinkRecord record) {
        return new MappingConverter(ColumnMapping.parse(columns), Clock.fixed(NOW, ZoneOffset.UTC)).convert(record);
    }

    private static Object[] convert(String columns, Object value) {
        return convert(columns, SinkRecords.of("t", 0, 0L, value));
    }

    @Test
    void pathsDescendThroughMapsListsAndJsonText() {
        Map<String, Object> value = Map.of(
                "a", Map.of("b", Map.of("c", 3L)),
                "items", List.of(Map.of("name", "first"), Map.of("name", "second")),
                "doc", "{\"x\":{\"y\":[10,20]},\"s\":\"{\\\"deep\\\":true}\"}",
                "bytes", "{\"k\":\"v\"}".getBytes(StandardCharsets.UTF_8));
        Object[] row = convert("c:long=a.b.c, n:string=items.1.name, y:int=doc.x.y.1, deep:boolean=doc.s.deep, "
                + "k:string=bytes.k, gone:int=a.b.nope, pastEnd:string=items.5.name", value);
        assertArrayEquals(new Object[] {3L, "second", 20, true, "v", null, null}, row);
    }

    @Test
    void pathsDescendThroughStructsAndTheirJsonTextFields() {
        Schema inner = SchemaBuilder.struct().field("level", Schema.INT32_SCHEMA)
                .field("amount", Decimal.builder(2).optional().build())
                .field("at", Timestamp.builder().optional().build()).build();
        Schema outer = SchemaBuilder.struct().field("id", Schema.STRING_SCHEMA).field("inner", inner)
                .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
                .field("payload", Schema.OPTIONAL_STRING_SCHEMA).build();
        Struct value = new Struct(outer).put("id", "s-1")
                .put("inner", new Struct(inner).put("level", 5).put("amount", new BigDecimal("1.25"))
                        .put("at", new java.util.Date(1_750_583_760_123L)))
                .put("tags", List.of("a", "b"))
                .put("payload", "{\"power\":84.3}");
        Object[] row = convert("id:string=id, level:long=inner.level, amount:decimal(5,1)=inner.amount, "
                + "at:timestamp=inner.at, tag:string=tags.1, power:double=payload.power, "
                + "inner:string=raw(inner), missing:string=inner.nope, missing2:string=nope.deeper", value);
        assertArrayEquals(new Object[] {"s-1", 5L, new BigDecimal("1.3"), 1_750_583_760_123_000L, "b", 84.3,
            "{\"level\":5,\"amount\":1.25,\"at\":\"2025-06-22T09:16:00.123Z\"}", null, null}, row);
    }

    @Test
    void jsonTextReachedTwiceIsParsedOnceAndNullAlongThePathGivesNull() {
        String value = "{\"p\":\"{\\\"a\\\":1,\\\"b\\\":null}\",\"n\":null}";
        Object[] row = convert("a:int=p.a, b:int=p.b, b2:int=p.b.c, n:string=n.x, rawp:string=raw(p)", value);
        assertArrayEquals(new Object[] {1, null, null, null, "{\"a\":1,\"b\":null}"}, row);
    }

    @Test
    void valueMayBeAJsonTree() throws Exception {
        com.fasterxml.jackson.databind.JsonNode tree = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree("{\"a\":{\"b\":[5,6]},\"p\":\"{\\\"q\\\":7}\"}");
        assertArrayEquals(new Object[] {6L, 7, "{\"b\":[5,6]}"},
                convert("b:long=a.b.1, q:int=p.q, a:string=a", tree));
    }

    @Test
    void rawGivesTextAsIsBytesAsUtf8AndOtherValuesAsJson() {
        String text = "{ \"p\" : {\"a\": [1, 2.50]}, \"s\": \"plain\", \"n\": 7 }";
        Object[] fromText = convert("all:string=raw(), p:string=raw(p), s:string=raw(s), n:string=raw(n), "
                + "x:string=raw(nope)", text);
        assertArrayEquals(new Object[] {text, "{\"a\":[1,2.50]}", "plain", "7", null}, fromText);

        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        assertEquals(text, convert("all:string=raw()", bytes)[0]);

        Map<String, Object> map = Map.of("p", Map.of("a", List.of(1, 2)), "b", "{\"z\":1}".getBytes(StandardCharsets.UTF_8));
        Object[] fromMap = convert("p:string=raw(p), b:string=raw(b)", map);
        assertArrayEquals(new Object[] {"{\"a\":[1,2]}", "{\"z\":1}"}, fromMap);
    }

    @Test
    void rawOfAMissingOrNullFieldIsNullAsIsTextHoldingOnlyJsonNull() {
        String columns = "r:string=raw(p), x:int=p.x";
        assertArrayEquals(new Object[] {null, null}, convert(columns, "{\"q\":1}"));
        assertArrayEquals(new Object[] {null, null}, convert(columns, "{\"p\":null}"));
        assertArrayEquals(new Object[] {null, null}, convert(columns, "{\"p\":\"null\"}"));
        assertArrayEquals(new Object[] {null, null}, convert(columns, "{\"p\":\" null\\n\"}"));
        assertArrayEquals(new Object[] {null, null}, convert(columns, java.util.Collections.singletonMap("p", null)));
        assertArrayEquals(new Object[] {null, null}, convert(columns, Map.of("p", "null".getBytes(StandardCharsets.UTF_8))));
        assertArrayEquals(new Object[] {"\"null\""}, convert("r:string=raw(p)", "{\"p\":\"\\\"null\\\"\"}"));
        assertArrayEquals(new Object[] {"nullx"}, convert("r:string=raw(p)", Map.of("p", "nullx")));
        assertArrayEquals(new Object[] {"{}", null}, convert(columns, "{\"p\":\"{}\"}"));
    }

    @Test
    void wholeValueIsNotParsedWhenOnlyRawAndMetadataAreRead() {
        Object[] row = convert("line:string=raw(), topic:string=@topic", "not json, just a log line");
        assertArrayEquals(new Object[] {"not json, just a log line", "t"}, row);
    }

    @Test
    void recordMetadata() {
        Schema keySchema = SchemaBuilder.struct().field("id", Schema.STRING_SCHEMA).build();
        SinkRecord record = SinkRecords.builder("sensors", 4, 99L)
                .key(new Struct(keySchema).put("id", "k1"))
                .value("{}")
                .timestamp(1_750_583_760_123L)
                .header("trace", "abc")
                .header("trace", "def")
                .header("count", 12)
                .build();
        Object[] row = convert("topic:string=@topic, partition:int=@partition, offset:long=@offset, "
                + "ts:timestamp=@timestamp, ts_ms:long=@timestamp, ts_day:date=@timestamp, key:string=@key, "
                + "trace:string=@header.trace, count:int=@header.count, nohdr:string=@header.none, "
                + "now:timestamp=@now, now_text:string=@now", record);
        assertArrayEquals(new Object[] {"sensors", 4, 99L, 1_750_583_760_123_000L, 1_750_583_760_123L, 20261,
            "{\"id\":\"k1\"}", "def", 12, null, 1_782_122_400_000_001L, "2026-06-22T10:00:00.000001Z"}, row);
    }

    @Test
    void keysOfEachKind() {
        String cols = "key:string=@key, key_long:long=@key";
        assertEquals("plug-1", convert("key:string=@key", SinkRecords.of("t", 0, 0L, "plug-1", "{}"))[0]);
        assertArrayEquals(new Object[] {"123", 123L}, convert(cols, SinkRecords.of("t", 0, 0L, 123L, "{}")));
        assertEquals("{\"id\":7}", convert("key:string=@key", SinkRecords.of("t", 0, 0L, Map.of("id", 7), "{}"))[0]);
        assertEquals("k", convert("key:string=@key",
                SinkRecords.of("t", 0, 0L, "k".getBytes(StandardCharsets.UTF_8), "{}"))[0]);
        assertNull(convert("key:string=@key", SinkRecords.of("t", 0, 0L, "{}"))[0]);
    }

    @Test
    void missingMetadataIsAnErrorOnlyWhenRequired() {
        SinkRecord noTimestamp = SinkRecords.of("t", 1, 2L, "{}");
        assertNull(convert("ts:timestamp=@timestamp", noTimestamp)[0]);
        RecordConversionException e = assertThrows(RecordConversionException.class,
                () -> new MappingConverter(ColumnMapping.parse("ts:timestamp=@timestamp, h:string=@header.x",
                        java.util.Set.of("h")), Clock.systemUTC()).convert(noTimestamp));
        assertEquals("Cannot convert record t/1@2, column 'h': required @header.x is missing", e.getMessage());
    }

    @Test
    void dateOfAColumnDefinedEarlierOrLater() {
        String value = "{\"ts\":\"2026-06-22T23:30:00-02:00\",\"d\":\"2026-01-02\"}";
        Object[] row = convert("day:date=date(t), t:timestamp=ts, day_text:string=date(t), dd:date=d, dd2:date=date(dd)", value);
        assertArrayEquals(new Object[] {20627, SeedMappingTest.micros("2026-06-23T01:30:00Z"), "2026-06-23", 20455, 20455}, row);
    }

    @Test
    void metadataOfTheWrongTypeIsAnError() {
        RecordConversionException e = assertThrows(RecordConversionException.class,
                () -> convert("n:int=@header.n", SinkRecords.builder("t", 0, 5L).value("{}").header("n", "five").build()));
        assertTrue(e.getMessage().contains("column 'n': @header.n: cannot convert text to int: not a number; value: 'five'"), e.getMessage());
    }
}
