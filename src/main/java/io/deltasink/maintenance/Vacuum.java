package io.deltasink.maintenance;

import java.time.Clock;

import io.deltasink.storage.StorageSettings;

/**
 * Deletes files under a table that its current snapshot does not reference and that have been
 * unreferenced longer than the retention, and log files expired per delta.logRetentionDuration.
 * The caller owns {@code storage}.
 */
public final class Vacuum {

    public Vacuum(StorageSettings storage, Clock clock) {
        throw new UnsupportedOperationException("contract: implemented on the vacuum branch");
    }

    /** Throws IllegalArgumentException for a retention refused (shorter than the table's without force, or below the floor). */
    public VacuumResult run(VacuumOptions options) {
        throw new UnsupportedOperationException("contract: implemented on the vacuum branch");
    }
}
