package io.deltasink.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

class ConfigReferenceTest {

    @Test
    void checkedInReferenceMatchesTheConfigDef() throws Exception {
        Path file = Paths.get(ConfigReference.DEFAULT_FILE);
        assertTrue(Files.exists(file), "missing " + file + ": run ConfigReference to generate it");
        assertEquals(ConfigReference.render(), Files.readString(file, StandardCharsets.UTF_8),
                file + " is stale: regenerate it with "
                        + "mvn -q compile exec:java -Dexec.classpathScope=compile -Dexec.mainClass=io.deltasink.config.ConfigReference");
    }

    @Test
    void everyKeyIsDocumentedAndGrouped() {
        for (ConfigDef.ConfigKey key : DeltaSinkConfig.configDef().configKeys().values()) {
            assertTrue(key.documentation != null && key.documentation.length() > 20, key.name + " has no real doc");
            assertTrue(key.group != null && key.displayName != null, key.name + " has no group/display name");
        }
        String doc = ConfigReference.render();
        for (String key : DeltaSinkConfig.configDef().names()) {
            assertTrue(doc.contains("`" + key + "`"), key + " missing from the reference");
        }
        assertTrue(doc.contains("`delta.hadoop.*`") && doc.contains("`delta.table.property.*`"));
    }
}
