package io.deltasink.write;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * How {@link PartitionedWriter} writes Parquet files.
 *
 * @param compression         codec: {@code snappy}, {@code zstd}, {@code gzip} or {@code uncompressed}
 * @param rowGroupSizeBytes   buffered bytes at which a row group is flushed to the file
 * @param pageSizeBytes       Parquet page size (and dictionary page size)
 * @param targetFileSizeBytes a file is closed once its size (written plus buffered) reaches this
 * @param bufferMaxBytes      bound on bytes buffered in memory across all open files of one writer;
 *                            above it the open file with the most buffered bytes is closed early
 * @param statsColumns        number of leading data (non-partition) columns that get statistics
 */
public record WriterSettings(String compression, long rowGroupSizeBytes, int pageSizeBytes,
                             long targetFileSizeBytes, long bufferMaxBytes, int statsColumns) {

    public static final String DEFAULT_COMPRESSION = "snappy";
    public static final long DEFAULT_ROW_GROUP_SIZE_BYTES = 8L * 1024 * 1024;
    public static final int DEFAULT_PAGE_SIZE_BYTES = 1024 * 1024;
    public static final long DEFAULT_TARGET_FILE_SIZE_BYTES = 128L * 1024 * 1024;
    public static final long DEFAULT_BUFFER_MAX_BYTES = 32L * 1024 * 1024;
    public static final int DEFAULT_STATS_COLUMNS = 32;

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
    }

    /** All defaults: snappy, 8 MiB row groups, 1 MiB pages, 128 MiB files, 32 MiB buffer, 32 stats columns. */
    public static WriterSettings defaults() {
        return new WriterSettings(DEFAULT_COMPRESSION, DEFAULT_ROW_GROUP_SIZE_BYTES, DEFAULT_PAGE_SIZE_BYTES,
                DEFAULT_TARGET_FILE_SIZE_BYTES, DEFAULT_BUFFER_MAX_BYTES, DEFAULT_STATS_COLUMNS);
    }

    public WriterSettings withCompression(String value) {
        return new WriterSettings(value, rowGroupSizeBytes, pageSizeBytes, targetFileSizeBytes, bufferMaxBytes,
                statsColumns);
    }

    public WriterSettings withRowGroupSizeBytes(long value) {
        return new WriterSettings(compression, value, pageSizeBytes, targetFileSizeBytes, bufferMaxBytes,
                statsColumns);
    }

    public WriterSettings withPageSizeBytes(int value) {
        return new WriterSettings(compression, rowGroupSizeBytes, value, targetFileSizeBytes, bufferMaxBytes,
                statsColumns);
    }

    public WriterSettings withTargetFileSizeBytes(long value) {
        return new WriterSettings(compression, rowGroupSizeBytes, pageSizeBytes, value, bufferMaxBytes,
                statsColumns);
    }

    public WriterSettings withBufferMaxBytes(long value) {
        return new WriterSettings(compression, rowGroupSizeBytes, pageSizeBytes, targetFileSizeBytes, value,
                statsColumns);
    }

    public WriterSettings withStatsColumns(int value) {
        return new WriterSettings(compression, rowGroupSizeBytes, pageSizeBytes, targetFileSizeBytes,
                bufferMaxBytes, value);
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

    private static void positive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
    }
}
