package io.deltasink.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class DeltaSinkConfigTest {

    private static Map<String, String> base() {
        Map<String, String> p = new HashMap<>();
        p.put("name", "sensors");
        p.put(DeltaSinkConfig.TABLE_LOCATION, "/data/t");
        return p;
    }

    @Test
    void defaultsAndPrefixes() {
        Map<String, String> p = base();
        p.put("delta.table.property.delta.checkpointInterval", "5");
        p.put("delta.hadoop.fs.s3a.connection.maximum", "8");
        p.put(DeltaSinkConfig.PARTITION_COLUMNS, " device_type , event_date ");
        DeltaSinkConfig c = new DeltaSinkConfig(p);
        assertTrue(c.autoColumns());
        assertEquals(List.of("device_type", "event_date"), c.partitionColumns());
        assertEquals(Map.of("delta.checkpointInterval", "5"), c.tableProperties());
        assertEquals(Map.of("fs.s3a.connection.maximum", "8"), c.hadoopSettings());
        assertEquals("sensors", c.connectorName());
        assertEquals("snappy", c.compression());
        assertFalse(c.toleratesErrors());
        assertFalse(c.startEarliest());
    }

    @Test
    void tableLocationIsRequired() {
        Map<String, String> p = base();
        p.remove(DeltaSinkConfig.TABLE_LOCATION);
        ConfigException e = assertThrows(ConfigException.class, () -> new DeltaSinkConfig(p));
        assertTrue(e.getMessage().contains(DeltaSinkConfig.TABLE_LOCATION), e.getMessage());
    }

    @Test
    void appIdTemplateMustNamePartitionAndTopic() {
        Map<String, String> p = base();
        p.put(DeltaSinkConfig.TXN_APP_ID_TEMPLATE, "${connector}/${topic}");
        ConfigException e = assertThrows(ConfigException.class, () -> new DeltaSinkConfig(p));
        assertTrue(e.getMessage().contains("${partition}"), e.getMessage());
        p.put(DeltaSinkConfig.TXN_APP_ID_TEMPLATE, "${topic}-${partition}-${oops}");
        assertThrows(ConfigException.class, () -> new DeltaSinkConfig(p));
    }

    @Test
    void enumeratedValuesAreChecked() {
        Map<String, String> p = base();
        p.put(DeltaSinkConfig.PARQUET_COMPRESSION, "lz77");
        ConfigException e = assertThrows(ConfigException.class, () -> new DeltaSinkConfig(p));
        assertTrue(e.getMessage().contains("snappy, zstd"), e.getMessage());
        p.put(DeltaSinkConfig.PARQUET_COMPRESSION, "ZSTD");
        assertEquals("zstd", new DeltaSinkConfig(p).compression());
    }

    @Test
    void timestampNumericUnitIsNoneUnlessGivenAndListsItsValues() {
        Map<String, String> p = base();
        assertEquals("none", new DeltaSinkConfig(p).timestampNumericUnit());
        p.put(DeltaSinkConfig.TIMESTAMP_NUMERIC_UNIT, " Millis ");
        assertEquals("millis", new DeltaSinkConfig(p).timestampNumericUnit());
        p.put(DeltaSinkConfig.TIMESTAMP_NUMERIC_UNIT, "ms");
        ConfigException e = assertThrows(ConfigException.class, () -> new DeltaSinkConfig(p));
        assertTrue(e.getMessage().contains("none, seconds, millis, micros, nanos"), e.getMessage());
    }

    @Test
    void errorsToleranceIsReadFromTheWorkerKey() {
        Map<String, String> p = base();
        p.put("errors.tolerance", "all");
        assertTrue(new DeltaSinkConfig(p).toleratesErrors());
    }

    @Test
    void aTablePerTopicRendersTheTopicUnderTheFolderBeforeTheVariable() {
        Map<String, String> p = base();
        p.put(DeltaSinkConfig.TABLE_LOCATION, "s3a://bucket/delta/t_${topic}");
        DeltaSinkConfig c = new DeltaSinkConfig(p);
        assertTrue(c.tablePerTopic());
        assertEquals("s3a://bucket/delta/t_", c.tableLocationRoot());
        assertEquals("s3a://bucket/delta/t_sensor-events.v2", c.tableLocation("sensor-events.v2"));
        for (String notATopic : List.of("..", ".", "a/../../b", "a b", "")) {
            ConfigException e = assertThrows(ConfigException.class, () -> c.tableLocation(notATopic), notATopic);
            assertTrue(e.getMessage().contains("s3a://bucket/delta/t_"), e.getMessage());
        }
        p.put(DeltaSinkConfig.TABLE_LOCATION, "/data/t");
        assertFalse(new DeltaSinkConfig(p).tablePerTopic());
        assertEquals("/data/t", new DeltaSinkConfig(p).tableLocation("any"));
    }

    @Test
    void aTableLocationTemplateNeedsAFolderBeforeTheTopicAndNoOtherVariable() {
        Map<String, String> p = base();
        for (String bad : List.of("${topic}", "s3a://${topic}", "s3a://bucket${topic}", "/data/${topic}/${partition}",
                "/data/${connector}", "/data/${topic}/../../etc", "/data/../${topic}", "/data/${topic}/./t")) {
            p.put(DeltaSinkConfig.TABLE_LOCATION, bad);
            assertThrows(ConfigException.class, () -> new DeltaSinkConfig(p), bad);
        }
        for (String good : List.of("/data/${topic}", "s3a://bucket/${topic}", "file:///data/t_${topic}/table")) {
            p.put(DeltaSinkConfig.TABLE_LOCATION, good);
            assertTrue(new DeltaSinkConfig(p).tablePerTopic(), good);
        }
    }

    @Test
    void automaticMaintenanceIsNotOfferedWithATablePerTopic() {
        Map<String, String> p = base();
        p.put(DeltaSinkConfig.TABLE_LOCATION, "/data/${topic}");
        assertEquals(null, new DeltaSinkConfig(p).maintenanceProblem());
        p.put(DeltaSinkConfig.VACUUM_ENABLED, "true");
        assertTrue(new DeltaSinkConfig(p).maintenanceProblem().contains(DeltaSinkConfig.VACUUM_ENABLED));
        p.put(DeltaSinkConfig.TABLE_LOCATION, "/data/t");
        assertEquals(null, new DeltaSinkConfig(p).maintenanceProblem());
    }
}
