package io.deltasink.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.util.Random;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.junit.jupiter.api.Test;

/**
 * {@link HybridEncoder} against Parquet's own decoder: every bit width from 0 to 32, runs of every
 * length around the 8 that makes an RLE run, literals between them, counts that are not multiples
 * of 8; and a run of one value is a single RLE run.
 */
class HybridEncoderTest {

    @Test
    void parquetsDecoderReadsBackEveryWidthAndRunShape() throws Exception {
        Random random = new Random(7);
        for (int width = 0; width <= 32; width++) {
            for (int round = 0; round < 40; round++) {
                int count = 1 + random.nextInt(round < 20 ? 40 : 3_000);
                int[] values = new int[count];
                int k = 0;
                while (k < count) {
                    int value = randomValue(random, width);
                    int run = random.nextInt(4) == 0 ? 1 + random.nextInt(20) : 1;
                    for (int r = 0; r < run && k < count; r++) {
                        values[k++] = value;
                    }
                }
                assertDecodes(values, width);
            }
        }
    }

    @Test
    void aRunOfOneValueIsOneRleRun() throws Exception {
        int[] ones = new int[20_000];
        java.util.Arrays.fill(ones, 1);
        ByteSink out = new ByteSink(16);
        HybridEncoder.encode(ones, ones.length, 1, out);
        // header: varint of 20,000 << 1 (3 bytes), then the value in one byte
        assertEquals(4, out.size());
        assertDecodes(ones, 1);
        int[] max = new int[100];
        java.util.Arrays.fill(max, -1);
        ByteSink wide = new ByteSink(16);
        HybridEncoder.encode(max, max.length, 32, wide);
        assertEquals(2 + 4, wide.size(), "a header of 100 << 1 in two bytes, a 32-bit value in 4");
        assertDecodes(max, 32);
    }

    @Test
    void aRunIsWhatEncodeMakesOfThatManyEqualValues() {
        for (int count = HybridEncoder.MIN_RUN; count < 2_000; count += count < 200 ? 1 : 97) {
            for (int width : new int[] {1, 3, 8, 9, 17, 32}) {
                int value = width == 32 ? -7 : (1 << width) - 1;
                int[] values = new int[count];
                java.util.Arrays.fill(values, value);
                ByteSink encoded = new ByteSink(16);
                HybridEncoder.encode(values, count, width, encoded);
                ByteSink run = new ByteSink(16);
                HybridEncoder.run(value, count, width, run);
                assertEquals(java.util.Arrays.toString(java.util.Arrays.copyOf(encoded.array(), encoded.size())),
                        java.util.Arrays.toString(java.util.Arrays.copyOf(run.array(), run.size())), count + " x " + width);
            }
        }
    }

    @Test
    void bitWidths() {
        assertEquals(0, HybridEncoder.bitWidth(0));
        assertEquals(1, HybridEncoder.bitWidth(1));
        assertEquals(8, HybridEncoder.bitWidth(255));
        assertEquals(9, HybridEncoder.bitWidth(256));
        assertTrue(HybridEncoder.bitWidth(Integer.MAX_VALUE) == 31);
    }

    private static int randomValue(Random random, int width) {
        if (width == 0) {
            return 0;
        }
        if (width == 32) {
            return random.nextInt(4) == 0 ? -1 : random.nextInt();
        }
        long bound = 1L << width;
        return (int) (random.nextInt(4) == 0 ? bound - 1 : random.nextLong(bound));
    }

    private static void assertDecodes(int[] values, int width) throws Exception {
        ByteSink out = new ByteSink(16);
        HybridEncoder.encode(values, values.length, width, out);
        RunLengthBitPackingHybridDecoder decoder = new RunLengthBitPackingHybridDecoder(width,
                new ByteArrayInputStream(out.array(), 0, out.size()));
        for (int i = 0; i < values.length; i++) {
            assertEquals(values[i], decoder.readInt(), "value " + i + " of " + values.length + ", width " + width);
        }
    }
}
