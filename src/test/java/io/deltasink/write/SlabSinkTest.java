package io.deltasink.write;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The slabs of a page's values hold exactly the bytes put, in order, whatever falls on a slab's
 * edge (an int or long split over two slabs, a byte array over several), from page to page.
 */
class SlabSinkTest {

    /** Puts the same random mix into a sink and into a plain reference stream. */
    private static byte[] fill(SlabSink sink, Random random, int puts) {
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (int i = 0; i < puts; i++) {
            switch (random.nextInt(4)) {
                case 0 -> {
                    int b = random.nextInt(256);
                    sink.putByte(b);
                    expected.write(b);
                }
                case 1 -> {
                    int v = random.nextInt();
                    sink.putIntLE(v);
                    expected.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array());
                }
                case 2 -> {
                    long v = random.nextLong();
                    sink.putLongLE(v);
                    expected.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array());
                }
                default -> {
                    // now and then longer than a whole slab
                    byte[] b = new byte[random.nextInt(10) == 0 ? random.nextInt(3 * SlabSink.MAX_SLAB) : random.nextInt(300)];
                    random.nextBytes(b);
                    int offset = b.length == 0 ? 0 : random.nextInt(b.length);
                    sink.putBytes(b, offset, b.length - offset);
                    expected.write(b, offset, b.length - offset);
                }
            }
        }
        return expected.toByteArray();
    }

    private static byte[] contents(SlabSink sink) {
        ByteSink out = new ByteSink(16);
        out.putByte(0x7E); // copyTo appends after what is there
        sink.copyTo(out);
        assertEquals(0x7E, out.array()[0]);
        return Arrays.copyOfRange(out.array(), 1, out.size());
    }

    @Test
    void holdsExactlyTheBytesPutAcrossSlabEdgesPageAfterPage() {
        Random random = new Random(42);
        SlabSink sink = new SlabSink();
        for (int page = 0; page < 40; page++) {
            byte[] expected = fill(sink, random, random.nextInt(3000));
            assertEquals(expected.length, sink.size(), "page " + page);
            assertArrayEquals(expected, contents(sink), "page " + page);
            if (page % 7 == 6) {
                sink.shrink();
                assertEquals(SlabSink.FIRST_SLAB, sink.capacity());
            } else {
                sink.reset();
            }
            assertEquals(0, sink.size());
        }
    }

    @Test
    void everyIntAndLongOffsetAtAnEdgeIsSplitRight() {
        for (int lead = 0; lead < 16; lead++) {
            SlabSink sink = new SlabSink();
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            for (int k = 0; k < SlabSink.FIRST_SLAB - 8 + lead; k++) {
                sink.putByte(k);
                expected.write(k);
            }
            sink.putLongLE(0x0102030405060708L);
            sink.putIntLE(0x0A0B0C0D);
            expected.writeBytes(new byte[] {8, 7, 6, 5, 4, 3, 2, 1, 0x0D, 0x0C, 0x0B, 0x0A});
            assertArrayEquals(expected.toByteArray(), contents(sink), "lead " + lead);
        }
    }

    @Test
    void noSlabIsLargerThanTheLimitAndTheCapacityCountsThemAll() {
        SlabSink sink = new SlabSink();
        byte[] big = new byte[5 * 1024 * 1024];
        sink.putBytes(big, 0, big.length);
        assertEquals(big.length, sink.size());
        // 256 B doubling to 128 KiB, then 128 KiB slabs: capacity within one slab of the size
        long capacity = sink.capacity();
        assertEquals(true, capacity >= big.length && capacity < big.length + SlabSink.MAX_SLAB, "capacity " + capacity);
        sink.reset();
        sink.putBytes(big, 0, big.length);
        assertEquals(capacity, sink.capacity(), "a second page of the same size reuses the slabs");
    }
}
