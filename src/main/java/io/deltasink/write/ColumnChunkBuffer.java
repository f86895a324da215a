package io.deltasink.write;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.statistics.SizeStatistics;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * One column of the open row group, encoded as its values arrive: each value once into a growable
 * byte array (PLAIN, little endian; booleans bit-packed) or, while the column keeps a dictionary,
 * as a dictionary id; definition levels only for an optional column; min, max and null count of the
 * open page as primitives, compared as Parquet compares the column's type (signed ints, floats and
 * doubles by {@code Float.compare}/{@code Double.compare} as Parquet's statistics do, strings and
 * binary unsigned lexicographically, fixed-length decimals as signed big-endian integers; strings and
 * binary with a dictionary compare each distinct id of the page once, when it is cut). A page is
 * cut at the page size or the page row count limit, compressed and kept until the row group is
 * written ({@link #writeTo}) through Parquet's file writer, which builds footer, column and offset
 * indexes from the page statistics.
 *
 * <p>Dictionaries follow Parquet's writer (version 1 pages): none for booleans and fixed-length
 * values; a dictionary whose PLAIN size passes the dictionary page size is given up, the open page's
 * values re-encoded plainly and the rest of the chunk written plainly, the dictionary page keeping
 * the entries the pages written before used; a first page whose ids and dictionary are not smaller
 * than its plain values gives the dictionary up too. Each row group starts a new dictionary.
 */
final class ColumnChunkBuffer {
    private static final int INITIAL_IDS = 64;
    private static final VarHandle BIG_ENDIAN_LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.BIG_ENDIAN);

    private final ColumnDescriptor descriptor;
    private final PrimitiveType type;
    private final PrimitiveTypeName physical;
    private final boolean optional;
    private final boolean dictionaryEnabled;
    private final int fixedLength;
    private final int pageSize;
    private final int pageRowLimit;
    private final int maxDictionaryBytes;
    private final BytesInputCompressor compressor;
    private final PageScratch scratch;

    private final SlabSink values = new SlabSink();
    /** Definition levels of the open page, a bit per value (optional columns only). */
    private long[] definedBits;
    private int[] ids;
    /** A bit per dictionary id, set while {@link #idStatistics} folds a page's ids; all clear between. */
    private long[] seenIds;
    private int booleanBits;
    private int booleanCount;

    private int pageValues;
    /** Bytes the open page may grow by before {@link #endValue} looks at its size; below 0 it looks. */
    private long room;
    /** Values the open page may take before {@link #endValue} looks at it; at 0 it looks. */
    private int valuesLeft = 1;
    private int pageNulls;
    private long pageRawBytes;
    private boolean hasValue;
    private long minLong;
    private long maxLong;
    private float minFloat;
    private float maxFloat;
    private double minDouble;
    private double maxDouble;
    private byte[] minBytes;
    private byte[] maxBytes;

    private ValueDictionary dictionary;
    /** Entries whose PLAIN size is in {@link #dictionaryBytes}. */
    private int dictionaryEntriesCounted;
    private boolean fallenBack;
    private long dictionaryBytes;
    private int dictionaryUsed;
    private boolean firstPage = true;

    private final List<Page> pages = new ArrayList<>();
    private long pageBytesHeld;
    private long chunkValues;

    private record Page(byte[] bytes, int uncompressedSize, int valueCount, Statistics<?> statistics,
                        SizeStatistics sizeStatistics, Encoding definitionEncoding, Encoding valueEncoding) {
    }

    /** Scratch arrays for encoding one page, shared by the columns of the files of one writer thread. */
    static final class PageScratch {
        final ByteSink page = new ByteSink(4096);
        final ByteSink levels = new ByteSink(256);
        final ByteSink ids = new ByteSink(1024);
        int[] ints = new int[1024];

        int[] ints(int count) {
            if (ints.length < count) {
                ints = new int[Math.max(count, ints.length * 2)];
            }
            return ints;
        }
    }

    ColumnChunkBuffer(ColumnDescriptor descriptor, boolean dictionary, int pageSize, int pageRowLimit,
                      int maxDictionaryBytes, BytesInputCompressor compressor, PageScratch scratch) {
        this.descriptor = descriptor;
        this.type = descriptor.getPrimitiveType();
        this.physical = type.getPrimitiveTypeName();
        this.optional = descriptor.getMaxDefinitionLevel() > 0;
        this.dictionaryEnabled = dictionary && physical != PrimitiveTypeName.BOOLEAN
                && physical != PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY;
        this.fixedLength = type.getTypeLength();
        this.pageSize = pageSize;
        this.pageRowLimit = pageRowLimit;
        this.maxDictionaryBytes = maxDictionaryBytes;
        this.compressor = compressor;
        this.scratch = scratch;
        if (optional) {
            definedBits = new long[4];
        }
        startChunk();
    }

    private void startChunk() {
        dictionary = dictionaryEnabled ? new ValueDictionary(physical == PrimitiveTypeName.BINARY) : null;
        ids = dictionary != null ? new int[INITIAL_IDS] : null;
        dictionaryBytes = 0;
        dictionaryUsed = 0;
        dictionaryEntriesCounted = 0;
        fallenBack = false;
        firstPage = true;
    }

    void writeNull() throws IOException {
        if (!optional) {
            throw new IllegalStateException("null in required column " + descriptor);
        }
        if ((pageValues >>> 6) >= definedBits.length) {
            definedBits = Arrays.copyOf(definedBits, Math.max(definedBits.length * 2, (pageValues >>> 6) + 1));
        }
        if (pageNulls == 0) {
            // the page's first null: the values before it are defined
            Arrays.fill(definedBits, 0, pageValues >>> 6, -1L);
            if ((pageValues & 63) != 0) {
                definedBits[pageValues >>> 6] = -1L >>> (64 - (pageValues & 63));
            }
        }
        pageNulls++;
        endValue(0); // its definition bit stays 0
    }

    /** The value's definition bit; none is kept while the page has no null (see {@link #writeNull}). */
    private void defined() {
        if (optional && pageNulls > 0) {
            int word = pageValues >>> 6;
            if (word == definedBits.length) {
                definedBits = Arrays.copyOf(definedBits, word * 2);
            }
            definedBits[word] |= 1L << pageValues;
        }
    }

    void writeInt(int v) throws IOException {
        defined();
        if (!hasValue) {
            hasValue = true;
            minLong = v;
            maxLong = v;
        } else if (v < minLong) {
            minLong = v;
        } else if (v > maxLong) {
            maxLong = v;
        }
        if (dictionaryEncoding()) {
            addId(dictionary.id(v), 4);
        } else {
            values.putIntLE(v);
        }
        endValue(4);
    }

    void writeLong(long v) throws IOException {
        defined();
        if (!hasValue) {
            hasValue = true;
            minLong = v;
            maxLong = v;
        } else if (v < minLong) {
            minLong = v;
        } else if (v > maxLong) {
            maxLong = v;
        }
        if (dictionaryEncoding()) {
            addId(dictionary.id(v), 8);
        } else {
            values.putLongLE(v);
        }
        endValue(8);
    }

    void writeFloat(float v) throws IOException {
        defined();
        if (!hasValue) {
            hasValue = true;
            minFloat = v;
            maxFloat = v;
        } else {
            if (Float.compare(v, minFloat) < 0) {
                minFloat = v;
            }
            if (Float.compare(v, maxFloat) > 0) {
                maxFloat = v;
            }
        }
        int bits = Float.floatToRawIntBits(v);
        if (dictionaryEncoding()) {
            addId(dictionary.id(bits), 4);
        } else {
            values.putIntLE(bits);
        }
        endValue(4);
    }

    void writeDouble(double v) throws IOException {
        defined();
        if (!hasValue) {
            hasValue = true;
            minDouble = v;
            maxDouble = v;
        } else {
            if (Double.compare(v, minDouble) < 0) {
                minDouble = v;
            }
            if (Double.compare(v, maxDouble) > 0) {
                maxDouble = v;
            }
        }
        long bits = Double.doubleToRawLongBits(v);
        if (dictionaryEncoding()) {
            addId(dictionary.id(bits), 8);
        } else {
            values.putLongLE(bits);
        }
        endValue(8);
    }

    void writeBoolean(boolean v) throws IOException {
        defined();
        int bit = v ? 1 : 0;
        if (!hasValue) {
            hasValue = true;
            minLong = bit;
            maxLong = bit;
        } else {
            // 0 and 1 only: no branch, so the first value unlike the others is no trap in the JIT's code
            minLong &= bit;
            maxLong |= bit;
        }
        booleanBits |= bit << booleanCount;
        if (++booleanCount == 8) {
            values.putByte(booleanBits);
            booleanBits = 0;
            booleanCount = 0;
        }
        endValue(1); // a byte every eighth value
    }

    /**
     * A byte array or fixed-length value; {@code owned}: nobody changes the array later, so it may be
     * kept (as min, max or dictionary entry) without a copy.
     */
    void writeBinary(byte[] v, boolean owned) throws IOException {
        defined();
        boolean fixed = physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY;
        if (!fixed && dictionaryEncoding()) {
            // min and max from the page's distinct ids when the page is cut or the dictionary given up (idStatistics)
            addId(dictionary.id(v, owned), 4 + v.length);
            endValue(4 + v.length);
            return;
        }
        if (!hasValue) {
            hasValue = true;
            minBytes = owned ? v : v.clone();
            maxBytes = minBytes;
        } else if (compareBinary(v, minBytes, fixed) < 0) {
            minBytes = owned ? v : v.clone();
        } else if (compareBinary(v, maxBytes, fixed) > 0) {
            maxBytes = owned ? v : v.clone();
        }
        if (fixed) {
            values.putBytes(v, 0, fixedLength);
        } else {
            if (dictionaryEncoding()) {
                addId(dictionary.id(v, owned), 4 + v.length);
            } else {
                values.putIntLE(v.length);
                values.putBytes(v, 0, v.length);
            }
        }
        endValue(fixed ? fixedLength : 4 + v.length);
    }

    /** Parquet's order: unsigned lexicographic; fixed-length decimals as signed big-endian integers. */
    private static int compareBinary(byte[] a, byte[] b, boolean signed) {
        if (signed && a.length > 0 && a[0] != b[0]) {
            return Byte.compare(a[0], b[0]);
        }
        return compareUnsigned(a, b);
    }

    /**
     * {@code Arrays.compareUnsigned} in sign: eight bytes at a time as big-endian longs, which the
     * values of a column (texts with a common start) leave after a word or two.
     */
    static int compareUnsigned(byte[] a, byte[] b) {
        if (a == b) {
            return 0;
        }
        int n = Math.min(a.length, b.length);
        int k = 0;
        for (int last = n - Long.BYTES; k <= last; k += Long.BYTES) {
            long x = (long) BIG_ENDIAN_LONGS.get(a, k);
            long y = (long) BIG_ENDIAN_LONGS.get(b, k);
            if (x != y) {
                return Long.compareUnsigned(x, y);
            }
        }
        for (; k < n; k++) {
            if (a[k] != b[k]) {
                return Integer.compare(a[k] & 0xFF, b[k] & 0xFF);
            }
        }
        return Integer.compare(a.length, b.length);
    }

    private void addId(int id, int plainBytes) {
        pageRawBytes += plainBytes;
        int index = pageValues - pageNulls;
        if (index == ids.length) {
            ids = Arrays.copyOf(ids, index * 2);
        }
        ids[index] = id;
        if (dictionary.size() > dictionaryEntriesCounted) { // a new entry
            dictionaryEntriesCounted++;
            dictionaryBytes += plainBytes;
            if (dictionaryBytes > maxDictionaryBytes) {
                fallBack();
            }
        }
    }

    /** Gives the dictionary up: the open page's ids become PLAIN values, and so do the chunk's next values. */
    private void fallBack() {
        int count = pageValues + 1 - pageNulls; // the value being written is in
        idStatistics(count);
        values.reset();
        for (int k = 0; k < count; k++) {
            putPlain(ids[k]);
        }
        if (dictionaryUsed == 0) {
            dictionary = null; // no page uses it: no dictionary page
        }
        ids = null;
        fallenBack = true;
    }

    /**
     * Folds the first {@code count} ids of the open page into its min and max (byte array columns,
     * whose dictionary-encoded values skip the per-value comparisons): each distinct id once.
     */
    private void idStatistics(int count) {
        if (physical != PrimitiveTypeName.BINARY || count == 0) {
            return;
        }
        int words = ((dictionary.size() - 1) >>> 6) + 1;
        if (seenIds == null || seenIds.length < words) {
            seenIds = new long[Math.max(words, 4)];
        }
        long[] seen = seenIds;
        for (int k = 0; k < count; k++) {
            int id = ids[k];
            long bit = 1L << id;
            if ((seen[id >>> 6] & bit) != 0) {
                continue;
            }
            seen[id >>> 6] |= bit;
            byte[] v = dictionary.binaryAt(id);
            if (!hasValue) {
                hasValue = true;
                minBytes = v;
                maxBytes = v;
            } else if (compareBinary(v, minBytes, false) < 0) {
                minBytes = v;
            } else if (compareBinary(v, maxBytes, false) > 0) {
                maxBytes = v;
            }
        }
        Arrays.fill(seen, 0, words, 0L);
    }

    private boolean dictionaryEncoding() {
        return dictionary != null && !fallenBack;
    }

    /** The first {@code count} dictionary ids' values, PLAIN. */
    private void putPlain(int[] ids, int count) {
        for (int k = 0; k < count; k++) {
            putPlain(ids[k]);
        }
    }

    /** The first {@code count} definition levels, 1 for a value, 0 for a null, from the page's bits. */
    private static int[] definitionLevels(long[] definedBits, int count, boolean allDefined, int[] out) {
        for (int k = 0; k < count; k++) {
            out[k] = allDefined ? 1 : (int) (definedBits[k >>> 6] >>> k) & 1;
        }
        return out;
    }

    private void putPlain(int id) {
        switch (physical) {
            case INT32, FLOAT -> values.putIntLE((int) dictionary.longAt(id));
            case INT64, DOUBLE -> values.putLongLE(dictionary.longAt(id));
            default -> {
                byte[] b = dictionary.binaryAt(id);
                values.putIntLE(b.length);
                values.putBytes(b, 0, b.length);
            }
        }
    }

    /**
     * Counts the value just written, {@code valueBytes} at most added to the page's values, and cuts
     * the page once it holds the page row count limit or its size reaches the page size. The size
     * is looked at only when the values since the last look may have added {@link #room} bytes (each
     * value's bytes, and one for a definition level), so the page is cut at the same value as when
     * it was looked at after every value. The first value of every page looks, so the JIT has seen
     * the look taken before it compiles the loops that write values: a branch it has never seen taken
     * becomes a trap, and the page's first cut would send the writer's compiled loops back to be
     * compiled again.
     */
    private void endValue(int valueBytes) throws IOException {
        pageValues++;
        // one branch ("|" evaluates both): a second, first taken at a page's row limit, would be a trap too
        if ((room -= valueBytes + 1) < 0 | --valuesLeft == 0) {
            lookAtPage();
        }
    }

    /**
     * Cuts the page when it is full; otherwise the bytes and values it may take before the next look.
     * Apart from {@link #endValue}, where it runs once in many values.
     */
    private void lookAtPage() throws IOException {
        long size = pageBufferedSize();
        if (pageValues >= pageRowLimit || size >= pageSize) {
            writePage();
            return;
        }
        room = pageSize - 1 - size;
        valuesLeft = pageRowLimit - pageValues;
    }

    /** Bytes of the open page as Parquet's writer counts them (dictionary-encoded values at their PLAIN size). */
    long pageBufferedSize() {
        long levels = optional ? (pageValues >>> 3) : 0;
        return levels + (dictionaryEncoding() ? pageRawBytes : values.size());
    }

    /** Values (nulls included) in the open page. */
    int openPageValues() {
        return pageValues;
    }

    /** The row group's bytes as Parquet's writer counts them: compressed pages plus the open page. */
    long bufferedSize() {
        return pageBytesHeld + pageBufferedSize();
    }

    /** Heap bytes this column holds: arrays of the open page, compressed pages, dictionary. */
    long heapBytes() {
        long bytes = values.capacity() + pageBytesHeld + 64L * pages.size();
        if (definedBits != null) {
            bytes += 8L * definedBits.length;
        }
        if (ids != null) {
            bytes += 4L * ids.length;
        }
        if (seenIds != null) {
            bytes += 8L * seenIds.length;
        }
        if (dictionaryEncoding()) {
            bytes += dictionary.heapBytes();
        }
        return bytes;
    }

    /**
     * Encodes, compresses and keeps the open page; nothing when it is empty. Its loops are methods of
     * their own: it runs once a page, so the JIT compiles the loops alone instead of this whole method
     * with all it calls (and again after each rare branch first taken in it).
     */
    private void writePage() throws IOException {
        if (pageValues == 0) {
            return;
        }
        int nonNull = pageValues - pageNulls;
        Encoding valueEncoding = Encoding.PLAIN;
        ByteSink encodedIds = null; // the page's values when they are dictionary ids
        if (dictionaryEncoding()) {
            idStatistics(nonNull);
            ByteSink idBytes = scratch.ids;
            idBytes.reset();
            int bitWidth = HybridEncoder.bitWidth(dictionary.size() - 1);
            idBytes.putByte(bitWidth);
            HybridEncoder.encode(ids, nonNull, bitWidth, idBytes);
            if (firstPage && idBytes.size() + dictionaryBytes >= pageRawBytes) {
                // Parquet's rule: a dictionary that does not make the first page smaller is given up
                values.reset();
                putPlain(ids, nonNull);
                dictionary = null;
                ids = null;
                fallenBack = true;
            } else {
                valueEncoding = Encoding.PLAIN_DICTIONARY;
                dictionaryUsed = dictionary.size();
                encodedIds = idBytes;
            }
        }
        if (encodedIds == null && booleanCount > 0) {
            values.putByte(booleanBits);
            booleanBits = 0;
            booleanCount = 0;
        }
        ByteSink page = scratch.page;
        page.reset();
        if (optional) {
            ByteSink levels = scratch.levels;
            levels.reset();
            if (pageNulls == 0 && pageValues >= HybridEncoder.MIN_RUN) {
                HybridEncoder.run(1, pageValues, 1, levels); // what encode makes of as many ones
            } else {
                int[] bits = definitionLevels(definedBits, pageValues, pageNulls == 0, scratch.ints(pageValues));
                HybridEncoder.encode(bits, pageValues, 1, levels);
            }
            page.putIntLE(levels.size());
            page.putBytes(levels.array(), 0, levels.size());
            if (pageNulls > 0) {
                Arrays.fill(definedBits, 0, ((pageValues - 1) >>> 6) + 1, 0L);
            }
        }
        if (encodedIds != null) {
            page.putBytes(encodedIds.array(), 0, encodedIds.size());
        } else {
            values.copyTo(page);
        }
        int uncompressed = page.size();
        byte[] compressed = compress(page);
        pages.add(new Page(compressed, uncompressed, pageValues, pageStatistics(),
                SizeStatistics.noopBuilder(type, 0, optional ? 1 : 0).build(), // none, as WriterSettings asks of Parquet
                optional ? Encoding.RLE : Encoding.BIT_PACKED, valueEncoding));
        pageBytesHeld += compressed.length;
        chunkValues += pageValues;
        firstPage = false;
        values.reset();
        pageValues = 0;
        room = 0;
        valuesLeft = 1;
        pageNulls = 0;
        pageRawBytes = 0;
        hasValue = false;
        minBytes = null;
        maxBytes = null;
    }

    private byte[] compress(ByteSink bytes) throws IOException {
        byte[] out = compressor.compress(BytesInput.from(bytes.array(), 0, bytes.size())).toByteArray();
        // the shared compressor reuses its output buffer, and "uncompressed" may hand the input back
        return out == bytes.array() ? out.clone() : out;
    }

    private Statistics<?> pageStatistics() {
        Statistics<?> s = Statistics.createStats(type);
        s.incrementNumNulls(pageNulls);
        if (hasValue) {
            switch (physical) {
                case INT32 -> {
                    s.updateStats((int) minLong);
                    s.updateStats((int) maxLong);
                }
                case INT64 -> {
                    s.updateStats(minLong);
                    s.updateStats(maxLong);
                }
                case FLOAT -> {
                    s.updateStats(minFloat);
                    s.updateStats(maxFloat);
                }
                case DOUBLE -> {
                    s.updateStats(minDouble);
                    s.updateStats(maxDouble);
                }
                case BOOLEAN -> {
                    s.updateStats(minLong != 0);
                    s.updateStats(maxLong != 0);
                }
                default -> {
                    s.updateStats(Binary.fromConstantByteArray(minBytes));
                    s.updateStats(Binary.fromConstantByteArray(maxBytes));
                }
            }
        }
        return s;
    }

    /**
     * Writes the chunk (dictionary page first, then the data pages) between {@code startColumn} and
     * {@code endColumn} of {@code writer}, and starts the next chunk empty.
     */
    void writeTo(ParquetFileWriter writer) throws IOException {
        writePage();
        writer.startColumn(descriptor, chunkValues, compressor.getCodecName());
        if (dictionary != null && dictionaryUsed > 0) {
            ByteSink page = scratch.page;
            page.reset();
            for (int id = 0; id < dictionaryUsed; id++) {
                switch (physical) {
                    case INT32, FLOAT -> page.putIntLE((int) dictionary.longAt(id));
                    case INT64, DOUBLE -> page.putLongLE(dictionary.longAt(id));
                    default -> {
                        byte[] b = dictionary.binaryAt(id);
                        page.putIntLE(b.length);
                        page.putBytes(b, 0, b.length);
                    }
                }
            }
            int uncompressed = page.size();
            writer.writeDictionaryPage(new DictionaryPage(BytesInput.from(compress(page)), uncompressed,
                    dictionaryUsed, Encoding.PLAIN_DICTIONARY));
        }
        for (Page p : pages) {
            writer.writeDataPage(p.valueCount, p.uncompressedSize, BytesInput.from(p.bytes), p.statistics,
                    p.valueCount, Encoding.BIT_PACKED, p.definitionEncoding, p.valueEncoding, null, null,
                    p.sizeStatistics);
        }
        writer.endColumn();
        pages.clear();
        pageBytesHeld = 0;
        chunkValues = 0;
        values.shrink();
        if (definedBits != null && definedBits.length > 4) {
            definedBits = new long[4];
        }
        startChunk();
    }
}
