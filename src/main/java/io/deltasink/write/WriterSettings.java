package io.deltasink.write;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * How {@link PartitionedWriter} writes Parquet files.
 *
 * @param compression         codec: {@code snappy}, {@code zstd}, {@code gzip} or {@code uncompressed}
 * @param rowGroupSizeBytes   buffered bytes at which a row group is flushed to the file
 * @param pageSizeBytes       Parquet page size (and dictionary page size)
 * @param targetFileSizeBytes a file is closed once its size (written plus buffered) reaches this
 * @param bufferMaxBytes      bound on the memory one writer counts for its rows and open files (see
 *                            {@link #openFileOverheadBytes(int)}); above it the table partition holding
 *                            the most is written out early
 * @param statsColumns        number of leading data (non-partition) columns that get statistics
 * @param maxOpenFiles        most files open at once; 0 derives it from the bound (see {@link #openFileCap(int)})
 * @param uploadBufferBytes   memory an open file's output stream holds outside the Parquet writer, e.g.
 *                            S3A upload blocks kept in memory; 0 for local files and disk-buffered uploads
 */
public record WriterSettings(String compression, long rowGroupSizeBytes, int pageSizeBytes,
                             long targetFileSizeBytes, long bufferMaxBytes, int statsColumns, int maxOpenFiles,
                             long uploadBufferBytes) {

    public static final String DEFAULT_COMPRESSION = "snappy";
    public static final long DEFAULT_ROW_GROUP_SIZE_BYTES = 8L * 1024 * 1024;
    public static final int DEFAULT_PAGE_SIZE_BYTES = 1024 * 1024;
    public static final long DEFAULT_TARGET_FILE_SIZE_BYTES = 128L * 1024 * 1024;
    public static final long DEFAULT_BUFFER_MAX_BYTES = 32L * 1024 * 1024;
    public static final int DEFAULT_STATS_COLUMNS = 32;

    /**
     * Memory of an open Parquet file besides its rows, counted per file: a fixed part (the file's
     * writer, output stream and footer builders) and a part per data column, rounded up from
     * measurements with Parquet's column writers and a compressor shared by all open files
     * (docs/design.md, "Memory"). Our column buffers' arrays are counted with the rows (held bytes),
     * so these stay an upper bound.
     */
    static final long FILE_OVERHEAD_BYTES = 32 * 1024;
    static final long COLUMN_OVERHEAD_BYTES = 20 * 1024;
    /**
     * A file's bytes held for its rows ({@code OpenFile.bufferedBytes()}: the capacity of its column
     * buffers, compressed pages and dictionaries) are counted times this. They are counted as held,
     * so 1; it was 3 when the count was Parquet's own (raw values and compressed pages, without the
     * dictionaries' hash maps).
     */
    static final int ROW_DATA_FACTOR = 1;
    /**
     * Dictionary pages are at most this big (Parquet's default is the page size): a column with more
     * distinct values per row group falls back to plain encoding sooner, and its dictionary, held on
     * the heap at 2 to 4 times its raw size until then, stays small.
     */
    static final int MAX_DICTIONARY_PAGE_BYTES = 128 * 1024;

    /** The codec names accepted by {@link #compression()}. */
    public static final List<String> COMPRESSIONS = List.of("snappy", "zstd", "gzip", "uncompressed");

    public WriterSettings {
        Objects.requireNonNull(compression, "compression");
        compression = compression.trim().toLowerCase(Locale.ROOT);
        if (!COMPRESSIONS.contains(compression)) {
            throw new IllegalArgumentException("unknown compression '" + compression + "'; valid values: "
                    + String.join(", ", COMPRESSIONS));
        }
        positive("rowGroupSizeBytes", rowGroupSizeBytes);
        positive("pageSizeBytes", pageSizeBytes);
        positive("targetFileSizeBytes", targetFileSizeBytes);
        positive("bufferMaxBytes", bufferMaxBytes);
        if (statsColumns < 0) {
            throw new IllegalArgumentException("statsColumns must be >= 0, was " + statsColumns);
        }
        if (maxOpenFiles < 0) {
            throw new IllegalArgumentException("maxOpenFiles must be >= 0, was " + maxOpenFiles);
        }
        if (uploadBufferBytes < 0) {
            throw new IllegalArgumentException("uploadBufferBytes must be >= 0, was " + uploadBufferBytes);
        }
    }

    /**
     * All defaults: snappy, 8 MiB row groups, 1 MiB pages, 128 MiB files, 32 MiB buffer, 32 stats
     * columns, open files derived from the buffer, local files.
     */
    public static WriterSettings defaults() {
        return new WriterSettings(DEFAULT_COMPRESSION, DEFAULT_ROW_GROUP_SIZE_BYTES, DEFAULT_PAGE_SIZE_BYTES,
                DEFAULT_TARGET_FILE_SIZE_BYTES, DEFAULT_BUFFER_MAX_BYTES, DEFAULT_STATS_COLUMNS, 0, 0);
    }

    /**
     * Sets these settings on a Parquet writer builder, the same for the connector's files and for
     * compaction's: codec through the shared compressor, row group, page and dictionary page sizes,
     * dictionaries on (a column may be turned off on the builder), no page checksums, no size statistics
     * (see {@link #properties}), no validation.
     */
    <T, B extends ParquetWriter.Builder<T, B>> B configure(B builder, SharedCompressor compressor,
                                                            Configuration conf) {
        return builder
                .withConf(conf)
                .withWriteMode(ParquetFileWriter.Mode.CREATE)
                .withCompressionCodec(codec())
                .withCodecFactory(compressor)
                .withRowGroupSize(rowGroupSizeBytes)
                .withPageSize(pageSizeBytes)
                .withDictionaryPageSize(dictionaryPageSizeBytes())
                .withDictionaryEncoding(true)
                .withPageWriteChecksumEnabled(false)
                .withSizeStatisticsEnabled(false)
                .withValidation(false);
    }

    /**
     * Parquet's column settings for the connector's files, the same {@link #configure} gives a
     * writer builder: page and dictionary page sizes, dictionaries on but for {@code plainColumns}
     * (Parquet column names), no page checksums, no size statistics (the optional level histograms and
     * unencoded byte counts per page and chunk: no Delta reader uses them, and counting them per
     * value took about 3% of the writer); Parquet's defaults for the rest, min/max/null count statistics
     * and column indexes included.
     */
    ParquetProperties properties(Set<String> plainColumns) {
        ParquetProperties.Builder builder = ParquetProperties.builder()
                .withPageSize(pageSizeBytes)
                .withDictionaryPageSize(dictionaryPageSizeBytes())
                .withDictionaryEncoding(true)
                .withPageWriteChecksumEnabled(false)
                .withSizeStatisticsEnabled(false);
        for (String column : plainColumns) {
            builder.withDictionaryEncoding(column, false);
        }
        return builder.build();
    }

    public WriterSettings withCompression(String value) {
        return new WriterSettings(value, rowGroupSizeBytes, pageSizeBytes, targetFileSizeBytes, bufferMaxBytes,
                statsColumns, maxOpenFiles, uploadBufferBytes);
    }

    public WriterSettings withRowGroupSizeBytes(long value) {
        return new WriterSettings(compression, value, pageSizeBytes, targetFileSizeBytes, bufferMaxBytes,
                statsColumns, maxOpenFiles, uploadBufferBytes);
    }

    public WriterSettings withPageSizeBytes(int value) {
        return new WriterSettings(compression, rowGroupSizeBytes, value, targetFileSizeBytes, bufferMaxBytes,
                statsColumns, maxOpenFiles, uploadBufferBytes);
    }

    public WriterSettings withTargetFileSizeBytes(long value) {
        return new WriterSettings(compression, rowGroupSizeBytes, pageSizeBytes, value, bufferMaxBytes,
                statsColumns, maxOpenFiles, uploadBufferBytes);
    }

    public WriterSettings withBufferMaxBytes(long value) {
        return new WriterSettings(compression, rowGroupSizeBytes, pageSizeBytes, targetFileSizeBytes, value,
                statsColumns, maxOpenFiles, uploadBufferBytes);
    }

    public WriterSettings withStatsColumns(int value) {
        return new WriterSettings(compression, rowGroupSizeBytes, pageSizeBytes, targetFileSizeBytes, bufferMaxBytes,
                value, maxOpenFiles, uploadBufferBytes);
    }

    public WriterSettings withMaxOpenFiles(int value) {
        return new WriterSettings(compression, rowGroupSizeBytes, pageSizeBytes, targetFileSizeBytes, bufferMaxBytes,
                statsColumns, value, uploadBufferBytes);
    }

    public WriterSettings withUploadBufferBytes(long value) {
        return new WriterSettings(compression, rowGroupSizeBytes, pageSizeBytes, targetFileSizeBytes, bufferMaxBytes,
                statsColumns, maxOpenFiles, value);
    }

    /** The Parquet codec for {@link #compression()}. */
    CompressionCodecName codec() {
        return switch (compression) {
            case "snappy" -> CompressionCodecName.SNAPPY;
            case "zstd" -> CompressionCodecName.ZSTD;
            case "gzip" -> CompressionCodecName.GZIP;
            default -> CompressionCodecName.UNCOMPRESSED;
        };
    }

    /** The codec part of a data file name, including its leading dot; empty for uncompressed. */
    String fileNameCodecPart() {
        return switch (compression) {
            case "snappy" -> ".snappy";
            case "zstd" -> ".zstd";
            case "gzip" -> ".gz";
            default -> "";
        };
    }

    /** A data file's name as Spark names them: {@code part-<counter>-<uuid>.c000<codec>.parquet}. */
    String dataFileName(int counter, UUID id) {
        return String.format(Locale.ROOT, "part-%05d-%s.c000%s.parquet", counter, id, fileNameCodecPart());
    }

    /**
     * Memory counted for one open file of {@code dataColumns} columns besides its rows: measured
     * Parquet writer overhead plus {@link #uploadBufferBytes()}.
     */
    public long openFileOverheadBytes(int dataColumns) {
        return FILE_OVERHEAD_BYTES + COLUMN_OVERHEAD_BYTES * dataColumns + uploadBufferBytes;
    }

    /**
     * Most files open at once: {@link #maxOpenFiles()} when set, else as many as fit their overhead
     * into half of {@link #bufferMaxBytes()} (the other half for rows), at least one.
     */
    public int openFileCap(int dataColumns) {
        if (maxOpenFiles > 0) {
            return maxOpenFiles;
        }
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, bufferMaxBytes / (2 * openFileOverheadBytes(dataColumns))));
    }

    /** Parquet dictionary page size: the page size, at most {@link #MAX_DICTIONARY_PAGE_BYTES}. */
    int dictionaryPageSizeBytes() {
        return Math.min(pageSizeBytes, MAX_DICTIONARY_PAGE_BYTES);
    }

    private static void positive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
    }
}
