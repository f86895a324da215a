package io.deltasink;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.ColumnMapping;
import io.deltasink.model.PartitionSpec;
import io.deltasink.model.RowSchema;
import io.deltasink.storage.StorageErrors;
import io.deltasink.storage.StorageProbe;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;

/**
 * Cross-key rules, run by {@code Connector.validate()} so the REST validate call shows them on
 * the right field before any task starts: the mapping parses, not-null columns are columns of the
 * mapping, partition columns follow the rules of {@link PartitionSpec} (the table's); the S3 keys
 * are given in pairs and the S3 endpoint is a URI with a host; compaction, when on, has a trigger;
 * each table property is one Delta accepts ({@link DeltaTable#checkTableProperties}).
 * When everything else is valid and the table is on S3, a short probe of the bucket reports access denied, a missing bucket or an
 * unreachable endpoint on the setting to fix.
 */
final class ConnectorValidation {
    private ConnectorValidation() {
    }

    static void check(Map<String, String> props, Config config) {
        checkStorage(props, config);
        checkCompactionTrigger(props, config);
        checkMaintenanceRoutes(props, config);
        checkTableProperties(props, config);
        if (!hasErrors(config, DeltaSinkConfig.COLUMNS, DeltaSinkConfig.COLUMNS_NOT_NULL,
                DeltaSinkConfig.PARTITION_COLUMNS)) {
            checkMapping(props, config);
        }
        if (config.configValues().stream().allMatch(v -> v.errorMessages().isEmpty())) {
            probeBucket(props, config);
        }
    }

    /**
     * Asks the S3 server (bounded, see {@link StorageProbe}) whether the bucket exists and the keys
     * may read it; a permanent problem or an unreachable endpoint goes on the setting to fix.
     */
    private static void probeBucket(Map<String, String> props, Config config) {
        DeltaSinkConfig parsed;
        StorageSettings storage;
        try {
            parsed = new DeltaSinkConfig(props);
            // a table on local disk has no bucket: no Hadoop configuration (its XML parsed) to build
            if (!StorageErrors.onS3(StorageSettings.normalize(parsed.tableLocationRoot()))) {
                return;
            }
            storage = StorageSettings.from(parsed);
        } catch (RuntimeException e) {
            return; // reported on its field already
        }
        try (storage) {
            StorageProbe.check(storage).ifPresent(failure -> {
                StorageErrors errors = StorageErrors.of(parsed);
                String setting = errors.setting(failure);
                if (setting != null) {
                    String message = errors.message(failure);
                    value(config, setting).ifPresent(v -> v.addErrorMessage(message));
                }
            });
        }
    }

    private static void checkMapping(Map<String, String> props, Config config) {
        DeltaSinkConfig parsed;
        try {
            parsed = new DeltaSinkConfig(props);
        } catch (RuntimeException e) {
            return; // per-key errors are already on their fields
        }
        if (parsed.autoColumns()) {
            if (!parsed.notNullColumns().isEmpty()) {
                value(config, DeltaSinkConfig.COLUMNS_NOT_NULL).ifPresent(v -> v.addErrorMessage(
                        "cannot be used with columns=auto: name the columns in 'columns' to make some NOT NULL"));
            }
            return; // columns come from the first record; the task checks them then
        }
        RowSchema schema;
        try {
            schema = ColumnMapping.parse(parsed.columns(), List.of()).schema();
        } catch (org.apache.kafka.common.config.ConfigException | IllegalArgumentException e) {
            value(config, DeltaSinkConfig.COLUMNS).ifPresent(v -> v.addErrorMessage(e.getMessage()));
            return;
        }
        for (String name : parsed.notNullColumns()) {
            if (schema.indexOf(name) < 0) {
                value(config, DeltaSinkConfig.COLUMNS_NOT_NULL).ifPresent(v -> v.addErrorMessage(
                        "'" + name + "' is not a column of the mapping in 'columns'"));
            }
        }
        for (String problem : PartitionSpec.problems(schema, parsed.partitionColumns())) {
            value(config, DeltaSinkConfig.PARTITION_COLUMNS).ifPresent(v -> v.addErrorMessage(problem));
        }
    }

    /** S3 keys given half, a malformed endpoint: on the field to fix. Never quotes a key's value. */
    private static void checkStorage(Map<String, String> props, Config config) {
        boolean accessKey = given(props, DeltaSinkConfig.S3_ACCESS_KEY);
        boolean secretKey = given(props, DeltaSinkConfig.S3_SECRET_KEY);
        String missing = StorageSettings.missingCredentialKey(accessKey, secretKey);
        if (missing != null && !hasErrors(config, missing)) {
            value(config, missing).ifPresent(v -> v.addErrorMessage(StorageSettings.credentialProblem(missing)));
        }
        if (given(props, DeltaSinkConfig.S3_ENDPOINT) && !hasErrors(config, DeltaSinkConfig.S3_ENDPOINT)) {
            String problem = StorageSettings.endpointProblem(props.get(DeltaSinkConfig.S3_ENDPOINT));
            if (problem != null) {
                value(config, DeltaSinkConfig.S3_ENDPOINT).ifPresent(v -> v.addErrorMessage(problem));
            }
        }
    }

    /** Compaction on with neither a time nor a commit trigger would never run. */
    private static void checkCompactionTrigger(Map<String, String> props, Config config) {
        if (hasErrors(config, DeltaSinkConfig.COMPACTION_ENABLED, DeltaSinkConfig.COMPACTION_INTERVAL_MS,
                DeltaSinkConfig.COMPACTION_INTERVAL_COMMITS)) {
            return;
        }
        DeltaSinkConfig parsed;
        try {
            parsed = new DeltaSinkConfig(props);
        } catch (RuntimeException e) {
            return; // reported on its field already
        }
        if (parsed.compactionEnabled() && parsed.compactionIntervalMs() == 0 && parsed.compactionIntervalCommits() == 0) {
            value(config, DeltaSinkConfig.COMPACTION_INTERVAL_MS).ifPresent(v -> v.addErrorMessage(
                    "compaction would never run: set this or " + DeltaSinkConfig.COMPACTION_INTERVAL_COMMITS
                            + " above 0, or " + DeltaSinkConfig.COMPACTION_ENABLED + "=false"));
        }
    }

    /** Automatic maintenance is not offered with a table per topic yet. */
    private static void checkMaintenanceRoutes(Map<String, String> props, Config config) {
        DeltaSinkConfig parsed;
        try {
            parsed = new DeltaSinkConfig(props);
        } catch (RuntimeException e) {
            return; // reported on its field already
        }
        String route = parsed.routeProblem();
        if (route != null) {
            value(config, DeltaSinkConfig.TABLE_ROUTE_FIELD).ifPresent(v -> v.addErrorMessage(route));
        } else if (parsed.tablePerField()) {
            try {
                ColumnMapping.parse("route:string=" + parsed.routeField(), List.of());
            } catch (ConfigException e) {
                value(config, DeltaSinkConfig.TABLE_ROUTE_FIELD).ifPresent(v -> v.addErrorMessage(
                        "not a path of the mapping grammar: " + e.getMessage()));
            }
        }
        String problem = parsed.maintenanceProblem();
        if (problem != null) {
            value(config, parsed.compactionEnabled() ? DeltaSinkConfig.COMPACTION_ENABLED
                    : DeltaSinkConfig.VACUUM_ENABLED).ifPresent(v -> v.addErrorMessage(problem));
        }
    }

    /**
     * Each delta.table.property.* key on a row of its own (the ConfigDef knows only the wildcard):
     * an unknown delta.* property or a value Delta Kernel refuses, named before the table is created.
     */
    private static void checkTableProperties(Map<String, String> props, Config config) {
        props.forEach((key, value) -> {
            if (key.startsWith(DeltaSinkConfig.TABLE_PROPERTY_PREFIX)) {
                String property = key.substring(DeltaSinkConfig.TABLE_PROPERTY_PREFIX.length());
                try {
                    DeltaTable.checkTableProperties(Collections.singletonMap(property, value));
                } catch (IllegalArgumentException e) {
                    config.configValues().add(new ConfigValue(key, value, List.of(), List.of(e.getMessage())));
                }
            }
        });
    }

    private static boolean given(Map<String, String> props, String key) {
        String v = props.get(key);
        return v != null && !v.trim().isEmpty();
    }

    private static boolean hasErrors(Config config, String... names) {
        for (String name : names) {
            if (value(config, name).map(v -> !v.errorMessages().isEmpty()).orElse(false)) {
                return true;
            }
        }
        return false;
    }

    private static Optional<ConfigValue> value(Config config, String name) {
        return config.configValues().stream().filter(v -> v.name().equals(name)).findFirst();
    }
}
