package io.deltasink.maintenance;

import java.time.Duration;

import io.deltasink.config.DeltaSinkConfig;

/** The compaction and vacuum options a connector config asks for (its compaction.* and vacuum.* keys). */
public final class MaintenanceConfig {
    private MaintenanceConfig() {
    }

    /**
     * The compaction defaults with the config's target size, bound per run, minimum age and codec. A
     * file counts as small below half the target at most, so files a compaction wrote are never
     * rewritten again for being small.
     */
    public static CompactionOptions compaction(DeltaSinkConfig config) {
        CompactionOptions defaults = CompactionOptions.defaults();
        long target = config.compactionTargetFileBytes();
        return defaults.withTargetFileBytes(target)
                .withSmallFileBytes(Math.min(defaults.smallFileBytes(), target / 2))
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
