package io.deltasink.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.delta.kernel.TableManager;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.testing.LogCapture;

/**
 * Kernel's metrics reports are made only when its reporter's logger would log them: at the WARN
 * level of the tests (and of most workers) the engine has no reporter; once INFO is on for that
 * logger, the same engine logs a snapshot's report as Kernel's default engine does.
 */
class SinkEngineTest {
    private static final String REPORTER = "io.delta.kernel.defaults.engine.LoggingMetricsReporter";

    @TempDir
    Path dir;

    @Test
    void reportsAreMadeOnlyWhenLogged() {
        String table = dir.resolve("t").toUri().toString();
        try (StorageSettings storage = StorageSettings.from(new DeltaSinkConfig(Map.of("name", "engine-test",
                DeltaSinkConfig.TABLE_LOCATION, table)))) {
            Engine engine = storage.createEngine();
            assertEquals(List.of(), engine.getMetricsReporters(), "WARN: no reporter, no report made");
            try (LogCapture logs = new LogCapture(REPORTER)) { // INFO on for the reporter's logger
                assertEquals(1, engine.getMetricsReporters().size(), "the level is asked at each report");
                assertThrows(TableNotFoundException.class, () -> TableManager.loadSnapshot(table).build(engine));
                List<String> reports = logs.linesContaining("SnapshotReport");
                assertFalse(reports.isEmpty(), "the failed look-up's report, logged: " + logs.lines());
                assertTrue(reports.get(0).contains("TableNotFoundException"), reports.get(0));
            }
        }
    }
}
