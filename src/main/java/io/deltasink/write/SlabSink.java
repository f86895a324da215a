package io.deltasink.write;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The PLAIN values of a column's open page, little endian, in slabs: arrays that double from
 * {@link #FIRST_SLAB} bytes up to {@link #MAX_SLAB} and are never copied to grow. A page of a wide
 * text column reaches the page size (1 MiB by default) in a few hundred milliseconds; one growing array
 * would be copied a dozen times on the way for every file and, from half of G1's smallest region
 * (512 KiB) on, allocated straight into the old generation as a humongous object, where it stays
 * until a collection that marks it. Slabs stay below that size and are kept from page to page.
 */
final class SlabSink {
    static final int FIRST_SLAB = 256;
    static final int MAX_SLAB = 128 * 1024;
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** Every slab held, in order; those after {@link #current} are empty, kept for the next bytes. */
    private final List<byte[]> slabs = new ArrayList<>();
    private int current;
    private byte[] slab;
    private int pos;
    /** Bytes in the slabs before the current one (each of them full). */
    private long before;
    private long capacity;

    SlabSink() {
        slab = new byte[FIRST_SLAB];
        slabs.add(slab);
        capacity = FIRST_SLAB;
    }

    long size() {
        return before + pos;
    }

    /** Bytes held, every slab's whole length. */
    long capacity() {
        return capacity;
    }

    /** Empties the sink; its slabs are kept for the next page. */
    void reset() {
        current = 0;
        slab = slabs.get(0);
        pos = 0;
        before = 0;
    }

    /** Empties the sink and drops every slab but the first, so one large page does not stay. */
    void shrink() {
        while (slabs.size() > 1) {
            capacity -= slabs.remove(slabs.size() - 1).length;
        }
        reset();
    }

    /** Appends the bytes held, in order, to {@code out}. */
    void copyTo(ByteSink out) {
        for (int k = 0; k < current; k++) {
            byte[] full = slabs.get(k);
            out.putBytes(full, 0, full.length);
        }
        out.putBytes(slab, 0, pos);
    }

    /** The next slab, once the current one is full. */
    private void advance() {
        before += slab.length;
        current++;
        if (current == slabs.size()) {
            byte[] next = new byte[Math.min(MAX_SLAB, 2 * slab.length)];
            slabs.add(next);
            capacity += next.length;
        }
        slab = slabs.get(current);
        pos = 0;
    }

    void putByte(int b) {
        if (pos == slab.length) {
            advance();
        }
        slab[pos++] = (byte) b;
    }

    void putIntLE(int v) {
        if (slab.length - pos >= 4) {
            INT.set(slab, pos, v);
            pos += 4;
        } else {
            for (int k = 0; k < 4; k++) {
                putByte(v >>> (8 * k));
            }
        }
    }

    void putLongLE(long v) {
        if (slab.length - pos >= 8) {
            LONG.set(slab, pos, v);
            pos += 8;
        } else {
            for (int k = 0; k < 8; k++) {
                putByte((int) (v >>> (8 * k)));
            }
        }
    }

    void putBytes(byte[] b, int offset, int length) {
        while (length > 0) {
            if (pos == slab.length) {
                advance();
            }
            int n = Math.min(length, slab.length - pos);
            System.arraycopy(b, offset, slab, pos, n);
            pos += n;
            offset += n;
            length -= n;
        }
    }
}
