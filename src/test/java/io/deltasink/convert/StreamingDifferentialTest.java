package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * The streaming path against the tree path: for JSON text as a String and as UTF-8 bytes, the
 * same row, or the same error message, for seed events, hand-written hostile records and many
 * generated ones (duplicate keys, nulls, paths through scalars, JSON text in fields, lists,
 * invalid Unicode, numbers of every form, broken and truncated text). The paths' source values
 * are compared too, before any type applies, class by class.
 */
class StreamingDifferentialTest {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-06-22T10:00:00Z"), ZoneOffset.UTC);
    /** Columns of every type over paths of the generated documents' keys. */
    private static final String GENERATED_COLUMNS = "sa:string=a, lb:long=b, dab:double=a.b, sa0:string=a.0, "
            + "sa1b:string=a.1.b, ra:string=raw(a), rp:string=raw(p), pa:decimal(12,3)=p.a, pbc:string=p.b.c, "
            + "ib:int=p.b, tc:timestamp(millis)=c, t0:timestamp=p.0, bc:boolean=c, dc:date=c, ba:binary=b.a, "
            + "fa:float=p.a, all:string=raw(), c0:string=c.0.0, pp:string=p.p.p, sp:short=p.a.a";
    private static final String[] KEYS = {"a", "b", "c", "p", "0", "1", "x"};

    private int streamed;
    private int compared;

    @Test
    void seedEventsGiveTheSameRowsAndNeverNeedTheTree() {
        String seedColumns = SeedMappingTest.SEED_COLUMNS;
        for (long seq = 0; seq < 200; seq++) {
            SensorEvents.Event e = SensorEvents.event(seq);
            compare(seedColumns, e.json());
            compare(seedColumns, e.json(ZoneOffset.ofHours(2)));
        }
        assertEquals(compared, streamed, "every seed event resolved without a tree");
    }

    @Test
    void seedEventsAsTextBuildNoTree() throws Exception {
        int[] trees = {0};
        Json counting = new Json() {
            @Override
            JsonNode parse(Object text) throws NotJsonException {
                trees[0]++;
                return super.parse(text);
            }

            @Override
            JsonNode subtree(com.fasterxml.jackson.core.JsonParser parser) throws java.io.IOException {
                trees[0]++;
                return super.subtree(parser);
            }
        };
        MappingConverter c = new MappingConverter(ColumnMapping.parse(SeedMappingTest.SEED_COLUMNS), CLOCK,
                EpochUnit.NONE, counting, true);
        SensorEvents.Event e = SensorEvents.smartPlug(5);
        Object[] fromString = c.convert(SinkRecords.of("sensors", 0, 1L, e.json()));
        assertArrayEquals(fromString, c.convert(SinkRecords.of("sensors", 0, 2L, e.bytes())));
        assertEquals(0, trees[0], "envelope and payload streamed");

        assertArrayEquals(fromString, c.convert(SinkRecords.of("sensors", 0, 3L, e.map())));
        assertEquals(1, trees[0], "a Map's payload text goes the tree way");
    }

    @Test
    void hostileRecordsGiveTheSameRowsOrMessages() {
        String seed = SeedMappingTest.SEED_COLUMNS + ", ts:timestamp=ts, n:long=n, l1:string=l.1, lx:string=l.x";
        String head = "{\"device_id\":\"d\",\"device_type\":\"smart_plug\",\"ingested_at\":\"2026-06-22T08:00:00Z\",";
        List<String> bodies = List.of(
                "\"payload\":\"{\\\"power\\\":1.5}\"}",
                "\"payload\":\"{\\\"power\\\":1.5}\",\"payload\":\"{\\\"power\\\":2.5}\"}",
                "\"payload\":\"{\\\"power\\\":1.5,\\\"power\\\":7}\"}",
                "\"payload\":\"not json\"}",
                "\"payload\":\"{} x\"}",
                "\"payload\":\"\"}",
                "\"payload\":\"  \"}",
                "\"payload\":\"null\"}",
                "\"payload\":\" null \"}",
                "\"payload\":null}",
                "\"payload\":5}",
                "\"payload\":true}",
                "\"payload\":\"5\"}",
                "\"payload\":\"\\\"{}\\\"\"}",
                "\"payload\":{\"power\":3,\"state\":\"ON\"}}",
                "\"payload\":[1,2]}",
                "\"payload\":\"[1,2]\"}",
                "\"payload\":\"{\\\"state\\\":{\\\"x\\\":[1,{}]}}\"}",
                "\"payload\":\"{\\\"state\\\":\\\"\\\\ud800\\\"}\"}",
                "\"payload\":\"{\\\"voltage\\\":1e400,\\\"current\\\":-0,\\\"energy\\\":12345678901234567890123}\"}",
                "\"payload\":\"{\\\"linkquality\\\":2147483648}\"}",
                "\"payload\":\"{\\\"linkquality\\\":1.0,\\\"battery\\\":1.5}\"}",
                "\"payload\":\"{}\",\"ts\":1750000000}",
                "\"payload\":\"{}\",\"ts\":\"1750000000\"}",
                "\"payload\":\"{}\",\"ts\":1.5e9}",
                "\"payload\":\"{}\",\"n\":99999999999999999999}",
                "\"payload\":\"{}\",\"l\":[\"a\",\"b\"]}",
                "\"payload\":\"{}\",\"l\":{\"1\":\"one\"}}",
                "\"payload\":\"{}\",\"l\":\"[0,\\\"x\\\"]\"}",
                "\"payload\":\"{}\",\"skip\":" + "9".repeat(1500) + "}",
                "\"payload\":\"{}\",\"skip\":\"" + "z".repeat(5000) + "\"}",
                "\"payload\":\"{}\",\"skip\":" + "[".repeat(1200) + "]".repeat(1200) + "}",
                "\"payload\":\"{}\",\"skip\":" + "[".repeat(900) + "]".repeat(900) + "}",
                "\"payload\":\"{}\",\"skip\":\"\\ud800\\u0041\",\"skip\":{\"a\":[1,2,{\"b\":null}]}}",
                "\"payload\":\"{}\",\"skip\":\"\\x\"}",
                "\"payload\":\"{}\",\"skip\":NaN}",
                "\"payload\":\"{}\",\"skip\":01}",
                "\"payload\":\"{}\"} trailing",
                "\"payload\":\"{}\"}  ",
                "\"payload\":\"{}\"}{}",
                "\"payload\":\"{}\"",
                "\"payload\":\"{}\",}",
                "\"device_id\":\"e\",\"payload\":\"{}\"}",
                "\"device_id\":null,\"payload\":\"{}\"}",
                "\"device_id\":\"\\ud83d\\ude00\\ud800\",\"payload\":\"{}\"}",
                "\"ingested_at\":12,\"payload\":\"{}\"}",
                "\"ingested_at\":\"0000-12-31T23:59:59Z\",\"payload\":\"{}\"}",
                "\"ingested_at\":\"2026-06-22T08:00:00+25:00\",\"payload\":\"{}\"}");
        for (String body : bodies) {
            compare(seed, head + body);
        }
        for (String whole : List.of("", " ", "null", "[]", "[{}]", "\"{}\"", "5", "{}", "{\"payload\":\"{}\"}",
                "{\"device_id\":{\"a\":1}}", "nope", "{\"a\":1}}", "\uFEFF{}")) {
            compare(seed, whole);
        }
        assertTrue(streamed > 10 && streamed < compared, "both paths taken: " + streamed + " of " + compared);
    }

    @Test
    void numbersIntoEveryNumericColumnGiveTheSameRowsOrMessages() {
        String columns = "d:double=x, f:float=x, m:decimal(38,10)=x, s:string=x, r:string=raw(x), l:long=x, "
                + "t:timestamp(millis)=x, pd:double=p.x, pf:float=p.x";
        List<String> numbers = List.of("1e400", "-1e400", "-0.0", "0.0", "-0", "5e-324", "4.9e-324", "2.2250738585072011e-308",
                "2.2250738585072014E-308", "0.1" + "0".repeat(38) + "1", "0." + "1".repeat(40), "1.7976931348623157e308",
                "1.7976931348623159e308", "3.4028235e38", "3.4028236e38", "1.4e-45", "7e-46", "80.1", "229.10", "0.345",
                "12.000", "1e5", "1E+5", "1e-5", "2E0", "123456789012345678", "1234567890123456789.5", "9007199254740993.0",
                "9007199254740993", "9223372036854775808", "-9223372036854775809", "123456789012345678901234567890",
                "1" + "0".repeat(400), "1750000000123.5", "1e10000", "1e-10000", "1e99999999999", "1.5e-2147483648");
        for (String n : numbers) {
            compare(columns, "{\"x\":" + n + ",\"p\":\"{\\\"x\\\":" + n + "}\"}");
        }
        // the last two: exponents Jackson's decimal rejects, left to the tree path (which reports the text as not JSON)
        assertEquals(compared - 4, streamed, "every other number streamed");
    }

    @Test
    void floatsOnlyDoubleColumnsTakeAreTheDoublesOfTheirDecimals() {
        String columns = "d:double=x, pd:double=p.x";
        List<String> numbers = new ArrayList<>(List.of("-0.0", "0.0", "0.5", "-0.5", "80.1", "229.10", "0.345",
                "0.000000000000001", "-999999999999999.9", "99999999999999.99", "9999999999999999.9", "4503599627370495.5",
                "0.1234567890123456", "1.7976931348623157e308", "1e-5", "12.000", "-0.0000000000000000000001",
                "0.00000000000000000000001", "5"));
        Random random = new Random(7);
        for (int k = 0; k < 3_000; k++) {
            StringBuilder n = new StringBuilder(random.nextBoolean() ? "-" : "");
            int digits = 1 + random.nextInt(18);
            int point = 1 + random.nextInt(digits + 1);
            for (int d = 0; d < digits; d++) {
                n.append(d == 0 && point > 1 ? (char) ('1' + random.nextInt(9)) : (char) ('0' + random.nextInt(10)));
                if (d + 1 == point && d + 1 < digits) {
                    n.append('.');
                }
            }
            if (random.nextInt(10) == 0) {
                n.append(random.nextBoolean() ? "e" : "E-").append(random.nextInt(30));
            }
            numbers.add(n.toString());
        }
        Json json = new Json();
        FieldTree fields = FieldTree.build(ColumnMapping.parse(columns).specs());
        int direct = 0;
        int eligible = 0;
        for (String n : numbers) {
            boolean exact = n.indexOf('.') >= 0 && n.indexOf('e') < 0 && n.indexOf('E') < 0
                    && n.replace("-", "").length() <= 16; // a point and at most 15 digits
            eligible += exact ? 2 : 0;
            String text = "{\"x\":" + n + ",\"p\":\"{\\\"x\\\":" + n + "}\"}";
            compare(columns, text);
            Object[] sources = new Object[2];
            assertTrue(new StreamingPaths(fields, json, true)
                    .resolve(SinkRecords.of("t", 0, 1L, text), text, sources), text);
            double expected = new java.math.BigDecimal(n).doubleValue();
            for (Object source : sources) {
                assertEquals(Double.doubleToRawLongBits(expected), Double.doubleToRawLongBits(((Number) source).doubleValue()),
                        n);
                if (source instanceof Double) {
                    direct++;
                } else if (exact) {
                    throw new AssertionError(n + " read as " + source.getClass().getSimpleName());
                }
            }
        }
        assertEquals(eligible, direct, "floats of up to 15 digits without an exponent, and only they, read as doubles");
        assertTrue(direct > 1_000, "fast path taken: " + direct);
    }

    @Test
    void textTheScannerTakesIsValidUnicodeAndSurrogatesGiveTheTreesRowsOrMessages() {
        // the scanner takes no text with a surrogate, so the Strings it gives are valid Unicode
        // a surrogate in every form JSON text can carry one: escaped (alone, paired, reversed), as a
        // Java char in a String value (alone or paired), as UTF-8 (four bytes) and as the three bytes
        // of an encoded surrogate, which is not UTF-8
        String[] pieces = {"\\ud800", "\\udc00", "\\ud83d\\ude00", "\\ude00\\ud83d", "\ud800", "\udfff",
            "\ud83d\ude00", "\u00e9", "\u20ac", "x", "\\n", "\\u0041"};
        String columns = "a:string=a, b:string=p.b, r:string=raw(p), n:int=p.n";
        Random random = new Random(5);
        ColumnMapping mapping = ColumnMapping.parse(columns);
        Json json = new Json();
        FieldTree tree = FieldTree.build(mapping.specs());
        int scanned = 0;
        for (int k = 0; k < 3_000; k++) {
            String a = piece(random, pieces);
            String b = piece(random, pieces);
            String text = "{\"a\":\"" + a + "\",\"p\":\"{\\\"b\\\":\\\"" + b + "\\\",\\\"n\\\":1}\"}";
            compare(columns, text);
            Object[] values = {text, text.getBytes(StandardCharsets.UTF_8), cesu(text)};
            for (Object value : values) {
                Object[] out = new Object[4];
                if (JsonScanner.resolve(tree, value, json, out)) {
                    scanned++;
                    for (Object o : out) {
                        if (o instanceof String str) {
                            assertEquals(-1, Unicode.unpaired(str), () -> "scanned text with a lone surrogate: " + text);
                        }
                    }
                }
            }
            compareOne(columns, cesu(text), text);
        }
        assertTrue(scanned > 300, "the scanner took the texts without a surrogate: " + scanned);
    }

    private static String piece(Random random, String[] pieces) {
        StringBuilder out = new StringBuilder();
        for (int i = random.nextInt(4); i >= 0; i--) {
            out.append(pieces[random.nextInt(pieces.length)]);
        }
        return out.toString();
    }

    /** The text's UTF-16 units each encoded as UTF-8 would encode a character (surrogates as three bytes each). */
    private static byte[] cesu(String text) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (char c : text.toCharArray()) {
            if (c < 0x80) {
                out.write(c);
            } else if (c < 0x800) {
                out.write(0xC0 | c >> 6);
                out.write(0x80 | c & 0x3F);
            } else {
                out.write(0xE0 | c >> 12);
                out.write(0x80 | c >> 6 & 0x3F);
                out.write(0x80 | c & 0x3F);
            }
        }
        return out.toByteArray();
    }

    @Test
    void mutatedSeedEventsGiveTheSameRowsOrMessages() {
        // each event with one character inserted, replaced or removed: the scanner, the parser and the tree must agree
        String seed = SeedMappingTest.SEED_COLUMNS;
        String alphabet = "{}[]\",:\\/ \t\n0123456789.eE+-tfnulxu\u00e9\u0000\u001f\ud800";
        Random random = new Random(42);
        for (int n = 0; n < 3000; n++) {
            StringBuilder text = new StringBuilder(SensorEvents.event(n).json());
            int at = random.nextInt(text.length());
            char ch = alphabet.charAt(random.nextInt(alphabet.length()));
            switch (random.nextInt(3)) {
                case 0 -> text.insert(at, ch);
                case 1 -> text.setCharAt(at, ch);
                default -> text.deleteCharAt(at);
            }
            compare(seed, text.toString());
        }
        assertTrue(streamed > compared / 4 && streamed < compared, "both paths taken: " + streamed + " of " + compared);
    }

    @Test
    void bytesThatAreNotUtf8GiveTheSameMessages() {
        String columns = "s:string=a, r:string=raw()";
        byte[] ok = "{\"a\":\"x\",\"b\":\"\u00e9\"}".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < ok.length; i++) {
            for (byte bad : new byte[] {(byte) 0x80, (byte) 0xC3, (byte) 0xFF, (byte) 0xED, 0}) {
                byte[] b = ok.clone();
                b[i] = bad;
                compareOne(columns, b, "bytes " + i);
            }
        }
        compareOne("s:string=a.b", "{\"x\":\"\u00e9\",\"a\":{\"b\":\"\u00e9\"}}".getBytes(StandardCharsets.UTF_16BE), "utf-16");
    }

    @Test
    void textsBeyondAsciiGiveTheSameRowsAsStringsAndBytes() {
        String columns = "s:string=a, k:string=k\u00fcche, r:string=raw(p), pa:string=p.a, pk:string=p.k\u00fcche, "
                + "t:timestamp=p.t, n:long=b";
        for (String t : List.of("K\u00fcche", "\u00c3\u00a9", "\u00e9", "\u20ac", "\u00ff\u0100", "\u0080\u009f", "\\u00e9",
                "\\u20ac", "\ufffd", "\ud83d\ude00", "\ud800", "2026-06-22T08:00:00\u00a0Z")) {
            String inner = "{\\\"a\\\":\\\"" + t + "\\\",\\\"k\u00fcche\\\":\\\"" + t + "\\\",\\\"t\\\":\\\"" + t + "\\\"}";
            compare(columns, "{\"a\":\"" + t + "\",\"k\u00fcche\":\"" + t + "\",\"p\":\"" + inner + "\",\"b\":1}");
            compare(columns, "{\"" + t + "\":1,\"a\":\"x\"}");
            compare(columns, "{\"a\":" + t + "}");
        }
    }

    @Test
    void generatedDocumentsGiveTheSameRowsOrMessages() {
        Random random = new Random(20260622);
        for (int i = 0; i < 4000; i++) {
            String doc = document(random, 0);
            if (random.nextInt(10) == 0) {
                doc = doc.substring(0, random.nextInt(doc.length() + 1));
            } else if (random.nextInt(20) == 0) {
                doc = doc + " x";
            }
            compare(GENERATED_COLUMNS, doc);
        }
        assertTrue(streamed > compared / 4 && streamed < compared, "both paths taken: " + streamed + " of " + compared);
    }

    private String document(Random random, int depth) {
        StringBuilder sb = new StringBuilder("{");
        int fields = random.nextInt(depth == 0 ? 6 : 4);
        for (int f = 0; f < fields; f++) {
            if (f > 0) {
                sb.append(',');
            }
            sb.append('"').append(KEYS[random.nextInt(KEYS.length)]).append("\":").append(value(random, depth + 1));
        }
        return sb.append('}').toString();
    }

    private String value(Random random, int depth) {
        int kind = random.nextInt(depth > 3 ? 9 : 13);
        switch (kind) {
            case 0: return "null";
            case 1: return random.nextBoolean() ? "true" : "false";
            case 2: return String.valueOf(random.nextInt(2000) - 1000);
            case 3: return String.valueOf(random.nextLong());
            case 4: return List.of("1.5", "-0", "0.0", "1e3", "1.000", "2.5E-3", "123456789012345678901234567890",
                    "1e400", "-1.7976931348623157E309", "1.0e-500", "1750000000123", "3.4e39").get(random.nextInt(12));
            case 5: return quote(List.of("x", "", "null", " null ", "true", "12", "1.25", "2026-06-22T08:00:00Z",
                    "2026-06-22", "\\ud800", "\\ud83d\\ude00", "\\u00e9\\n\\\"", "1750000000", " 42 ")
                    .get(random.nextInt(14)));
            case 6: return "\"" + escape(document(random, depth + 1)) + "\"";
            case 7: return "\"" + escape("[" + value(random, depth + 1) + "," + value(random, depth + 1) + "]") + "\"";
            case 8: return "\"" + escape(document(random, depth + 1)).replace("}", "") + "\"";
            case 9: case 10: return document(random, depth);
            default:
                StringBuilder sb = new StringBuilder("[");
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    sb.append(i > 0 ? "," : "").append(value(random, depth + 1));
                }
                return sb.append(']').toString();
        }
    }

    private static String quote(String s) {
        return "\"" + s + "\"";
    }

    /** {@code json} as the content of a JSON string. */
    private static String escape(String json) {
        return json.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    private void compare(String columns, String json) {
        compareOne(columns, json, json);
        compareOne(columns, json.getBytes(StandardCharsets.UTF_8), json);
    }

    private void compareOne(String columns, Object value, String what) {
        ColumnMapping mapping = ColumnMapping.parse(columns);
        Json json = new Json();
        MappingConverter tree = new MappingConverter(mapping, CLOCK, EpochUnit.NONE, json, false);
        MappingConverter stream = new MappingConverter(mapping, CLOCK, EpochUnit.NONE, json, true);
        SinkRecord record = SinkRecords.of("t", 0, 1L, value);
        compared++;

        FieldTree fields = FieldTree.build(mapping.specs());
        Object[] streamSources = new Object[mapping.specs().size()];
        if (new StreamingPaths(fields, json).resolve(record, value, streamSources)) {
            streamed++;
            Object[] treeSources = new Object[streamSources.length];
            fields.resolve(record, value, json, treeSources);
            assertArrayEquals(treeSources, streamSources, what);
            for (int i = 0; i < treeSources.length; i++) {
                assertEquals(classOf(treeSources[i]), classOf(streamSources[i]), i + ": " + what);
            }
        }

        assertEquals(outcome(tree, record), outcome(stream, record), what);
    }

    private static Class<?> classOf(Object o) {
        return o == null ? null : o.getClass();
    }

    /** The row as text, or the error message. */
    private static String outcome(MappingConverter converter, SinkRecord record) {
        try {
            Object[] row = converter.convert(record);
            List<String> out = new ArrayList<>();
            for (Object v : row) {
                out.add(v == null ? "null" : v.getClass().getSimpleName() + ":"
                        + (v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : v.toString()));
            }
            return String.join("|", out);
        } catch (RecordConversionException e) {
            return "error: " + e.getMessage();
        }
    }
}
