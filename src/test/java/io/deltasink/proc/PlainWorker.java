package io.deltasink.proc;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The class path of a plain Kafka Connect worker (connect-runtime, its dependencies and a logging
 * binding, as a Kafka distribution's libs/ has them, and no connector), resolved by the build in
 * pre-integration-test, so the connector can only come from {@code plugin.path}.
 */
public enum PlainWorker {
    /** The Kafka the project builds against (kafka.version), from src/test/worker/pom.xml. */
    CURRENT("connect.worker.classpath", "kafka.version"),
    /** The oldest Kafka the plugin supports (kafka.oldest.version), from src/test/worker/oldest/pom.xml. */
    OLDEST("connect.worker.oldest.classpath", "kafka.oldest.version");

    private final String classPathProperty;
    private final String versionProperty;

    PlainWorker(String classPathProperty, String versionProperty) {
        this.classPathProperty = classPathProperty;
        this.versionProperty = versionProperty;
    }

    /** The Kafka version of the worker, as GET / reports it. */
    String kafkaVersion() {
        String version = System.getProperty(versionProperty);
        assertTrue(version != null && !version.isBlank(), "system property " + versionProperty
                + " is not set: this test runs in failsafe (mvn verify)");
        return version;
    }

    /** The class path, checked: jars only, connect-runtime of {@link #kafkaVersion()}, no connector classes. */
    public String classPath() throws IOException {
        String file = System.getProperty(classPathProperty);
        assertTrue(file != null && Files.isRegularFile(Path.of(file)),
                "no worker class path file " + file + " (written by the build in pre-integration-test)");
        String classPath = Files.readString(Path.of(file)).trim();
        for (String entry : classPath.split(File.pathSeparator)) {
            assertTrue(entry.endsWith(".jar"), "worker class path entry is not a jar: " + entry);
            assertFalse(Path.of(entry).getFileName().toString().startsWith("kafka-connect-delta-sink")
                    || entry.contains("delta-kernel"), "connector on the worker class path: " + entry);
        }
        assertTrue(classPath.contains("connect-runtime-" + kafkaVersion() + ".jar"),
                "connect-runtime " + kafkaVersion() + " on the worker class path: " + classPath);
        return classPath;
    }
}
