package io.deltasink.maintenance;

import java.time.Duration;

/**
 * What one vacuum run may do. Build with {@link #defaults()} and the {@code with} methods.
 *
 * @param retention files unreferenced for less than this are kept; null: the table's
 *                  delta.deletedFileRetentionDuration (7 days by default)
 * @param force     allows a retention shorter than the table's (never below the floor)
 * @param dryRun    lists what would be deleted, deletes nothing
 */
public record VacuumOptions(Duration retention, boolean force, boolean dryRun) {

    public static VacuumOptions defaults() {
        return new VacuumOptions(null, false, false);
    }

    public VacuumOptions withRetention(Duration value) {
        return new VacuumOptions(value, force, dryRun);
    }

    public VacuumOptions withForce(boolean value) {
        return new VacuumOptions(retention, value, dryRun);
    }

    public VacuumOptions withDryRun(boolean value) {
        return new VacuumOptions(retention, force, value);
    }
}
