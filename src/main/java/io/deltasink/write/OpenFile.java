package io.deltasink.write;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;

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

    /** Creates the file at {@code path} (it must not exist) and opens a Parquet writer on it. */
    static OpenFile create(FileSystem fs, Path path, String relativePath, Map<String, String> partitionValues,
                           RowWriteSupport writeSupport, WriterSettings settings, SharedCompressor compressor,
                           Configuration conf) throws IOException {
        CountingOutputFile output = new CountingOutputFile(fs, path);
        ParquetWriter<Object[]> writer = new RowParquetWriterBuilder(output, writeSupport)
                .withConf(conf)
                .withWriteMode(ParquetFileWriter.Mode.CREATE)
                .withCompressionCodec(settings.codec())
                .withCodecFactory(compressor)
                .withRowGroupSize(settings.rowGroupSizeBytes())
                .withPageSize(settings.pageSizeBytes())
                .withDictionaryPageSize(settings.dictionaryPageSizeBytes())
                .withDictionaryEncoding(true)
                .withPageWriteChecksumEnabled(false)
                .withValidation(false)
                .build();
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

    /** Closes without describing the file; used before deleting it. */
    void closeForAbort() throws IOException {
        bufferedBytes = 0;
        writer.close();
    }
}
