package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.deltasink.testing.SensorEvents;

/**
 * One {@link JsonScanner} reading value after value (its buffers, and the last text of each
 * column, kept between them) gives what a fresh scanner gives for each value alone, whatever came
 * before: repeated and changing texts, escapes, values it gives up on half way, bytes beyond ASCII.
 */
class JsonScannerReuseTest {
    private static final String COLUMNS = "a:string=a, b:string=b.c, n:double=b.n, r:string=raw(t), tc:string=t.c, s:string=s";
    private static final List<String> TEXTS = List.of("x", "x", "xy", "", "x\\\"y", "x\\\\y", "d\\u00e9j\\u00e0",
            "smart_plug", "smart_plug", "door_window", "ON", "OFF", "x".repeat(64), "x".repeat(65), "x".repeat(66),
            "tab\\tnew\\nline", "\\u0041\\u0042");

    @Test
    void reusedScannerReadsEveryValueAsAFreshOne() {
        FieldTree tree = FieldTree.build(ColumnMapping.parse(COLUMNS).specs());
        Json json = new Json();
        JsonScanner reused = new JsonScanner(json);
        Random random = new Random(42);
        int accepted = 0;
        for (int k = 0; k < 20_000; k++) {
            String text = value(random);
            Object value = random.nextBoolean() ? text : text.getBytes(StandardCharsets.UTF_8);
            Object[] fresh = new Object[6];
            boolean freshOk = JsonScanner.resolve(tree, value, json, fresh);
            Object[] again = new Object[6];
            boolean againOk = reused.read(tree, value, again);
            assertEquals(freshOk, againOk, text);
            if (freshOk) {
                assertArrayEquals(fresh, again, text);
                accepted++;
            }
        }
        assertTrue(accepted > 10_000, "most values are read by the scanner: " + accepted);
    }

    @Test
    void seedEventsThroughOneScannerAsThroughFreshOnes() {
        FieldTree tree = FieldTree.build(ColumnMapping.parse(SeedMappingTest.SEED_COLUMNS).specs());
        Json json = new Json();
        JsonScanner reused = new JsonScanner(json);
        int columns = ColumnMapping.parse(SeedMappingTest.SEED_COLUMNS).specs().size();
        for (int seq = 0; seq < 2_000; seq++) {
            byte[] bytes = SensorEvents.event(seq).bytes();
            Object[] fresh = new Object[columns];
            Object[] again = new Object[columns];
            assertTrue(JsonScanner.resolve(tree, bytes, json, fresh));
            assertTrue(reused.read(tree, bytes, again));
            assertArrayEquals(fresh, again);
        }
    }

    private static String value(Random random) {
        String a = text(random);
        String inner = "{\\\"c\\\":\\\"" + text(random) + "\\\"}";
        String b = random.nextInt(8) == 0 ? "{\"c\":\"" + text(random) + "\",\"n\":1.5,\"c\":\"twice\"}"
                : "{\"c\":\"" + text(random) + "\",\"n\":" + random.nextInt(1000) / 10.0 + "}";
        String s = random.nextInt(10) == 0 ? "\"\u00e9t\u00e9\"" : random.nextInt(10) == 0 ? "12" : "\"" + text(random) + "\"";
        String t = random.nextInt(10) == 0 ? "null" : "\"" + inner + "\"";
        return "{\"a\":\"" + a + "\",\"b\":" + b + ",\"t\":" + t + ",\"s\":" + s + "}";
    }

    private static String text(Random random) {
        return TEXTS.get(random.nextInt(TEXTS.size()));
    }
}
