package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import io.deltasink.testing.SinkRecords;

/**
 * Text that is not valid Unicode (an unpaired UTF-16 surrogate, as the JSON escape "\ud800"
 * gives, or bytes that are not UTF-8) cannot be written as UTF-8: it is a bad record wherever
 * it would become text in the table, never silently replaced by '?' or U+FFFD.
 */
class UnicodeTextTest {
    private static final String LONE_HIGH = "plug\ud800-1";
    private static final String LONE_LOW = "\udc00plug";
    private static final String HIGH_AT_END = "plug\ud83d";
    private static final String SWAPPED = "\ude00\ud83d";
    private static final String EMOJI = "plug \ud83d\ude00 Köln 東京";
    private static final byte[] NOT_UTF8 = {'p', (byte) 0xC3, '(', 'x'};

    private static Object[] convert(String columns, SinkRecord record) {
        return new MappingConverter(ColumnMapping.parse(columns), Clock.systemUTC()).convert(record);
    }

    private static String error(String columns, SinkRecord record) {
        return assertThrows(RecordConversionException.class, () -> convert(columns, record),
                columns + " <- " + record.value()).getMessage();
    }

    private static SinkRecord value(Object value) {
        return SinkRecords.of("t", 1, 5L, value);
    }

    @Test
    void unpairedSurrogatesInAStringColumnAreBadRecords() {
        for (String bad : List.of(LONE_HIGH, LONE_LOW, HIGH_AT_END, SWAPPED)) {
            String m = error("s:string=s", value(Map.of("s", bad)));
            assertTrue(m.startsWith("Cannot convert record t/1@5, column 's': field 's': text is not valid Unicode: "
                    + "an unpaired UTF-16 surrogate \\u"), m);
            assertTrue(m.contains("cannot be written as UTF-8"), m);
        }
        assertEquals(EMOJI, convert("s:string=s", value(Map.of("s", EMOJI)))[0]);
    }

    @Test
    void theJsonEscapeOfALoneSurrogateIsCaught() {
        String json = "{\"device_type\":\"plug\\ud800\",\"ok\":\"\\ud83d\\ude00\"}";
        String m = error("device_type:string=device_type", value(json));
        assertTrue(m.contains("column 'device_type'") && m.contains("unpaired UTF-16 surrogate \\uD800 at index 4"), m);
        assertEquals("\ud83d\ude00", convert("ok:string=ok", value(json))[0]);
        // the message itself stays valid Unicode: the surrogate is shown escaped
        assertTrue(m.contains("value: 'plug\\uD800'"), m);
        assertTrue(m.codePoints().noneMatch(c -> c >= 0xD800 && c <= 0xDFFF), m);
    }

    @Test
    void rawTextAndJsonTextOfContainersAreChecked() {
        String envelope = "{\"payload\":{\"state\":\"\\udfff\"}}";
        String m = error("raw_payload:string=raw(payload)", value(envelope));
        assertTrue(m.contains("column 'raw_payload': raw(payload): text is not valid Unicode"), m);
        String whole = error("all:string=raw()", value(Map.of("p", Map.of("q", LONE_HIGH))));
        assertTrue(whole.contains("column 'all'") && whole.contains("not valid Unicode"), whole);
        String asJson = error("p:string=p", value(Map.of("p", List.of("a", LONE_LOW))));
        assertTrue(asJson.contains("column 'p'") && asJson.contains("not valid Unicode"), asJson);
        // the escape inside JSON text is plain ASCII until the text is parsed
        assertEquals("{\"state\":\"\\udfff\"}", convert("raw_payload:string=raw(payload)",
                value(Map.of("payload", "{\"state\":\"\\udfff\"}")))[0]);
    }

    @Test
    void bytesThatAreNotUtf8AreBadRecordsAsText() {
        String m = error("s:string=s", value(Map.of("s", NOT_UTF8)));
        assertTrue(m.contains("column 's': field 's': bytes are not valid UTF-8"), m);
        assertTrue(error("r:string=raw(s)", value(Map.of("s", NOT_UTF8))).contains("bytes are not valid UTF-8"));
        assertTrue(error("r:string=raw()", value(NOT_UTF8)).contains("bytes are not valid UTF-8"));
        assertTrue(error("s:string=s", value(Map.of("s", ByteBuffer.wrap(NOT_UTF8)))).contains("not valid UTF-8"));
        assertEquals(EMOJI, convert("s:string=s", value(Map.of("s", EMOJI.getBytes(StandardCharsets.UTF_8))))[0]);
        assertEquals(EMOJI, convert("r:string=raw(s)", value(Map.of("s", ByteBuffer.wrap(EMOJI.getBytes(StandardCharsets.UTF_8)))))[0]);
        // bytes stay bytes in a binary column
        assertArrayEquals(NOT_UTF8, (byte[]) convert("b:binary=s", value(Map.of("s", NOT_UTF8)))[0]);
    }

    @Test
    void textIntoABinaryColumnIsCheckedToo() {
        String m = error("b:binary=s", value(Map.of("s", LONE_HIGH)));
        assertTrue(m.contains("column 'b'") && m.contains("not valid Unicode"), m);
        assertArrayEquals(EMOJI.getBytes(StandardCharsets.UTF_8), (byte[]) convert("b:binary=s", value(Map.of("s", EMOJI)))[0]);
    }

    @Test
    void keysHeadersAndStructFieldsAreChecked() {
        assertTrue(error("k:string=@key", SinkRecords.of("t", 1, 5L, LONE_HIGH, "{}")).contains("column 'k': @key: text is not valid Unicode"));
        assertTrue(error("k:string=@key", SinkRecords.of("t", 1, 5L, NOT_UTF8, "{}")).contains("column 'k': @key: bytes are not valid UTF-8"));
        assertTrue(error("h:string=@header.h", SinkRecords.builder("t", 1, 5L).value("{}").header("h", LONE_LOW).build())
                .contains("column 'h': @header.h: text is not valid Unicode"));
        Schema schema = SchemaBuilder.struct().field("name", Schema.STRING_SCHEMA).build();
        assertTrue(error("n:string=name", value(new Struct(schema).put("name", HIGH_AT_END))).contains("not valid Unicode"));
    }
}
