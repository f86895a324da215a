package io.deltasink.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
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
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.deltasink.DeltaSinkConnector;
import io.deltasink.testing.S3ProxyServer;

/**
 * The example configs the zip ships in etc/ (connector-config/*.json) validate cleanly, with their
 * {@code ${env:NAME}} references replaced as the worker's EnvVarConfigProvider would, and carry no
 * literal S3 credentials.
 */
class ExampleConfigsTest {
    private static final Pattern ENV_REF = Pattern.compile("\\$\\{env:([A-Za-z0-9_]+)}");

    /**
     * validate() also asks an S3 table's server whether the bucket exists and the keys may read it,
     * so S3 examples are checked against a real S3 server holding their bucket, in place of their
     * endpoint; every other value is as shipped.
     */
    @Test
    void everyExampleConfigValidatesCleanly(@TempDir Path tmp) throws IOException {
        List<Path> files = exampleConfigs();
        assertTrue(files.size() >= 2, "example configs: " + files);
        for (Path file : files) {
            JsonNode root = new ObjectMapper().readTree(file.toFile());
            Map<String, String> props = new HashMap<>();
            root.path("config").fields().forEachRemaining(e -> props.put(e.getKey(), resolve(e.getValue().asText())));
            props.put("name", root.path("name").asText());
            String location = props.getOrDefault("table.location", "");
            if (!location.startsWith("s3a://")) {
                assertEquals(List.of(), errors(props), file + " does not validate");
                continue;
            }
            String bucket = URI.create(location).getHost();
            try (S3ProxyServer server = new S3ProxyServer(tmp.resolve(file.getFileName().toString()), bucket).start()) {
                props.putAll(server.connectorSettings());
                assertEquals(List.of(), errors(props), file + " does not validate against an S3 server with its bucket");
            }
        }
    }

    private static List<String> errors(Map<String, String> props) {
        Config config = new DeltaSinkConnector().validate(props);
        return config.configValues().stream()
                .flatMap(v -> v.errorMessages().stream().map(m -> v.name() + ": " + m)).toList();
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
