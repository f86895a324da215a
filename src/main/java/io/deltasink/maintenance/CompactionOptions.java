package io.deltasink.maintenance;

import java.time.Duration;

/**
 * What one compaction run may do. Build with {@link #defaults()} and the {@code with} methods.
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

    public static CompactionOptions defaults() {
        throw new UnsupportedOperationException("contract: implemented on the compaction branch");
    }

    public CompactionOptions withTargetFileBytes(long bytes) {
        return new CompactionOptions(bytes, smallFileBytes, minFiles, maxBytesPerRun, minAge, compression);
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
}
