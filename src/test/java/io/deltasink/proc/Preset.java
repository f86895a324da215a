package io.deltasink.proc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A shipped connector preset (connector-config/*.json, the body a user PUTs to a worker) read as
 * its name and "config" object, so tests, the benchmark and the demo run what users run.
 * Paths are relative to the project root, the working directory of Maven's test and exec goals.
 */
public record Preset(String name, Map<String, String> config) {

    public static final Path SENSOR_EVENTS_LOCAL = Path.of("connector-config", "sensor-events-local.json");
    /** The same job writing to MinIO (s3a://, path-style, plain HTTP, placeholder credentials). */
    public static final Path SENSOR_EVENTS_MINIO = Path.of("connector-config", "sensor-events-minio.json");

    public static Preset load(Path file) {
        try {
            JsonNode root = new ObjectMapper().readTree(Files.readString(file));
            Map<String, String> config = new LinkedHashMap<>();
            root.path("config").fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
            if (!root.hasNonNull("name") || config.isEmpty()) {
                throw new IllegalArgumentException(file + " has no \"name\" or no \"config\" object");
            }
            return new Preset(root.get("name").asText(), config);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read connector preset " + file.toAbsolutePath()
                    + " (run from the project root)", e);
        }
    }

    public static Preset sensorEventsLocal() {
        return load(SENSOR_EVENTS_LOCAL);
    }

    public static Preset sensorEventsMinio() {
        return load(SENSOR_EVENTS_MINIO);
    }

    /** A copy with settings replaced or added. */
    public Preset with(Map<String, String> settings) {
        Map<String, String> copy = new LinkedHashMap<>(config);
        copy.putAll(settings);
        return new Preset(name, copy);
    }

    /** A copy with one setting replaced or added. */
    public Preset with(String key, String value) {
        Map<String, String> copy = new LinkedHashMap<>(config);
        copy.put(key, value);
        return new Preset(name, copy);
    }

    /** A copy with more column mappings appended to "columns". */
    public Preset withExtraColumns(String... mappings) {
        return with("columns", config.get("columns") + ", " + String.join(", ", mappings));
    }
}
