package io.deltasink.write;

import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import io.deltasink.model.Column;
import io.deltasink.model.DataFile;

/**
 * One Parquet file being written for one table partition. Each value is encoded once into its
 * column's buffer ({@link RowColumns}, {@link ColumnChunkBuffer}), pages are compressed as they fill,
 * and row groups are cut the way Parquet's writer cuts them ({@link #checkRowGroupSize()}) and
 * written through Parquet's file writer, which writes the footer with its statistics and the column
 * and offset indexes. Values and statistics are those of Parquet's own writer for the same rows; the
 * bytes of pages are not (page boundaries and run encodings differ).
 *
 * <p>A table with struct, array or map columns is written through parquet-mr's record path instead
 * ({@link #createNested}, {@link NestedRecords}): our column buffers encode flat columns only
 * (definition levels 0/1, no repetition levels), and Parquet's own writer gets the levels of nested
 * data right by construction; it cuts row groups itself.
 */
final class OpenFile {
    /** Rows between two measurements of the buffered size; a power of two. */
    static final int MEASURE_EVERY_ROWS = 8;
    /** Bytes of strings and binary values written that bring the next measurement forward. */
    static final long MEASURE_AFTER_BYTES = 16 * 1024;
    private final String relativePath;
    private final Map<String, String> partitionValues;
    private final CountingOutputFile output;
    private final ParquetFileWriter fileWriter;
    private final ParquetProperties props;
    private final RowColumns columns;
    private final long rowGroupSizeBytes;
    private final ColumnChunkBuffer[] buffers;
    private long nextRowGroupSize;
    /** Rows in the open row group, and the count at which its size is checked next. */
    private long groupRows;
    private long nextSizeCheck;
    /** Where the last finished row group ends in the file. */
    private long lastRowGroupEndPos;
    private long dataSize;
    private long unmeasuredBytes;
    private long bufferedBytes;
    private long rows;
    private ParquetMetadata footer;
    private boolean closed;
    /** parquet-mr's writer for a table with nested columns; null for the flat encoder. */
    private final ParquetWriter<Object[]> recordWriter;

    private OpenFile(String relativePath, Map<String, String> partitionValues, CountingOutputFile output,
                     ParquetFileWriter fileWriter, ParquetProperties props, RowColumns columns,
                     BytesInputCompressor compressor, long rowGroupSizeBytes) {
        this.recordWriter = null;
        List<ColumnDescriptor> descriptors = columns.schema().getColumns();
        this.buffers = new ColumnChunkBuffer[descriptors.size()];
        for (int i = 0; i < buffers.length; i++) {
            ColumnDescriptor d = descriptors.get(i);
            buffers[i] = new ColumnChunkBuffer(d, props.isDictionaryEnabled(d), props.getPageSizeThreshold(),
                    props.getPageRowCountLimit(), props.getDictionaryPageSizeThreshold(), compressor, columns.scratch());
        }
        this.relativePath = relativePath;
        this.partitionValues = partitionValues;
        this.output = output;
        this.fileWriter = fileWriter;
        this.props = props;
        this.columns = columns;
        this.rowGroupSizeBytes = rowGroupSizeBytes;
        this.nextRowGroupSize = rowGroupSizeBytes;
        this.nextSizeCheck = props.getMinRowCountForPageSizeCheck();
    }

    private OpenFile(String relativePath, Map<String, String> partitionValues, CountingOutputFile output,
                     ParquetWriter<Object[]> recordWriter) {
        this.recordWriter = recordWriter;
        this.relativePath = relativePath;
        this.partitionValues = partitionValues;
        this.output = output;
        this.fileWriter = null;
        this.props = null;
        this.columns = null;
        this.buffers = new ColumnChunkBuffer[0];
        this.rowGroupSizeBytes = 0;
    }

    /** Creates the file at {@code path} (it must not exist) for a table with nested columns, written by parquet-mr. */
    static OpenFile createNested(FileSystem fs, Path path, String relativePath, Map<String, String> partitionValues,
                                 NestedRecords records, WriterSettings settings, SharedCompressor compressor,
                                 Configuration conf) throws IOException {
        CountingOutputFile output = new CountingOutputFile(fs, path);
        ParquetWriter<Object[]> writer = settings.configure(new RecordsBuilder(output, records), compressor, conf).build();
        return new OpenFile(relativePath, partitionValues, output, writer);
    }

    private static final class RecordsBuilder extends ParquetWriter.Builder<Object[], RecordsBuilder> {
        private final NestedRecords records;

        RecordsBuilder(CountingOutputFile output, NestedRecords records) {
            super(output);
            this.records = records;
        }

        @Override
        protected RecordsBuilder self() {
            return this;
        }

        @Override
        protected WriteSupport<Object[]> getWriteSupport(Configuration conf) {
            return records.writeSupport();
        }
    }

    /**
     * Creates the file at {@code path} (it must not exist) and starts writing it, with dictionary
     * encoding for every column but {@code plainColumns} (Parquet column names).
     */
    static OpenFile create(FileSystem fs, Path path, String relativePath, Map<String, String> partitionValues,
                           RowColumns columns, WriterSettings settings, SharedCompressor compressor,
                           Set<String> plainColumns) throws IOException {
        CountingOutputFile output = new CountingOutputFile(fs, path);
        ParquetProperties props = settings.properties(plainColumns);
        ParquetFileWriter fileWriter = new ParquetFileWriter(output, columns.schema(), ParquetFileWriter.Mode.CREATE,
                settings.rowGroupSizeBytes(), ParquetWriter.MAX_PADDING_SIZE_DEFAULT, null, props);
        fileWriter.start();
        return new OpenFile(relativePath, partitionValues, output, fileWriter, props, columns,
                compressor.getCompressor(settings.codec()), settings.rowGroupSizeBytes());
    }

    /**
     * Writes one checked row. The file's size and its bytes still in memory are measured after the
     * first row, every {@link #MEASURE_EVERY_ROWS} rows, after a row group was written, and
     * once the rows since the last measurement hold {@link #MEASURE_AFTER_BYTES} of strings and
     * binary values.
     */
    void write(Object[] row) throws IOException {
        if (recordWriter != null) {
            recordWriter.write(row);
            rows++;
            dataSize = recordWriter.getDataSize();
            bufferedBytes = Math.max(0, dataSize - output.bytesWritten());
            return;
        }
        unmeasuredBytes += columns.write(row, buffers);
        rows++;
        groupRows++;
        boolean flushed = false;
        if (groupRows >= nextSizeCheck) {
            flushed = checkRowGroupSize();
        }
        if (flushed || (rows & (MEASURE_EVERY_ROWS - 1)) == 1 || unmeasuredBytes >= MEASURE_AFTER_BYTES) {
            measure();
        }
    }

    /**
     * The file's size: written bytes plus the open row group as Parquet's writer counts it (compressed
     * pages plus the open pages); the bytes held: what the column buffers hold on the heap (the
     * scratch arrays for encoding a page are shared by all files of a writer, like its compressor).
     */
    private void measure() {
        dataSize = lastRowGroupEndPos + groupSize();
        long held = 0;
        for (ColumnChunkBuffer b : buffers) {
            held += b.heapBytes();
        }
        bufferedBytes = held;
        unmeasuredBytes = 0;
    }

    private long groupSize() {
        long size = 0;
        for (ColumnChunkBuffer b : buffers) {
            size += b.bufferedSize();
        }
        return size;
    }

    /**
     * Parquet's own rule ({@code InternalParquetRecordWriter}): the row group is written once its
     * buffered size comes within two rows of the row group size or it holds the row count limit;
     * the size is checked again halfway to the row count where it would be reached, at most
     * Parquet's maximum row count for a size check later.
     */
    private boolean checkRowGroupSize() throws IOException {
        int minCheck = props.getMinRowCountForPageSizeCheck();
        int maxCheck = props.getMaxRowCountForPageSizeCheck();
        long memSize = groupSize();
        long recordSize = memSize / groupRows;
        if (groupRows >= props.getRowGroupRowCountLimit() || memSize > nextRowGroupSize - 2 * recordSize) {
            flushRowGroup();
            nextSizeCheck = minCheck;
            return true;
        } else {
            nextSizeCheck = Math.min(Math.max(minCheck, (groupRows + (long) (nextRowGroupSize / (float) recordSize)) / 2),
                    groupRows + maxCheck);
            return false;
        }
    }

    /** Writes the open row group to the file (nothing when it is empty). */
    private void flushRowGroup() throws IOException {
        if (groupRows > 0) {
            fileWriter.startBlock(groupRows);
            for (ColumnChunkBuffer b : buffers) {
                try {
                    b.writeTo(fileWriter);
                } catch (IOException e) {
                    throw streamFailure(e);
                }
            }
            groupRows = 0;
            fileWriter.endBlock();
            nextRowGroupSize = Math.min(fileWriter.getNextRowGroupSize(), rowGroupSizeBytes);
            lastRowGroupEndPos = fileWriter.getPos();
        }
    }

    /**
     * Parquet's file writer wraps a failure of the output stream while it writes a page header in an
     * exception of its own ("can not write PageHeader(...)", around Thrift's transport exception); the
     * stream's failure is what happened.
     */
    private static IOException streamFailure(IOException e) {
        if (String.valueOf(e.getMessage()).startsWith("can not write ")) {
            for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
                if (cause instanceof IOException io) {
                    return io;
                }
            }
        }
        return e;
    }

    String relativePath() {
        return relativePath;
    }

    long rows() {
        return rows;
    }

    /** Size of the file so far, counting what is still buffered, as of the last write. */
    long dataSize() {
        return dataSize;
    }

    /** Bytes held in memory for the open row group, as of the last write. */
    long bufferedBytes() {
        return bufferedBytes;
    }

    /** Closes the file (writing the footer) and describes it for the {@code add} action. */
    DataFile close(List<Column> statsColumns, long modificationTime) throws IOException {
        if (closed) {
            throw new IOException(relativePath + " is closed");
        }
        closed = true;
        bufferedBytes = 0;
        if (recordWriter != null) {
            recordWriter.close();
            footer = recordWriter.getFooter();
            return new DataFile(relativePath, partitionValues, output.bytesWritten(), modificationTime,
                    FooterStats.of(footer, statsColumns));
        }
        try {
            flushRowGroup();
            fileWriter.end(Map.of(ParquetWriter.OBJECT_MODEL_NAME_PROP, RowColumns.WRITER_NAME));
        } finally {
            fileWriter.close();
        }
        footer = fileWriter.getFooter();
        DataFile.FileStats stats = FooterStats.of(footer, statsColumns);
        return new DataFile(relativePath, partitionValues, output.bytesWritten(), modificationTime, stats);
    }

    /**
     * The columns of the closed file whose dictionary was given up: some or all of their pages are
     * not dictionary-encoded, because the dictionary outgrew its page (Parquet then re-encodes the
     * values already buffered plainly and writes no dictionary page). Boolean columns (never
     * dictionary-encoded) and chunks holding only nulls do not count.
     */
    Set<String> dictionaryFallbacks() {
        return dictionaryFallbacks(footer);
    }

    static Set<String> dictionaryFallbacks(ParquetMetadata footer) {
        Set<String> out = new LinkedHashSet<>();
        for (BlockMetaData block : footer.getBlocks()) {
            for (ColumnChunkMetaData column : block.getColumns()) {
                var stats = column.getEncodingStats();
                if (stats != null && stats.hasNonDictionaryEncodedPages()
                        && column.getPrimitiveType().getPrimitiveTypeName() != PrimitiveTypeName.BOOLEAN
                        && column.getStatistics() != null && !column.getStatistics().isEmpty()
                        && column.getStatistics().getNumNulls() < column.getValueCount()) {
                    out.add(column.getPath().toDotString());
                }
            }
        }
        return out;
    }

    /** Closes without describing the file; used before deleting it. */
    void closeForAbort() throws IOException {
        bufferedBytes = 0;
        if (!closed) {
            closed = true;
            if (recordWriter != null) {
                recordWriter.close();
                return;
            }
            fileWriter.close();
        }
    }
}
