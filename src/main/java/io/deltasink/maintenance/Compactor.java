package io.deltasink.maintenance;

import java.time.Clock;

import io.deltasink.storage.StorageSettings;

/**
 * Bin-packing compaction of one Delta table: per table partition, small files rewritten into files
 * near the target size, committed as one version of remove and add actions with dataChange=false.
 * Safe beside streaming appends and other compactions. The caller owns {@code storage}.
 */
public final class Compactor {

    public Compactor(StorageSettings storage, Clock clock) {
        throw new UnsupportedOperationException("contract: implemented on the compaction branch");
    }

    /** What {@link #run} would rewrite now, without writing anything (version -1). */
    public CompactionResult plan(CompactionOptions options) {
        throw new UnsupportedOperationException("contract: implemented on the compaction branch");
    }

    /** Plans, rewrites and commits. Throws when the table cannot be read or written. */
    public CompactionResult run(CompactionOptions options) {
        throw new UnsupportedOperationException("contract: implemented on the compaction branch");
    }
}
