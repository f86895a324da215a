package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The JSON texts held in fields of a value (two side by side, and one inside another) keep their
 * buffers from value to value in one {@link JsonScanner}: whatever came before (texts escaped or
 * not, longer or shorter, more or fewer of them, a value given up half way), each value reads as
 * through a fresh scanner and as through trees, and every value but those with bad text is read
 * by the scanner itself.
 */
class JsonTextBuffersTest {
    private static final String COLUMNS = "p:string=raw(p), pa:int=p.a, pt:string=p.t, q:string=raw(q), qb:string=q.b,"
            + " inner:string=raw(p.in), ix:double=p.in.x, iy:string=p.in.y";
    private static final int WIDTH = 8;

    @Test
    void textsInFieldsReadAsThroughAFreshScannerWhateverCameBefore() {
        FieldTree tree = FieldTree.build(ColumnMapping.parse(COLUMNS).specs());
        Json json = new Json();
        JsonScanner reused = new JsonScanner(json);
        Random random = new Random(11);
        int accepted = 0;
        for (int k = 0; k < 30_000; k++) {
            String text = value(random);
            Object value = random.nextBoolean() ? text : text.getBytes(StandardCharsets.UTF_8);
            Object[] fresh = new Object[WIDTH];
            boolean freshOk = JsonScanner.resolve(tree, value, json, fresh);
            Object[] again = new Object[WIDTH];
            boolean againOk = reused.read(tree, value, again);
            assertEquals(freshOk, againOk, text);
            // all but the bad text in q is plain JSON the scanner reads itself
            assertEquals(!text.contains("[1,2"), againOk, text);
            if (freshOk) {
                assertArrayEquals(fresh, again, text);
                Object[] trees = new Object[WIDTH];
                tree.resolve(null, value, json, trees);
                assertArrayEquals(trees, again, text);
                accepted++;
            }
        }
        assertTrue(accepted > 15_000, "most values are read by the scanner: " + accepted);
    }

    /** An envelope with JSON text in p (holding JSON text in "in") and in q, escaped as JSON strings, or not. */
    private static String value(Random random) {
        StringBuilder v = new StringBuilder("{");
        if (random.nextInt(5) > 0) {
            String inner = "{\"x\":" + random.nextInt(1000) + "." + random.nextInt(10) + ",\"y\":\"" + word(random) + "\"}";
            String p = "{\"a\":" + random.nextInt(100) + ",\"t\":\"" + word(random) + "\""
                    + (random.nextBoolean() ? ",\"in\":" + quoted(inner) : "")
                    + ",\"pad\":\"" + "z".repeat(random.nextInt(random.nextInt(8) == 0 ? 300 : 20)) + "\"}";
            int kind = random.nextInt(10);
            // JSON text without escapes at times: {} or null, copied rather than decoded
            v.append("\"p\":").append(kind == 0 ? "\"null\"" : kind == 1 ? "\"{ }\"" : quoted(p));
        }
        if (random.nextInt(4) > 0) {
            v.append(v.length() > 1 ? "," : "");
            int kind = random.nextInt(6);
            // bad text, and text without escapes, at times
            String q = kind == 0 ? "[1,2" : kind == 1 ? "{}" : "{\"b\":\"" + word(random) + "\"}";
            v.append("\"q\":").append(quoted(q));
        }
        return v.append("}").toString();
    }

    private static String word(Random random) {
        String[] words = {"ON", "OFF", "", "x".repeat(70), "tab\\tx", "\\u00e9t\\u00e9", "q\\\"uote", "back\\\\slash"};
        return words[random.nextInt(words.length)];
    }

    /** {@code json} as a JSON string: quotes and backslashes escaped. */
    private static String quoted(String json) {
        String escaped = json.replace("\\", "\\\\").replace("\"", "\\\"");
        return "\"" + escaped + "\"";
    }
}
