package io.deltasink.maintenance;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

import io.deltasink.write.WriterSettings;

/**
 * What one compaction run may do. Build with {@link #defaults()} and the {@code with} methods.
 *
 * <p>The defaults suit a Raspberry Pi writing to local disk or S3 (docs/design.md, "Compaction"):
 * 128 MiB files, the writer's own target and a size readers and S3 handle well (few requests per
 * GiB, row groups worth a range read); files under a quarter of it are small, so a file is rewritten
 * at most about twice on its way to full size; a table partition needs 4 small files, so a run never
 * rewrites a partition to save one or two files; at most 1 GiB of input per run, a few minutes of
 * a Pi's CPU and I/O; partitions written to within the last hour are left to the writer.
 *
 * @param targetFileBytes a rewritten file is closed near this size
 * @param smallFileBytes  files below this size are candidates for rewriting
 * @param minFiles        a table partition is compacted only when it holds at least this many small files
 * @param maxBytesPerRun  bound on the input bytes one run rewrites (whole bins; at least one bin)
 * @param minAge          a table partition whose newest file is younger than this is left alone (still being written)
 * @param compression     Parquet codec of the new files
 */
public record CompactionOptions(long targetFileBytes, long smallFileBytes, int minFiles, long maxBytesPerRun,
                                Duration minAge, String compression) {

    public static final long DEFAULT_TARGET_FILE_BYTES = 128L * 1024 * 1024;
    public static final long DEFAULT_SMALL_FILE_BYTES = DEFAULT_TARGET_FILE_BYTES / 4;
    public static final int DEFAULT_MIN_FILES = 4;
    public static final long DEFAULT_MAX_BYTES_PER_RUN = 1024L * 1024 * 1024;
    public static final Duration DEFAULT_MIN_AGE = Duration.ofHours(1);

    public CompactionOptions {
        positive("targetFileBytes", targetFileBytes);
        positive("smallFileBytes", smallFileBytes);
        positive("minFiles", minFiles);
        positive("maxBytesPerRun", maxBytesPerRun);
        Objects.requireNonNull(minAge, "minAge");
        if (minAge.isNegative()) {
            throw new IllegalArgumentException("minAge must not be negative, was " + minAge);
        }
        Objects.requireNonNull(compression, "compression");
        if (!WriterSettings.COMPRESSIONS.contains(compression.trim().toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("unknown compression '" + compression + "'; valid values: "
                    + String.join(", ", WriterSettings.COMPRESSIONS));
        }
    }

    /** 128 MiB files, small below 32 MiB, at least 4 small files, 1 GiB per run, 1 hour, snappy. */
    public static CompactionOptions defaults() {
        return new CompactionOptions(DEFAULT_TARGET_FILE_BYTES, DEFAULT_SMALL_FILE_BYTES, DEFAULT_MIN_FILES,
                DEFAULT_MAX_BYTES_PER_RUN, DEFAULT_MIN_AGE, WriterSettings.DEFAULT_COMPRESSION);
    }

    public CompactionOptions withTargetFileBytes(long bytes) {
        return new CompactionOptions(bytes, smallFileBytes, minFiles, maxBytesPerRun, minAge, compression);
    }

    /**
     * The target, with the small-file size following it at the defaults' ratio (a quarter): one who
     * names only the target gets files rewritten at most about twice on their way to it.
     */
    public CompactionOptions withTargetFileBytesScaled(long bytes) {
        long small = Math.max(1, Math.round((double) bytes * DEFAULT_SMALL_FILE_BYTES / DEFAULT_TARGET_FILE_BYTES));
        return new CompactionOptions(bytes, small, minFiles, maxBytesPerRun, minAge, compression);
    }

    public CompactionOptions withSmallFileBytes(long bytes) {
        return new CompactionOptions(targetFileBytes, bytes, minFiles, maxBytesPerRun, minAge, compression);
    }

    public CompactionOptions withMinFiles(int files) {
        return new CompactionOptions(targetFileBytes, smallFileBytes, files, maxBytesPerRun, minAge, compression);
    }

    public CompactionOptions withMaxBytesPerRun(long bytes) {
        return new CompactionOptions(targetFileBytes, smallFileBytes, minFiles, bytes, minAge, compression);
    }

    public CompactionOptions withMinAge(Duration age) {
        return new CompactionOptions(targetFileBytes, smallFileBytes, minFiles, maxBytesPerRun, age, compression);
    }

    public CompactionOptions withCompression(String codec) {
        return new CompactionOptions(targetFileBytes, smallFileBytes, minFiles, maxBytesPerRun, minAge, codec);
    }

    private static void positive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
    }
}
