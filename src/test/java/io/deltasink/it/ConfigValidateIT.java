package io.deltasink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.connect.runtime.rest.entities.ConfigInfo;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfos;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.DeltaSinkConnector;

/**
 * {@code PUT /connector-plugins/<class>/config/validate} on a real worker: each bad config comes
 * back with its error on the field to fix, with a message that says what to change; the seed
 * preset comes back without errors. Credentials are never echoed.
 */
class ConfigValidateIT {
    private static final String SECRET = "validate-it-secret-value";

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension("validate", 1);

    @TempDir
    Path table;

    private Map<String, String> preset() {
        Map<String, String> config = ConnectHarness.presetConfig("sensor-events-validate", table);
        config.put("name", "delta-validate");
        return config;
    }

    @Test
    void theSeedPresetHasNoErrors() {
        ConfigInfos infos = validate(preset());
        assertEquals(0, infos.errorCount(), () -> "errors: " + errors(infos));
    }

    @Test
    void missingTableLocation() {
        Map<String, String> config = preset();
        config.remove("table.location");
        assertOnlyError(config, "table.location", "table.location");
    }

    @Test
    void blankTableLocation() {
        Map<String, String> config = preset();
        config.put("table.location", "  ");
        assertOnlyError(config, "table.location", "must be a local path or a URI");
    }

    @Test
    void objectStoreLocationWithoutABucket() {
        Map<String, String> config = preset();
        config.put("table.location", "s3a:///sensor_events");
        assertOnlyError(config, "table.location", "names no bucket or host after 's3a://'");
    }

    @Test
    void partitionColumnThatIsNotAColumn() {
        Map<String, String> config = preset();
        config.put("partition.columns", "device_type,event_day");
        assertOnlyError(config, "partition.columns", "'event_day' is not a column of the mapping in 'columns'");
    }

    @Test
    void mappingWithAnUnknownType() {
        Map<String, String> config = preset();
        config.put("columns", config.get("columns").replace("power:double", "power:dbl"));
        String message = assertOnlyError(config, "columns", "dbl");
        assertTrue(message.contains("valid types") && message.contains("double"), message);
    }

    @Test
    void s3EndpointWithAnAccessKeyButNoSecretKey() {
        Map<String, String> config = s3Preset();
        config.put("s3.access.key", SECRET);
        String message = assertOnlyError(config, "s3.secret.key", "s3.secret.key is required when s3.access.key is set");
        assertTrue(!message.contains(SECRET), message);
        // the response echoes every field's value: the access key is a password, shown hidden
        for (ConfigInfo info : validate(config).configs()) {
            String value = info.configValue().value();
            assertTrue(value == null || !value.contains(SECRET), () -> info.configValue().name() + " echoes " + value);
        }
    }

    @Test
    void s3EndpointWithASecretKeyButNoAccessKey() {
        Map<String, String> config = s3Preset();
        config.put("s3.secret.key", SECRET);
        String message = assertOnlyError(config, "s3.access.key", "s3.access.key is required when s3.secret.key is set");
        assertTrue(!message.contains(SECRET), message);
    }

    @Test
    void s3EndpointWithoutAHost() {
        Map<String, String> config = s3Preset();
        config.put("s3.endpoint", "http://:9000");
        assertOnlyError(config, "s3.endpoint", "expected e.g. http://minio:9000");
    }

    @Test
    void appIdTemplateWithoutThePartition() {
        Map<String, String> config = preset();
        config.put("txn.app.id.template", "${connector}/${topic}");
        assertOnlyError(config, "txn.app.id.template", "${partition} is missing");
    }

    @Test
    void appIdTemplateWithAMisspelledPlaceholder() {
        Map<String, String> config = preset();
        config.put("txn.app.id.template", "${connector}/${topic}/${partiton}");
        assertOnlyError(config, "txn.app.id.template", "unknown placeholder ${partiton}");
    }

    @Test
    void appIdTemplateThatGivesTwoPartitionsTheSameAppId() {
        Map<String, String> config = preset();
        config.put("txn.app.id.template", "${connector}/${topic}${partition}");
        assertOnlyError(config, "txn.app.id.template", "can get the same appId");
    }

    @Test
    void appIdTemplateWithAnUnclosedPlaceholder() {
        Map<String, String> config = preset();
        config.put("txn.app.id.template", "${connector}/${topic}/${partition");
        assertOnlyError(config, "txn.app.id.template", "unclosed placeholder");
    }

    @Test
    void tablePropertyDeltaDoesNotKnow() {
        Map<String, String> config = preset();
        config.put("delta.table.property.delta.enableChangeDataFeed", "true");
        config.put("delta.table.property.delta.enableChangeDatFeed", "true");
        assertOnlyError(config, "delta.table.property.delta.enableChangeDatFeed",
                "table property delta.enableChangeDatFeed=true is refused by Delta Kernel");
    }

    @Test
    void tablePropertyWithAValueDeltaRefuses() {
        Map<String, String> config = preset();
        config.put("delta.table.property.delta.enableChangeDataFeed", "yes");
        config.put("delta.table.property.owner", "sensors");
        assertOnlyError(config, "delta.table.property.delta.enableChangeDataFeed",
                "table property delta.enableChangeDataFeed=yes is refused by Delta Kernel");
    }

    @Test
    void tablePropertyAskingForColumnMapping() {
        Map<String, String> config = preset();
        config.put("delta.table.property.delta.columnMapping.mode", "name");
        assertOnlyError(config, "delta.table.property.delta.columnMapping.mode",
                "is not supported yet: this connector writes tables without column mapping");
    }

    /** The preset pointed at an S3 bucket through an explicit endpoint, credentials not given yet. */
    private Map<String, String> s3Preset() {
        Map<String, String> config = preset();
        config.put("table.location", "s3a://lake/sensor_events");
        config.put("s3.endpoint", "http://127.0.0.1:9000");
        config.put("s3.path.style.access", "true");
        return config;
    }

    /**
     * Validates through the worker's REST API and asserts that {@code field} holds the one error of
     * the whole config and that it contains {@code expected}; returns that message.
     */
    private static String assertOnlyError(Map<String, String> config, String field, String expected) {
        ConfigInfos infos = validate(config);
        Map<String, List<String>> errors = errors(infos);
        assertEquals(List.of(field), List.copyOf(errors.keySet()), () -> "fields with errors: " + errors);
        List<String> messages = errors.get(field);
        assertEquals(1, messages.size(), () -> "errors on " + field + ": " + messages);
        assertTrue(messages.get(0).contains(expected), () -> "error on " + field + ": " + messages.get(0)
                + "\n  expected it to contain: " + expected);
        assertEquals(1, infos.errorCount(), () -> "error count of " + errors);
        return messages.get(0);
    }

    private static ConfigInfos validate(Map<String, String> config) {
        return cluster.harness().connect().validateConnectorConfig(DeltaSinkConnector.class.getName(), config);
    }

    /** Field -> its error messages, for the fields that have any. */
    private static Map<String, List<String>> errors(ConfigInfos infos) {
        Map<String, List<String>> out = new TreeMap<>();
        for (ConfigInfo info : infos.configs()) {
            List<String> messages = info.configValue().errors();
            if (!messages.isEmpty()) {
                out.put(info.configValue().name(), messages);
            }
        }
        return out;
    }
}
