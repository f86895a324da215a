package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;

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
        assertFalse(JsonScanner.resolve(tree(), "{\"a\":\"\u00e9\"}".getBytes(StandardCharsets.UTF_8), new Json(), new Object[6]),
                "bytes beyond ASCII");
        assertTrue(JsonScanner.resolve(tree(), "{\"a\":\"\u00e9\"}", new Json(), new Object[6]), "a String beyond ASCII");
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
