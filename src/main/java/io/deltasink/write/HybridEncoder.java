package io.deltasink.write;

/**
 * Parquet's RLE / bit-packing hybrid encoding of small unsigned ints (definition levels, dictionary
 * ids): a value repeated 8 times or more is one RLE run, the values between runs are bit-packed in
 * groups of 8 (the last group padded with zeros; the page's value count tells a reader where to stop).
 */
final class HybridEncoder {
    private HybridEncoder() {
    }

    /** The shortest repetition {@link #encode} writes as an RLE run. */
    static final int MIN_RUN = 8;

    /** Encodes {@code values[0, count)} of {@code bitWidth} bits (0 to 32) into {@code out}. */
    static void encode(int[] values, int count, int bitWidth, ByteSink out) {
        int literalStart = 0;
        int i = 0;
        while (i < count) {
            int v = values[i];
            int end = i + 1;
            while (end < count && values[end] == v) {
                end++;
            }
            int repeats = end - i;
            int pending = i - literalStart;
            int pad = (8 - (pending & 7)) & 7;
            if (repeats - pad >= MIN_RUN) {
                // fill the last literal group from the run, then the rest of the run is one RLE run
                i += pad;
                if (i > literalStart) {
                    bitPack(values, literalStart, i - literalStart, bitWidth, out);
                }
                run(v, end - i, bitWidth, out);
                literalStart = end;
            }
            i = end;
        }
        if (count > literalStart) {
            bitPack(values, literalStart, count - literalStart, bitWidth, out);
        }
    }

    /** One RLE run: {@code count} times {@code value} of {@code bitWidth} bits. */
    static void run(int value, int count, int bitWidth, ByteSink out) {
        out.putVarInt(count << 1);
        int v = value;
        for (int b = 0; b < (bitWidth + 7) / 8; b++) {
            out.putByte(v & 0xFF);
            v >>>= 8;
        }
    }

    /** One bit-packed run of {@code count} values, padded with zeros to a multiple of 8. */
    private static void bitPack(int[] values, int from, int count, int bitWidth, ByteSink out) {
        int groups = (count + 7) >>> 3;
        out.putVarInt((groups << 1) | 1);
        if (bitWidth == 0) {
            return;
        }
        if (bitWidth <= Byte.SIZE) {
            // a group of 8 values is bitWidth bytes, one long; the last group's missing values are zeros
            int end = from + count;
            for (int k = from; k < end; ) {
                long packed = 0;
                for (int shift = 0, stop = Math.min(k + 8, end); k < stop; shift += bitWidth) {
                    packed |= (long) values[k++] << shift;
                }
                out.putLowBytesLE(packed, bitWidth);
            }
            return;
        }
        long buffer = 0;
        int bits = 0;
        int end = from + groups * 8;
        for (int k = from; k < end; k++) {
            long value = k < from + count ? (values[k] & 0xFFFFFFFFL) : 0;
            buffer |= value << bits;
            bits += bitWidth;
            while (bits >= 8) {
                out.putByte((int) buffer);
                buffer >>>= 8;
                bits -= 8;
            }
        }
        // groups of 8 values fill whole bytes: nothing is left over
    }

    /** Bits needed for values up to {@code max}. */
    static int bitWidth(int max) {
        return 32 - Integer.numberOfLeadingZeros(max);
    }
}
