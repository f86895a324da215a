package io.deltasink.write;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The distinct values of one column chunk in first-seen order, each with its id: fixed-width values
 * keyed by their bits ({@link #id(long)}), byte arrays by their content ({@link #id(byte[])}).
 * Open addressing with linear probing; {@link #heapBytes()} is what it holds.
 */
final class ValueDictionary {
    private static final int INITIAL_SLOTS = 64;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long MIX = 0xBF58476D1CE4E5B9L;

    private long[] longs = new long[16];
    private byte[][] binaries;
    private int size;
    /** Slot -> id + 1; 0 is empty. */
    private int[] slots = new int[INITIAL_SLOTS];
    /** 64 - log2(slots): a key's slot is the top bits of its Fibonacci hash. */
    private int shift = 64 - Integer.numberOfTrailingZeros(INITIAL_SLOTS);
    private long binaryBytes;

    ValueDictionary(boolean binary) {
        if (binary) {
            longs = null;
            binaries = new byte[16][];
        }
    }

    int size() {
        return size;
    }

    long longAt(int id) {
        return longs[id];
    }

    byte[] binaryAt(int id) {
        return binaries[id];
    }

    /** The id of {@code bits}, added as the next id when new. */
    int id(long bits) {
        int mask = slots.length - 1;
        int h = slot(bits, shift);
        while (true) {
            int s = slots[h];
            if (s == 0) {
                if (size == longs.length) {
                    longs = Arrays.copyOf(longs, size * 2);
                }
                longs[size] = bits;
                slots[h] = ++size;
                growIfFull();
                return size - 1;
            }
            if (longs[s - 1] == bits) {
                return s - 1;
            }
            h = (h + 1) & mask;
        }
    }

    /** The id of {@code value}'s content, added (a copy when {@code owned} is false) when new. */
    int id(byte[] value, boolean owned) {
        int mask = slots.length - 1;
        int h = slot(hash(value), shift);
        while (true) {
            int s = slots[h];
            if (s == 0) {
                if (size == binaries.length) {
                    binaries = Arrays.copyOf(binaries, size * 2);
                }
                binaries[size] = owned ? value : value.clone();
                binaryBytes += value.length;
                slots[h] = ++size;
                growIfFull();
                return size - 1;
            }
            if (Arrays.equals(binaries[s - 1], value)) {
                return s - 1;
            }
            h = (h + 1) & mask;
        }
    }

    private void growIfFull() {
        if (size * 2 <= slots.length) {
            return;
        }
        int[] grown = new int[slots.length * 2];
        int mask = grown.length - 1;
        int grownShift = shift - 1;
        for (int id = 0; id < size; id++) {
            int h = slot(longs != null ? longs[id] : hash(binaries[id]), grownShift);
            while (grown[h] != 0) {
                h = (h + 1) & mask;
            }
            grown[h] = id + 1;
        }
        slots = grown;
        shift = grownShift;
    }

    /**
     * A hash of the bytes taken eight at a time (a short array byte by byte), the length mixed in;
     * {@link #slot} spreads it. {@code Arrays.hashCode} takes a multiply-add per byte, one after
     * the other.
     */
    static long hash(byte[] v) {
        int n = v.length;
        long h = n * MIX;
        if (n >= Long.BYTES) {
            int k = 0;
            for (int last = n - Long.BYTES; k < last; k += Long.BYTES) {
                h = Long.rotateLeft(h ^ (long) LONGS.get(v, k), 31) * MIX;
            }
            // the last eight bytes, overlapping the word before when the length is not a multiple of eight
            h = Long.rotateLeft(h ^ (long) LONGS.get(v, n - Long.BYTES), 31) * MIX;
        } else {
            long tail = 0;
            for (int k = 0; k < n; k++) {
                tail = tail << 8 | (v[k] & 0xFF);
            }
            h = Long.rotateLeft(h ^ tail, 31) * MIX;
        }
        return h ^ h >>> 29;
    }

    /**
     * The top bits of the key times 2^64 / golden ratio: every bit of the key counts (a double's
     * low mantissa bits are often all zero, which a mask of the low bits would keep).
     */
    private static int slot(long key, int shift) {
        return (int) ((key * 0x9E3779B97F4A7C15L) >>> shift);
    }

    /** Heap bytes held: the slot table, the value arrays and the byte arrays' contents with headers. */
    long heapBytes() {
        long bytes = 4L * slots.length;
        if (longs != null) {
            bytes += 8L * longs.length;
        } else {
            bytes += 8L * binaries.length + binaryBytes + 16L * size;
        }
        return bytes;
    }
}
