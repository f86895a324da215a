package io.deltasink.write;

import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import io.deltasink.model.Column;
import io.deltasink.model.DataFile;

/** One Parquet file being written for one table partition. */
final class OpenFile {
    private final String relativePath;
    private final Map<String, String> partitionValues;
    private final CountingOutputFile output;
    private final ParquetWriter<Object[]> writer;
    private long dataSize;
    private long bufferedBytes;
    private long rows;

    private OpenFile(String relativePath, Map<String, String> partitionValues, CountingOutputFile output,
                     ParquetWriter<Object[]> writer) {
        this.relativePath = relativePath;
        this.partitionValues = partitionValues;
        this.output = output;
        this.writer = writer;
    }

    /**
     * Creates the file at {@code path} (it must not exist) and opens a Parquet writer on it, with
     * dictionary encoding for every column but {@code plainColumns} (Parquet column names).
     */
    static OpenFile create(FileSystem fs, Path path, String relativePath, Map<String, String> partitionValues,
                           RowWriteSupport writeSupport, WriterSettings settings, SharedCompressor compressor,
                           Configuration conf, Set<String> plainColumns) throws IOException {
        CountingOutputFile output = new CountingOutputFile(fs, path);
        RowParquetWriterBuilder builder = new RowParquetWriterBuilder(output, writeSupport);
        for (String column : plainColumns) {
            builder.withDictionaryEncoding(column, false);
        }
        ParquetWriter<Object[]> writer = settings.configure(builder, compressor, conf).build();
        return new OpenFile(relativePath, partitionValues, output, writer);
    }

    /** Writes one checked row, then measures the file's size and its bytes still in memory. */
    void write(Object[] row) throws IOException {
        writer.write(row);
        rows++;
        dataSize = writer.getDataSize();
        // getDataSize() = bytes of finished row groups + the open row group buffered in memory
        bufferedBytes = Math.max(0, dataSize - output.bytesWritten());
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
        writer.close();
        bufferedBytes = 0;
        DataFile.FileStats stats = FooterStats.of(writer.getFooter(), statsColumns);
        return new DataFile(relativePath, partitionValues, output.bytesWritten(), modificationTime, stats);
    }

    /**
     * The columns of the closed file whose dictionary was given up: some or all of their pages are
     * not dictionary-encoded, because the dictionary outgrew its page (Parquet then re-encodes the
     * values already buffered plainly and writes no dictionary page). Boolean columns (never
     * dictionary-encoded) and chunks holding only nulls do not count.
     */
    Set<String> dictionaryFallbacks() {
        return dictionaryFallbacks(writer.getFooter());
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
        writer.close();
    }
}
