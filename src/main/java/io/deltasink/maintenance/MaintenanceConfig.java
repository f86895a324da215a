package io.deltasink.maintenance;

import java.time.Duration;

import io.deltasink.config.DeltaSinkConfig;

/** The compaction and vacuum options a connector config asks for (its compaction.* and vacuum.* keys). */
public final class MaintenanceConfig {
    private MaintenanceConfig() {
    }

    /**
     * The compaction defaults with the config's target size, bound per run, minimum age and codec; the
     * small-file size keeps the defaults' ratio to the target.
     */
    public static CompactionOptions compaction(DeltaSinkConfig config) {
        return CompactionOptions.defaults().withTargetFileBytesScaled(config.compactionTargetFileBytes())
                .withMaxBytesPerRun(config.compactionMaxBytesPerRun())
                .withMinAge(Duration.ofMillis(config.compactionMinAgeMs()))
                .withCompression(config.compression());
    }

    /**
     * The table's retention unless vacuum.retention.ms names one; a retention named there is taken
     * even when shorter than the table's (forced), the floor still applies.
     */
    public static VacuumOptions vacuum(DeltaSinkConfig config) {
        long retention = config.vacuumRetentionMs();
        VacuumOptions defaults = VacuumOptions.defaults();
        return retention < 0 ? defaults : defaults.withRetention(Duration.ofMillis(retention)).withForce(true);
    }
}
