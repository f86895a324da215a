package io.deltasink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.runtime.AbstractHerder;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfos;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.ColumnMapping;
import io.deltasink.model.PartitionSpec;
import io.deltasink.model.RowSchema;
import io.deltasink.storage.StorageSettings;
import io.deltasink.testing.LogCapture;

class DeltaSinkConnectorTest {

    static Map<String, String> presetConfig() throws Exception {
        JsonNode config = new ObjectMapper().readTree(new File("connector-config/sensor-events-local.json")).get("config");
        Map<String, String> props = new HashMap<>();
        config.fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
        props.put("name", "sensor-events-delta");
        return props;
    }

    private static List<String> errors(Config config, String key) {
        return config.configValues().stream().filter(v -> v.name().equals(key)).findFirst()
                .map(ConfigValue::errorMessages).orElseThrow();
    }

    private static long errorCount(Config config) {
        return config.configValues().stream().mapToLong(v -> v.errorMessages().size()).sum();
    }

    @Test
    void theSeedPresetValidatesCleanly() throws Exception {
        Config config = new DeltaSinkConnector().validate(presetConfig());
        assertEquals(0, errorCount(config), config.configValues().toString());
    }

    @Test
    void aTablePerTopicWithTopicsRegexValidatesWithoutAutomaticMaintenance() throws Exception {
        Map<String, String> props = presetConfig();
        props.remove("topics");
        props.put("topics.regex", "sensor-.*");
        props.put("errors.deadletterqueue.topic.name", "dlq-sensors");
        props.put("table.location", "/tmp/delta/${topic}");
        Config config = new DeltaSinkConnector().validate(props);
        List<String> errs = errors(config, "compaction.enabled");
        assertEquals(1, errs.size(), config.configValues().toString());
        assertTrue(errs.get(0).contains("${topic}"), errs.get(0));
        props.put("compaction.enabled", "false");
        props.put("vacuum.enabled", "false");
        config = new DeltaSinkConnector().validate(props);
        assertEquals(0, errorCount(config), config.configValues().toString());
    }

    @Test
    void partitionColumnMustBeAColumn() throws Exception {
        Map<String, String> props = presetConfig();
        props.put("partition.columns", "device_type,event_day");
        Config config = new DeltaSinkConnector().validate(props);
        List<String> errs = errors(config, "partition.columns");
        assertEquals(1, errs.size(), errs.toString());
        assertTrue(errs.get(0).contains("event_day"), errs.get(0));
    }

    @Test
    void partitionColumnRulesAreTheTablesAndShowOnTheirField() throws Exception {
        Map<String, String> props = presetConfig();
        props.put("columns", "id:long=id, raw:binary=raw, day:date=@timestamp");
        props.put("columns.not.null", "");
        RowSchema schema = ColumnMapping.parse(props.get("columns"), List.of()).schema();
        for (String partitions : List.of("raw", "day,day", "id,raw,day", "day,nope")) {
            props.put("partition.columns", partitions);
            List<String> expected = PartitionSpec.problems(schema, List.of(partitions.split(",")));
            assertTrue(!expected.isEmpty(), partitions);
            assertEquals(expected, errors(new DeltaSinkConnector().validate(props), "partition.columns"), partitions);
        }
    }

    @Test
    void mappingErrorsShowOnTheColumnsField() throws Exception {
        Map<String, String> props = presetConfig();
        props.put("columns", props.get("columns").replace("power:double", "power:dbl"));
        Config config = new DeltaSinkConnector().validate(props);
        List<String> errs = errors(config, "columns");
        assertEquals(1, errs.size(), errs.toString());
        assertTrue(errs.get(0).contains("dbl") && errs.get(0).contains("valid types"), errs.get(0));
    }

    @Test
    void notNullColumnsMustBeColumns() throws Exception {
        Map<String, String> props = presetConfig();
        props.put("columns.not.null", "device_id,serial");
        Config config = new DeltaSinkConnector().validate(props);
        assertTrue(errors(config, "columns.not.null").stream().anyMatch(m -> m.contains("serial")),
                errors(config, "columns.not.null").toString());
    }

    @Test
    void missingTableLocationIsReportedOnItsField() throws Exception {
        Map<String, String> props = presetConfig();
        props.remove("table.location");
        Config config = new DeltaSinkConnector().validate(props);
        assertEquals(1, errors(config, "table.location").size());
    }

    @Test
    void halfGivenS3KeysAreReportedOnTheMissingField() throws Exception {
        Map<String, String> props = presetConfig();
        props.put("s3.access.key", "minio");
        Config config = new DeltaSinkConnector().validate(props);
        List<String> errs = errors(config, "s3.secret.key");
        assertEquals(1, errs.size(), errs.toString());
        assertTrue(errs.get(0).contains("s3.access.key"), errs.get(0));
        assertEquals(1, errorCount(config), config.configValues().toString());

        props.remove("s3.access.key");
        props.put("s3.secret.key", "Sup3r-Secret-Value-xyz");
        config = new DeltaSinkConnector().validate(props);
        errs = errors(config, "s3.access.key");
        assertEquals(1, errs.size(), errs.toString());
        assertEquals(1, errorCount(config), config.configValues().toString());
        assertTrue(config.configValues().stream().flatMap(v -> v.errorMessages().stream())
                .noneMatch(m -> m.contains("Sup3r-Secret-Value-xyz")));

        props.put("s3.access.key", "minio");
        assertEquals(0, errorCount(new DeltaSinkConnector().validate(props)));
    }

    @Test
    void malformedS3EndpointIsReportedOnItsField() throws Exception {
        Map<String, String> props = presetConfig();
        props.put("s3.endpoint", "http:///no-host");
        Config config = new DeltaSinkConnector().validate(props);
        List<String> errs = errors(config, "s3.endpoint");
        assertEquals(1, errs.size(), errs.toString());
        assertTrue(errs.get(0).contains("no host"), errs.get(0));

        props.put("s3.endpoint", "http://127.0.0.1:9000");
        assertEquals(0, errorCount(new DeltaSinkConnector().validate(props)));
    }

    @Test
    void tasksGetTheConnectorConfigAndTheirIndex() throws Exception {
        DeltaSinkConnector c = new DeltaSinkConnector();
        c.start(presetConfig());
        List<Map<String, String>> tasks = c.taskConfigs(3);
        assertEquals(3, tasks.size());
        for (int i = 0; i < 3; i++) {
            Map<String, String> expected = presetConfig();
            expected.put(DeltaSinkConfig.TASK_INDEX, Integer.toString(i));
            assertEquals(expected, tasks.get(i));
        }
        assertEquals(DeltaSinkTask.class, c.taskClass());
    }

    @Test
    void theS3AccessKeyIsNeitherLoggedNorEchoedByValidate() throws Exception {
        String accessKey = "AKIA-access-key-Q7w2Rt9";
        Map<String, String> props = presetConfig();
        props.put("s3.access.key", accessKey);
        props.put("s3.secret.key", "secret-value-Zx81Lm");
        try (LogCapture logs = new LogCapture("org.apache.kafka.common.config")) {
            DeltaSinkConfig config = new DeltaSinkConfig(props);
            assertEquals(accessKey, config.s3AccessKey(), "the connector still reads it");
            assertTrue(logs.lines().stream().anyMatch(l -> l.contains("s3.access.key")), "the config dump was captured");
            assertEquals(List.of(), logs.linesContaining(accessKey), "the access key was logged");
        }
        DeltaSinkConnector connector = new DeltaSinkConnector();
        Config validated = connector.validate(props);
        ConfigInfos response = AbstractHerder.generateResult(DeltaSinkConnector.class.getName(),
                connector.config().configKeys(), validated.configValues(), List.of());
        String json = new ObjectMapper().writeValueAsString(response);
        assertTrue(json.contains("\"s3.access.key\""), json);
        assertFalse(json.contains(accessKey), "the validate response shows the access key: " + json);
        assertEquals(Map.of("fs.s3a.access.key", accessKey), Map.of("fs.s3a.access.key",
                StorageSettings.s3aSettings(new DeltaSinkConfig(props)).get("fs.s3a.access.key")));
    }
}
