package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * {@link FieldTree#is}, which compares a key a word at a time, answers as a byte-for-byte comparison
 * does: names of every length up to 40 bytes (ASCII and beyond), at every place in the text (its very
 * end included), against the name itself and the name with any one byte changed or its length off by one.
 */
class FieldNameMatchTest {
    private static final String CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_\u00e9\u00ff\u65e5";

    @Test
    void aNameIsMatchedExactlyWhereverItLies() {
        Random random = new Random(5);
        int matches = 0;
        for (int length = 1; length <= 40; length++) {
            for (int round = 0; round < 20; round++) {
                StringBuilder name = new StringBuilder();
                while (name.toString().getBytes(StandardCharsets.UTF_8).length < length) {
                    name.append(CHARS.charAt(random.nextInt(CHARS.length())));
                }
                FieldTree node = FieldTree.build(ColumnMapping.parse("c:string=" + name).specs()).child(name.toString());
                assertNotNull(node, name.toString());
                byte[] segment = name.toString().getBytes(StandardCharsets.UTF_8);
                for (int variant = -3; variant < segment.length; variant++) {
                    byte[] key = variant == -3 ? segment
                            : variant == -2 ? Arrays.copyOf(segment, segment.length + 1)
                            : variant == -1 ? Arrays.copyOf(segment, segment.length - 1) : segment.clone();
                    if (variant >= 0) {
                        key[variant] ^= (byte) (1 << random.nextInt(8));
                    }
                    for (int before : new int[] {0, 1, 7, 13}) {
                        for (int after : new int[] {0, 1, 5, 9, 20}) {
                            byte[] text = new byte[before + key.length + after];
                            random.nextBytes(text);
                            System.arraycopy(key, 0, text, before, key.length);
                            boolean expected = Arrays.equals(segment, key);
                            assertEquals(expected, node.is(text, before, key.length),
                                    name + " / " + Arrays.toString(key) + " at " + before + " of " + text.length);
                            matches += expected ? 1 : 0;
                        }
                    }
                }
            }
        }
        assertEquals(40 * 20 * 4 * 5, matches, "every name met itself at every place");
    }
}
