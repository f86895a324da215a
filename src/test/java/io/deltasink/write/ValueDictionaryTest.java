package io.deltasink.write;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link ValueDictionary} against a map: ids in first-seen order, the same id for equal contents
 * (another array, or the same one), through every growth of the table; byte arrays that differ only
 * in their length, their last byte or the bytes an overlapping last word reads twice.
 */
class ValueDictionaryTest {

    @Test
    void byteArraysGetTheirFirstSeenIdsThroughEveryGrowth() {
        Random random = new Random(11);
        List<byte[]> values = new ArrayList<>();
        for (int n = 0; n <= 40; n++) {
            values.add(new byte[n]); // zeros of every length: only the length tells them apart
            byte[] last = new byte[n + 1];
            last[n] = (byte) 0x80;
            values.add(last);
        }
        for (int k = 0; k < 20_000; k++) {
            byte[] v = new byte[random.nextInt(random.nextInt(10) == 0 ? 200 : 24)];
            random.nextBytes(v);
            if (k % 3 == 0 && v.length > 8) {
                v[v.length - 9] = (byte) (k / 3); // differ only where the last word overlaps the one before
                java.util.Arrays.fill(v, 0, v.length - 9, (byte) 'x');
            }
            values.add(v);
        }
        ValueDictionary dictionary = new ValueDictionary(true);
        Map<ByteBuffer, Integer> model = new HashMap<>();
        for (int round = 0; round < 2; round++) {
            for (byte[] v : values) {
                Integer expected = model.computeIfAbsent(ByteBuffer.wrap(v), b -> model.size());
                int id = dictionary.id(round == 0 ? v : v.clone(), round == 0);
                assertEquals(expected.intValue(), id, "id of a value of length " + v.length);
                assertArrayEquals(v, dictionary.binaryAt(id));
            }
        }
        assertEquals(model.size(), dictionary.size());
    }

    @Test
    void fixedWidthBitsGetTheirFirstSeenIds() {
        Random random = new Random(12);
        ValueDictionary dictionary = new ValueDictionary(false);
        Map<Long, Integer> model = new HashMap<>();
        for (int k = 0; k < 50_000; k++) {
            long bits = switch (k % 3) {
                case 0 -> Double.doubleToRawLongBits(random.nextInt(5_000) / 10.0);
                case 1 -> random.nextInt(1_000) * 1_000_000L; // low bits all zero
                default -> random.nextLong();
            };
            Integer expected = model.computeIfAbsent(bits, b -> model.size());
            assertEquals(expected.intValue(), dictionary.id(bits));
            assertEquals(bits, dictionary.longAt(expected));
        }
        assertEquals(model.size(), dictionary.size());
    }

    @Test
    void theHashReadsEveryByteAndTheLength() {
        Set<Long> hashes = new HashSet<>();
        for (int n = 0; n <= 24; n++) {
            hashes.add(ValueDictionary.hash(new byte[n]));
            for (int at = 0; at < n; at++) {
                byte[] one = new byte[n];
                one[at] = 1;
                long h = ValueDictionary.hash(one);
                assertNotEquals(ValueDictionary.hash(new byte[n]), h, "byte " + at + " of " + n);
                hashes.add(h);
            }
        }
        // 25 lengths of zeros, and one set byte at each place of each length: all different
        assertEquals(25 + 24 * 25 / 2, hashes.size());
    }
}
