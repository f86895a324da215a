package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.deltasink.testing.SensorEvents;

/**
 * What the scanner takes and what it leaves to the parser. That it reads what it takes as the
 * parser and the tree do is {@link StreamingDifferentialTest}'s part.
 */
class JsonScannerTest {
    private static final String COLUMNS = "s:string=a, n:long=b, d:double=c, r:string=raw(p), x:int=p.x, l:string=l.1";

    @Test
    void takesSeedEventsAsStringAndBytes() {
        ColumnMapping mapping = ColumnMapping.parse(SeedMappingTest.SEED_COLUMNS);
        FieldTree tree = FieldTree.build(mapping.specs());
        for (long seq = 0; seq < 20; seq++) {
            SensorEvents.Event e = SensorEvents.event(seq);
            Object[] fromString = new Object[mapping.specs().size()];
            Object[] fromBytes = new Object[fromString.length];
            assertTrue(JsonScanner.resolve(tree, e.json(), new Json(), fromString), e.json());
            assertTrue(JsonScanner.resolve(tree, e.bytes(), new Json(), fromBytes), e.json());
            assertArrayEquals(fromString, fromBytes);
            assertEquals(e.deviceId(), fromString[0]);
        }
    }

    @Test
    void readsValuesAsTheParserGivesThem() {
        Object[] out = scan("{\"a\":\"x\\u00e9\\n\",\"b\":2147483648,\"c\":-1.50e2,\"p\":\"{\\\"x\\\":-0}\",\"l\":[0,\"one\"]}");
        assertEquals(List.of("x\u00e9\n", 2147483648L, new BigDecimal("-1.50e2"), "{\"x\":-0}", 0, "one"),
                java.util.Arrays.asList(out));
        assertEquals(2, scan("{\"l\":{\"1\":2}}")[5], "a list index names an object's key");
    }

    @Test
    void leavesWhatItDoesNotReadToTheParser() {
        for (String text : List.of("", " ", "5", "\"{}\"", "{} x", "{}{}", "{\"a\":\"x\"", "{\"a\":\"x\",}", "[1,]",
                "{\"a\":01}", "{\"b\":1.}", "{\"b\":.5}", "{\"b\":+1}", "{\"b\":1e}", "{\"b\":0x1}", "{\"b\":NaN}",
                "{\"b\":12345678901234567890}", "{\"c\":0.1" + "0".repeat(30) + "1}", "{\"b\":tru}", "{\"b\":truex}",
                "{\"b\":nul}", "{'a':1}", "{a:1}", "{\"a\":\"\\x\"}", "{\"a\":\"\\ud83d\\ude00\"}", "{\"a\":\"\ud83d\ude00\"}",
                "{\"a\":\"\\u00g0\"}", "{\"a\":\"\\u\uff11\uff11\uff11\uff11\"}", "{\"a\":\"tab\there\"}", "{\"\\u0061\":1}",
                "{\"a\":{\"b\":1}}", "{\"a\":[1]}", "{\"p\":5}", "{\"p\":{\"x\":1}}",
                "{\"z\":" + "[".repeat(150) + "]".repeat(150) + "}", "{\"" + "k".repeat(1001) + "\":1}", "\u000b{}",
                "{\"a\":1}\u0000", "/*c*/{}", "{\"p\":\"{\\\"x\\\":1} x\"}", "{\"p\":\"5\"}")) {
            assertFalse(JsonScanner.resolve(tree(), text, new Json(), new Object[6]), text);
        }
        assertFalse(JsonScanner.resolve(tree(), "{\"a\":\"\ud800\"}", new Json(), new Object[6]), "an unpaired surrogate");
        for (String text : List.of("{\"a\":1,\u00e9:2}", "\u00a0{}", "{\"b\":1\u00e9}", "{\"b\":\u00e9}")) {
            assertFalse(JsonScanner.resolve(tree(), text.getBytes(StandardCharsets.UTF_8), new Json(), new Object[6]),
                    "beyond ASCII outside a string: " + text);
        }
    }

    /**
     * Every character of two or three UTF-8 bytes (not a surrogate), in a string, a key, and escaped
     * or as it is in JSON text in a field, is read as Java decodes it, from bytes and from a String.
     */
    @Test
    void readsEveryCharacterUpToFfffAsJavaDecodesIt() {
        FieldTree tree = tree();
        Json json = new Json();
        JsonScanner scanner = new JsonScanner(json);
        for (int code = 0x80; code <= 0xFFFF; code++) {
            if (Character.isSurrogate((char) code)) {
                continue;
            }
            String ch = String.valueOf((char) code);
            String escapedCh = String.format("\\\\u%04x", code);
            for (String inner : List.of(ch, escapedCh)) {
                String text = "{\"" + ch + "\":1,\"a\":\"x" + ch + "\",\"p\":\"{\\\"" + ch + "\\\":0,\\\"x\\\":\\\"" + inner
                        + "\\\"}\"}";
                Object[] fromBytes = new Object[6];
                Object[] fromString = new Object[6];
                assertTrue(scanner.read(tree, text.getBytes(StandardCharsets.UTF_8), fromBytes), text);
                assertTrue(scanner.read(tree, text, fromString), text);
                assertEquals("x" + ch, fromBytes[0], text);
                assertEquals(ch, fromBytes[4], text);
                assertArrayEquals(fromBytes, fromString, text);
            }
        }
    }

    /**
     * Every two bytes after a string's first character, and every three-byte form: taken exactly
     * when Java's strict UTF-8 decoder reads them as characters up to U+FFFF, then as it reads them.
     */
    @Test
    void takesExactlyTheWellFormedUtf8OfTwoAndThreeBytes() {
        FieldTree tree = tree();
        JsonScanner scanner = new JsonScanner(new Json());
        byte[] start = "{\"a\":\"x".getBytes(StandardCharsets.US_ASCII);
        byte[] tail = "\"}".getBytes(StandardCharsets.US_ASCII);
        int taken = 0;
        for (int b1 = 0x80; b1 <= 0xFF; b1++) {
            for (int b2 = 0; b2 <= 0xFF; b2++) {
                for (int b3 : b1 >= 0xE0 && b1 <= 0xEF ? new int[] {0x80, 0xBF, 0x41, 0xC0, 0x22} : new int[] {-1}) {
                    byte[] middle = b3 < 0 ? new byte[] {(byte) b1, (byte) b2} : new byte[] {(byte) b1, (byte) b2, (byte) b3};
                    byte[] value = new byte[start.length + middle.length + tail.length];
                    System.arraycopy(start, 0, value, 0, start.length);
                    System.arraycopy(middle, 0, value, start.length, middle.length);
                    System.arraycopy(tail, 0, value, start.length + middle.length, tail.length);
                    String decoded = strictUtf8(middle);
                    boolean wellFormed = decoded != null && decoded.chars().allMatch(ch -> ch >= 0x20 && ch != '"'
                            && ch != '\\' && !Character.isSurrogate((char) ch));
                    Object[] out = new Object[6];
                    boolean read = scanner.read(tree, value, out);
                    String what = String.format("%02x %02x %02x", b1, b2, b3);
                    assertEquals(wellFormed, read, what);
                    if (read) {
                        assertEquals("x" + decoded, out[0], what);
                        taken++;
                    }
                }
            }
        }
        // C2-DF with 64 continuations; E0-EF with 64 seconds but E0's overlong and ED's surrogate halves, times 2 thirds
        assertEquals(30 * 64 + (16 * 64 - 32 - 32) * 2, taken);
    }

    /**
     * Names and texts beyond ASCII, from a String of Latin-1 characters only, of others too, and
     * from bytes, one value after another through one scanner: each read as the parser reads it.
     */
    @Test
    void readsNamesAndTextsBeyondAsciiFromEveryForm() {
        FieldTree tree = FieldTree.build(ColumnMapping.parse("a:string=gr\u00fc\u00dfe, b:string=p.k\u00fcche, "
                + "r:string=raw(p), c:string=x").specs());
        JsonScanner scanner = new JsonScanner(new Json());
        List<String> texts = List.of("\u00c3\u00a9", "\u00e9", "caf\u00e9", "\u20ac", "\u00ff\u0100", "plain");
        for (int round = 0; round < 3; round++) {
            for (String t : texts) {
                String value = "{\"gr\u00fc\u00dfe\":\"" + t + "\",\"x\":\"" + t + "\",\"p\":\"{\\\"k\u00fcche\\\":\\\"" + t
                        + "\\\",\\\"y\\\":\\\"\\\\u00e9\\\\u00ff\\\"}\"}";
                for (Object form : List.of(value, value.getBytes(StandardCharsets.UTF_8))) {
                    Object[] out = new Object[4];
                    String what = t + (form instanceof String ? " as a String" : " as bytes");
                    assertTrue(scanner.read(tree, form, out), what);
                    assertEquals(List.of(t, t, "{\"k\u00fcche\":\"" + t + "\",\"y\":\"\\u00e9\\u00ff\"}", t),
                            java.util.Arrays.asList(out), what);
                }
            }
        }
        // an escape beyond Latin-1 in a String of Latin-1 characters only is the parser's; in bytes it is read
        String escaped = "{\"x\":\"\u00e9\\u20ac\"}";
        assertFalse(scanner.read(tree, escaped, new Object[4]));
        Object[] out = new Object[4];
        assertTrue(scanner.read(tree, escaped.getBytes(StandardCharsets.UTF_8), out));
        assertEquals("\u00e9\u20ac", out[3]);
        // the UTF-8 of \u00e9 is the Latin-1 of \u00c3\u00a9: the last text of the other form is not reused
        assertTrue(scanner.read(tree, "{\"x\":\"\u00e9\"}".getBytes(StandardCharsets.UTF_8), out));
        assertTrue(scanner.read(tree, "{\"x\":\"\u00c3\u00a9\"}", out));
        assertEquals("\u00c3\u00a9", out[3]);
        assertTrue(scanner.read(tree, "{\"x\":\"\u00c3\u00a9\"}".getBytes(StandardCharsets.ISO_8859_1), out));
        assertEquals("\u00e9", out[3]);
    }

    private static String strictUtf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            return null;
        }
    }

    /**
     * A string is scanned eight bytes at a time up to its first quote, backslash, control character
     * or byte beyond ASCII: each of these at every offset of strings of up to three words, whatever
     * follows the string, is read (or left to the parser) as the byte loop reads it.
     */
    @Test
    void findsTheFirstByteToReadAtEveryOffsetOfAWord() {
        FieldTree tree = tree();
        JsonScanner scanner = new JsonScanner(new Json());
        // the JSON inside the quotes, the text it reads as (null: left to the parser)
        String[][] specials = {{"", ""}, {"\\n", "\n"}, {"\\\"", "\""}, {"\\u00e9", "\u00e9"}, {"\u00e9", "\u00e9"},
            {"\u20ac", "\u20ac"}, {"\t", null}, {"\u0000", null}, {"\u001f", null}, {"\u007f", "\u007f"}, {" ", " "}};
        for (int before = 0; before <= 24; before++) {
            for (int after = 0; after <= 9; after++) {
                for (String[] special : specials) {
                    String plain = "abcdefghijklmnopqrstuvwxyz".substring(0, before);
                    String tail = "~!#$%&'()*".substring(0, after);
                    String text = "{\"a\":\"" + plain + special[0] + tail + "\"}";
                    String what = before + " + " + special[0] + " + " + after;
                    for (boolean bytes : new boolean[] {true, false}) {
                        Object[] out = new Object[6];
                        boolean read = bytes ? scanner.read(tree, text.getBytes(StandardCharsets.UTF_8), out)
                                : scanner.read(tree, text, out);
                        assertEquals(special[1] != null, read, what);
                        if (read) {
                            assertEquals(plain + special[1] + tail, out[0], what);
                        }
                    }
                }
            }
        }
        byte[] notUtf8 = "{\"a\":\"abcdefghij\u00ff\"}".getBytes(StandardCharsets.ISO_8859_1);
        assertFalse(scanner.read(tree, notUtf8, new Object[6]), "a byte that starts no UTF-8 character");
    }

    /**
     * Past its first escape a string is decoded eight bytes at a time too: a second special of every
     * kind after every length of plain text, with the first escape at every offset of a word.
     */
    @Test
    void decodesAfterAnEscapeAtEveryOffsetOfAWord() {
        FieldTree tree = tree();
        JsonScanner scanner = new JsonScanner(new Json());
        String[][] escapes = {{"\\n", "\n"}, {"\\\"", "\""}, {"\\u00e9", "\u00e9"}, {"\\u20ac", "\u20ac"}};
        String[][] specials = {{"", ""}, {"\\t", "\t"}, {"\\\\", "\\"}, {"\\u0041", "A"}, {"\u00e9", "\u00e9"},
            {"\u20ac", "\u20ac"}, {"\t", null}, {"\u0000", null}, {"\\x", null}, {"\\u12", null}, {"\u007f", "\u007f"}};
        String letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ";
        for (int lead = 0; lead <= 3; lead++) {
            for (String[] escape : escapes) {
                for (int middle = 0; middle <= 24; middle++) {
                    for (String[] special : specials) {
                        for (int after = 0; after <= 9; after++) {
                            String head = letters.substring(0, lead);
                            String plain = letters.substring(lead, lead + middle);
                            String tail = "~!#$%&'()*".substring(0, after);
                            String text = "{\"a\":\"" + head + escape[0] + plain + special[0] + tail + "\"}";
                            // a Latin-1 String's text takes no escape beyond Latin-1: the parser reads it
                            boolean beyondLatin1 = escape[1].charAt(0) > 0xFF && text.chars().allMatch(ch -> ch <= 0xFF);
                            for (boolean bytes : new boolean[] {true, false}) {
                                Object[] out = new Object[6];
                                boolean read = bytes ? scanner.read(tree, text.getBytes(StandardCharsets.UTF_8), out)
                                        : scanner.read(tree, text, out);
                                String what = (bytes ? "bytes " : "String ") + text;
                                assertEquals(special[1] != null && (bytes || !beyondLatin1), read, what);
                                if (read) {
                                    assertEquals(head + escape[1] + plain + special[1] + tail, out[0], what);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * The eight-byte test finds the first byte to read as the bytes tested one by one do, for every
     * byte at every place and for random words.
     */
    @Test
    void testsAWordAsItsBytesOneByOne() {
        byte[] plain = {'a', ' ', '~', '!', '#', '0', 0x7f, '[', ']', '{'};
        Random random = new Random(7);
        for (int b = 0; b <= 0xFF; b++) {
            for (int at = 0; at < 8; at++) {
                for (int round = 0; round < 4; round++) {
                    long word = 0;
                    for (int k = 0; k < 8; k++) {
                        int v = k == at ? b : plain[random.nextInt(plain.length)] & 0xFF;
                        word |= (long) v << (8 * k);
                    }
                    assertEquals(firstSpecial(word), firstFound(word), Long.toHexString(word));
                }
            }
        }
        for (int round = 0; round < 200_000; round++) {
            long word = random.nextLong();
            assertEquals(firstSpecial(word), firstFound(word), Long.toHexString(word));
        }
    }

    /** The place of the word's first quote, backslash, control character or byte beyond ASCII, or 8. */
    private static int firstSpecial(long word) {
        for (int k = 0; k < 8; k++) {
            int b = (int) (word >>> (8 * k)) & 0xFF;
            if (b == '"' || b == '\\' || b < 0x20 || b >= 0x80) {
                return k;
            }
        }
        return 8;
    }

    private static int firstFound(long word) {
        long found = JsonBytes.quoteEscapeOrBeyond(word);
        return found == 0 ? 8 : Long.numberOfTrailingZeros(found) >>> 3;
    }

    private static FieldTree tree() {
        return FieldTree.build(ColumnMapping.parse(COLUMNS).specs());
    }

    private static Object[] scan(String text) {
        Object[] out = new Object[6];
        assertTrue(JsonScanner.resolve(tree(), text, new Json(), out), text);
        return out;
    }
}
