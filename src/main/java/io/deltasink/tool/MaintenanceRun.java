package io.deltasink.tool;

import java.time.Clock;
import java.util.Map;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.maintenance.CompactionOptions;
import io.deltasink.maintenance.CompactionResult;
import io.deltasink.maintenance.InspectOptions;
import io.deltasink.maintenance.Inspector;
import io.deltasink.maintenance.MaintenanceConfig;
import io.deltasink.maintenance.TableReport;
import io.deltasink.maintenance.Compactor;
import io.deltasink.maintenance.Vacuum;
import io.deltasink.maintenance.VacuumOptions;
import io.deltasink.maintenance.VacuumResult;
import io.deltasink.storage.StorageSettings;

/**
 * One sub-command against one table: the library's options from the connector config's compaction
 * and vacuum keys as the connector takes them ({@link MaintenanceConfig}: a config file's keys, or
 * the keys' defaults), each command-line option an override; storage built as the connector builds
 * it; and the result record with its text.
 */
final class MaintenanceRun {
    /** A result record (written as JSON) and its text for people. */
    record Outcome(Object result, String text) {
    }

    private final Arguments args;
    private final DeltaSinkConfig config;
    private final Map<String, String> settings;
    private final Clock clock;

    MaintenanceRun(Arguments args, Map<String, String> settings, Clock clock) {
        this.args = args;
        this.settings = settings;
        this.config = new DeltaSinkConfig(settings);
        this.clock = clock;
    }

    Outcome run() {
        // options first: a bad value is reported before storage is touched
        return switch (args.command()) {
            case "inspect" -> inspect(inspectOptions());
            case "optimize" -> optimize(compactionOptions());
            case "vacuum" -> vacuum(vacuumOptions());
            default -> throw new IllegalStateException("no such command " + args.command());
        };
    }

    private Outcome inspect(InspectOptions options) {
        try (StorageSettings storage = StorageSettings.from(config)) {
            TableReport report = new Inspector(storage, clock).inspect(options);
            return new Outcome(report, report.toText());
        }
    }

    private Outcome optimize(CompactionOptions options) {
        try (StorageSettings storage = StorageSettings.from(config)) {
            Compactor compactor = new Compactor(storage, clock);
            CompactionResult result = args.flag(Arguments.DRY_RUN) ? compactor.plan(options) : compactor.run(options);
            return new Outcome(result, result.toText());
        }
    }

    private Outcome vacuum(VacuumOptions options) {
        try (StorageSettings storage = StorageSettings.from(config)) {
            VacuumResult result = new Vacuum(storage, clock).run(options);
            return new Outcome(result, result.toText());
        }
    }

    private InspectOptions inspectOptions() {
        // "small" as compaction sees it for this config, so inspect counts what optimize would rewrite
        InspectOptions options = InspectOptions.defaults()
                .withSmallFileBytes(MaintenanceConfig.compaction(config).smallFileBytes());
        String small = args.value(Arguments.SMALL_FILE_SIZE);
        if (small != null) {
            options = options.withSmallFileBytes(Quantities.bytes(Arguments.SMALL_FILE_SIZE, small));
        }
        String last = args.value(Arguments.LAST_COMMITS);
        if (last != null) {
            options = options.withLastCommits(Quantities.count(Arguments.LAST_COMMITS, last));
        }
        String servers = args.value(Arguments.BOOTSTRAP_SERVERS);
        if (servers == null) {
            servers = settings.get("bootstrap.servers");
        }
        if (servers != null && !servers.isBlank()) {
            options = options.withKafka(Map.of("bootstrap.servers", servers.trim()),
                    settings.get(DeltaSinkConfig.CONNECTOR_NAME), settings.get(DeltaSinkConfig.TXN_APP_ID_TEMPLATE));
        }
        return options;
    }

    /** The config's compaction keys as the connector takes them; each option given overrides its key. */
    private CompactionOptions compactionOptions() {
        CompactionOptions options = MaintenanceConfig.compaction(config);
        String value = args.value(Arguments.TARGET_FILE_SIZE);
        if (value != null) {
            options = options.withTargetFileBytesScaled(Quantities.bytes(Arguments.TARGET_FILE_SIZE, value));
        }
        value = args.value(Arguments.SMALL_FILE_SIZE);
        if (value != null) {
            options = options.withSmallFileBytes(Quantities.bytes(Arguments.SMALL_FILE_SIZE, value));
        }
        value = args.value(Arguments.MIN_FILES);
        if (value != null) {
            options = options.withMinFiles(Quantities.count(Arguments.MIN_FILES, value));
        }
        value = args.value(Arguments.MAX_BYTES);
        if (value != null) {
            options = options.withMaxBytesPerRun(Quantities.bytes(Arguments.MAX_BYTES, value));
        }
        value = args.value(Arguments.MIN_AGE);
        if (value != null) {
            options = options.withMinAge(Quantities.duration(Arguments.MIN_AGE, value));
        }
        value = args.value(Arguments.COMPRESSION);
        if (value != null) {
            options = options.withCompression(value.trim());
        }
        return options;
    }

    /**
     * The config's vacuum.retention.ms as the connector takes it (forced); --retention replaces it and,
     * like any retention under the table's, then needs --force.
     */
    private VacuumOptions vacuumOptions() {
        String retention = args.value(Arguments.RETENTION);
        VacuumOptions options = retention == null ? MaintenanceConfig.vacuum(config)
                : VacuumOptions.defaults().withRetention(Quantities.duration(Arguments.RETENTION, retention));
        return options.withForce(options.force() || args.flag(Arguments.FORCE)).withDryRun(args.flag(Arguments.DRY_RUN));
    }
}
