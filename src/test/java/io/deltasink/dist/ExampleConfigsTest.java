package io.deltasink.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.apache.kafka.common.config.Config;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.deltasink.DeltaSinkConnector;

/**
 * The example configs the zip ships in etc/ (connector-config/*.json) validate cleanly, with their
 * {@code ${env:NAME}} references replaced as the worker's EnvVarConfigProvider would, and carry no
 * literal S3 credentials.
 */
class ExampleConfigsTest {
    private static final Pattern ENV_REF = Pattern.compile("\\$\\{env:([A-Za-z0-9_]+)}");

    @Test
    void everyExampleConfigValidatesCleanly() throws IOException {
        List<Path> files = exampleConfigs();
        assertTrue(files.size() >= 2, "example configs: " + files);
        for (Path file : files) {
            JsonNode root = new ObjectMapper().readTree(file.toFile());
            Map<String, String> props = new HashMap<>();
            root.path("config").fields().forEachRemaining(e -> props.put(e.getKey(), resolve(e.getValue().asText())));
            props.put("name", root.path("name").asText());
            Config config = new DeltaSinkConnector().validate(props);
            List<String> errors = config.configValues().stream()
                    .flatMap(v -> v.errorMessages().stream().map(m -> v.name() + ": " + m)).toList();
            assertEquals(List.of(), errors, file + " does not validate");
        }
    }

    @Test
    void s3CredentialsAreEnvironmentReferences() throws IOException {
        for (Path file : exampleConfigs()) {
            JsonNode config = new ObjectMapper().readTree(file.toFile()).path("config");
            for (String key : List.of("s3.access.key", "s3.secret.key")) {
                String value = config.path(key).asText("");
                assertFalse(!value.isEmpty() && !ENV_REF.matcher(value).matches(),
                        file + ": " + key + " must be a ${env:...} reference, not a literal");
            }
        }
    }

    private static String resolve(String value) {
        Matcher m = ENV_REF.matcher(value);
        return m.replaceAll(r -> "example-" + r.group(1).toLowerCase());
    }

    private static List<Path> exampleConfigs() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("connector-config"))) {
            return files.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
    }
}
