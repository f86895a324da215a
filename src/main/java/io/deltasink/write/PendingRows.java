package io.deltasink.write;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * Rows of one table partition kept in memory until they are worth a Parquet file of their own
 * (an open file costs tens of KiB before its first row), with an upper estimate of the heap they
 * take: the rows are the converter's arrays of boxed values, counted as a 64-bit JVM with
 * compressed references lays them out, strings at two bytes a character.
 */
final class PendingRows {
    private static final int ARRAY_HEADER = 16;
    private static final int REFERENCE = 4;
    /** The list's slot for the row, with room for its growth. */
    private static final int LIST_SLOT = 8;

    private final List<Object[]> rows = new ArrayList<>();
    private long bytes;

    /** Keeps the row and returns its estimated size in bytes. */
    long add(Object[] row) {
        rows.add(row);
        long size = estimate(row);
        bytes += size;
        return size;
    }

    List<Object[]> rows() {
        return rows;
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    /** Estimated heap bytes of the rows kept. */
    long bytes() {
        return bytes;
    }

    void clear() {
        rows.clear();
        bytes = 0;
    }

    /** Upper estimate of the heap a converted row takes (values in the forms of {@code ColumnType}). */
    static long estimate(Object[] row) {
        long size = align(ARRAY_HEADER + (long) REFERENCE * row.length) + LIST_SLOT;
        for (Object value : row) {
            size += valueBytes(value);
        }
        return size;
    }

    private static long valueBytes(Object value) {
        if (value == null) {
            return 0;
        }
        if (value instanceof String s) {
            return 24 + align(ARRAY_HEADER + 2L * s.length());
        }
        if (value instanceof Long || value instanceof Double) {
            return 24;
        }
        if (value instanceof byte[] b) {
            return align(ARRAY_HEADER + (long) b.length);
        }
        if (value instanceof BigDecimal d) {
            // BigDecimal, its BigInteger and the BigInteger's int[] magnitude
            return 40 + 40 + align(ARRAY_HEADER + 4L * (d.unscaledValue().bitLength() / 32 + 1));
        }
        return 16; // Integer, Short, Byte, Float, Boolean
    }

    private static long align(long bytes) {
        return (bytes + 7) & ~7L;
    }
}
