package io.deltasink.proc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

/** The shipped presets: the MinIO one is the local seed job with only its storage changed. */
class PresetFilesTest {
    private static boolean isStorageKey(String key) {
        return key.equals("table.location") || key.startsWith("s3.");
    }

    private static Map<String, String> withoutStorage(Preset preset) {
        Map<String, String> out = new TreeMap<>(preset.config());
        out.keySet().removeIf(PresetFilesTest::isStorageKey);
        return out;
    }

    @Test
    void theMinioPresetIsTheLocalOneWithOtherStorage() {
        Preset local = Preset.sensorEventsLocal();
        Preset minio = Preset.sensorEventsMinio();
        assertEquals(withoutStorage(local), withoutStorage(minio),
                "every key but table.location and s3.* must be the same in both presets");
        assertTrue(local.config().containsKey("table.location") && minio.config().containsKey("table.location"));
        assertTrue(local.config().keySet().stream().noneMatch(k -> k.startsWith("s3.")), local.config().toString());
    }

    @Test
    void theMinioPresetWritesTheSeedTableOverPlainHttpWithPathStyle() {
        Map<String, String> c = Preset.sensorEventsMinio().config();
        assertEquals("s3a://sensor-data/delta/sensor_events", c.get("table.location"));
        assertEquals("http://minio:9000", c.get("s3.endpoint"));
        assertEquals("true", c.get("s3.path.style.access"));
        assertEquals("false", c.get("s3.ssl.enabled"));
        assertEquals("device_type,event_date", c.get("partition.columns"));
    }
}
