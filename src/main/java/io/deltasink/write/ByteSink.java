package io.deltasink.write;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/** A growable byte array values are encoded into once, little endian as Parquet's PLAIN encoding wants. */
final class ByteSink {
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private byte[] bytes;
    private int size;

    ByteSink(int initialCapacity) {
        bytes = new byte[initialCapacity];
    }

    int size() {
        return size;
    }

    /** Bytes held, the array's whole capacity. */
    int capacity() {
        return bytes.length;
    }

    byte[] array() {
        return bytes;
    }

    void reset() {
        size = 0;
    }

    private void ensure(int more) {
        if (size + more > bytes.length) {
            long wanted = Math.max((long) size + more, 2L * bytes.length);
            if (wanted > Integer.MAX_VALUE - 16) {
                if ((long) size + more > Integer.MAX_VALUE - 16) {
                    throw new IllegalStateException("a page of more than 2 GiB");
                }
                wanted = Integer.MAX_VALUE - 16;
            }
            bytes = Arrays.copyOf(bytes, (int) wanted);
        }
    }

    void putByte(int b) {
        ensure(1);
        bytes[size++] = (byte) b;
    }

    void putIntLE(int v) {
        ensure(4);
        INT.set(bytes, size, v);
        size += 4;
    }

    void putLongLE(long v) {
        ensure(8);
        LONG.set(bytes, size, v);
        size += 8;
    }

    /** The low {@code count} bytes (0 to 8) of {@code v}, little endian. */
    void putLowBytesLE(long v, int count) {
        ensure(Long.BYTES);
        LONG.set(bytes, size, v);
        size += count;
    }

    void putBytes(byte[] b, int offset, int length) {
        ensure(length);
        System.arraycopy(b, offset, bytes, size, length);
        size += length;
    }

    /** An unsigned LEB128 varint. */
    void putVarInt(int v) {
        while ((v & ~0x7F) != 0) {
            putByte((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        putByte(v);
    }
}
