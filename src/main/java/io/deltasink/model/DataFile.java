package io.deltasink.model;

import java.util.Map;
import java.util.Objects;

/**
 * A Parquet data file ready to be added to the table: what an {@code add} action needs.
 *
 * @param path            path relative to the table root, e.g. {@code device_type=plug/event_date=2026-06-22/part-....parquet}
 * @param partitionValues partition column -> value serialized as Delta specifies (null for a null value)
 * @param size            file size in bytes
 * @param modificationTime file modification time, epoch milliseconds
 * @param stats           statistics taken from the file's footer
 */
public record DataFile(String path, Map<String, String> partitionValues, long size, long modificationTime,
                       FileStats stats) {
    public DataFile {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(partitionValues, "partitionValues");
        Objects.requireNonNull(stats, "stats");
    }

    /**
     * Per-file statistics for data skipping. Keys are column names (data columns only, never
     * partition columns); values use the forms listed on {@link io.deltasink.model.ColumnType}.
     * A column without a min/max entry simply has no bound recorded.
     */
    public record FileStats(long numRecords, Map<String, Object> minValues, Map<String, Object> maxValues,
                            Map<String, Long> nullCount) {
    }
}
