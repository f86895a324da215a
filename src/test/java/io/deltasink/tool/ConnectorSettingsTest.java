package io.deltasink.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.proc.Preset;

/**
 * Connector configs as the command reads them: the shipped presets wrapped and bare,
 * {@code ${env:X}} from the environment given (an unset variable named), the precedence of
 * --table and --set, and the quantities of the options.
 */
class ConnectorSettingsTest {
    private static final Map<String, String> MINIO_ENV = Map.of("MINIO_ROOT_USER", "pi-user",
            "MINIO_ROOT_PASSWORD", "pi-password-7f3k");

    @TempDir
    Path dir;

    private static Map<String, String> settings(Map<String, String> env, String... args) {
        return ConnectorSettings.from(Arguments.parse(args), new EnvReferences(env));
    }

    @Test
    void theMinioPresetResolvesItsCredentialsFromTheEnvironment() {
        Map<String, String> s = settings(MINIO_ENV, "inspect", "--config", Preset.SENSOR_EVENTS_MINIO.toString());
        assertEquals("pi-user", s.get("s3.access.key"));
        assertEquals("pi-password-7f3k", s.get("s3.secret.key"));
        assertEquals("s3a://sensor-data/delta/sensor_events", s.get("table.location"));
        assertEquals("sensor-events-delta", s.get("name"), "the wrapper's name is the connector's name");
    }

    @Test
    void anUnsetVariableIsAnErrorNamingIt() {
        UsageException e = assertThrows(UsageException.class, () -> settings(Map.of("MINIO_ROOT_USER", "u"),
                "inspect", "--config", Preset.SENSOR_EVENTS_MINIO.toString()));
        assertTrue(e.getMessage().contains("MINIO_ROOT_PASSWORD"), e.getMessage());
        assertFalse(e.getMessage().contains("${env:MINIO_ROOT_USER}"), e.getMessage());
    }

    @Test
    void wrappedAndBareConfigsGiveTheSameSettings() throws IOException {
        Path wrapped = dir.resolve("wrapped.json");
        Files.writeString(wrapped, """
                {"name": "c1", "config": {"table.location": "/data/t", "s3.region": "eu-west-1", "tasks.max": 1,
                 "s3.path.style.access": true}}""");
        Path bare = dir.resolve("bare.json");
        Files.writeString(bare, """
                {"name": "c1", "table.location": "/data/t", "s3.region": "eu-west-1", "tasks.max": 1,
                 "s3.path.style.access": true}""");
        Map<String, String> fromWrapped = ConnectorSettings.read(wrapped);
        assertEquals(Map.of("name", "c1", "table.location", "/data/t", "s3.region", "eu-west-1", "tasks.max", "1",
                "s3.path.style.access", "true"), fromWrapped);
        assertEquals(fromWrapped, ConnectorSettings.read(bare));
    }

    @Test
    void unusableConfigFilesAreUsageErrors() throws IOException {
        Path broken = dir.resolve("broken.json");
        Files.writeString(broken, "{\"config\": {\"table.location\": ");
        assertTrue(assertThrows(UsageException.class, () -> ConnectorSettings.read(broken)).getMessage()
                .contains("is not JSON"));
        Path nested = dir.resolve("nested.json");
        Files.writeString(nested, "{\"config\": {\"table.location\": {\"path\": \"/t\"}}}");
        assertTrue(assertThrows(UsageException.class, () -> ConnectorSettings.read(nested)).getMessage()
                .contains("\"table.location\" is not text"));
        Path noTable = dir.resolve("no-table.json");
        Files.writeString(noTable, "{\"s3.region\": \"x\"}");
        assertTrue(assertThrows(UsageException.class, () -> settings(Map.of(), "inspect", "--config", noTable.toString()))
                .getMessage().contains("no table"));
    }

    @Test
    void tableAndSetGoOnTopOfTheConfigAndSetValuesResolveToo() {
        Map<String, String> s = settings(MINIO_ENV, "vacuum", "--config", Preset.SENSOR_EVENTS_MINIO.toString(),
                "--table", "s3a://other/t", "--set", "s3.endpoint=http://127.0.0.1:9000",
                "--set", "s3.secret.key=${env:MINIO_ROOT_USER}-x", "--set", "delta.hadoop.a=b=c");
        assertEquals("s3a://other/t", s.get("table.location"));
        assertEquals("http://127.0.0.1:9000", s.get("s3.endpoint"));
        assertEquals("pi-user-x", s.get("s3.secret.key"));
        assertEquals("b=c", s.get("delta.hadoop.a"));
    }

    @Test
    void tableAloneNeedsNoConfig() {
        assertEquals(Map.of("table.location", "/data/t"), settings(Map.of(), "inspect", "--table", "/data/t"));
    }

    @Test
    void secretsAreThePasswordKeysAndHadoopCredentialKeys() {
        Secrets secrets = Secrets.in(Map.of("s3.secret.key", "s3cr3t-value", "s3.access.key", "AKIA123",
                "delta.hadoop.fs.s3a.session.token", "tok-999", "s3.region", "eu-west-1", "table.location", "/t"));
        assertEquals("key [hidden] id [hidden] token [hidden] region eu-west-1",
                secrets.blank("key s3cr3t-value id AKIA123 token tok-999 region eu-west-1"));
    }

    @Test
    void quantities() {
        assertEquals(128L << 20, Quantities.bytes("--x", "128m"));
        assertEquals(1L << 30, Quantities.bytes("--x", "1GiB"));
        assertEquals(4096, Quantities.bytes("--x", "4096"));
        assertEquals(Duration.ofDays(7), Quantities.duration("--x", "7d"));
        assertEquals(Duration.ofHours(36), Quantities.duration("--x", "PT36H"));
        assertEquals(Duration.ZERO, Quantities.duration("--x", "0s"));
        assertThrows(UsageException.class, () -> Quantities.bytes("--x", "0"));
        assertThrows(UsageException.class, () -> Quantities.bytes("--x", "12 parsecs"));
        assertThrows(UsageException.class, () -> Quantities.bytes("--x", "99999999999g"));
        assertThrows(UsageException.class, () -> Quantities.duration("--x", "-PT1H"));
        assertThrows(UsageException.class, () -> Quantities.count("--x", "-3"));
    }
}
