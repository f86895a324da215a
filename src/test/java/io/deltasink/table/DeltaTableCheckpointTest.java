package io.deltasink.table;

import static io.deltasink.table.Fixtures.ENGINE_INFO;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.engine.Engine;
import io.deltasink.testing.DeltaTableReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeltaTableCheckpointTest {
    @TempDir
    Path dir;

    @Test
    void txnVersionsReadBackThroughACheckpointAlsoWhenTheOldCommitsAreGone() throws IOException {
        String path = Fixtures.tablePath(dir);
        Engine engine = Fixtures.engine();
        DeltaTable table = Fixtures.createTable(engine, path, Map.of("delta.checkpointInterval", "3"));

        // version 1: three partitions at once; later commits move only partition 0 (and 1 once)
        table.commitAppend(table.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, 1)),
                Map.of("conn/topic/0", 1L, "conn/topic/1", 100L, "conn/topic/2", 1000L), ENGINE_INFO);
        for (long v = 2; v <= 11; v++) {
            Map<String, Long> txn = v == 5 ? Map.of("conn/topic/0", v, "conn/topic/1", 105L) : Map.of("conn/topic/0", v);
            assertEquals(v, table.commitAppend(table.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, v)),
                    txn, ENGINE_INFO));
        }

        List<String> log = DeltaTableReader.logFileNames(path);
        assertTrue(log.contains("00000000000000000009.checkpoint.parquet"), log.toString());
        assertTrue(log.contains("00000000000000000003.checkpoint.parquet"), log.toString());
        assertTrue(log.contains("_last_checkpoint"), log.toString());
        assertTrue(log.contains("00000000000000000011.crc"), "checksum hook ran: " + log);

        // drop the commits before the checkpoint at 9, as log cleanup would (Kernel wants 9.json kept)
        Path logDir = dir.resolve("table").resolve("_delta_log");
        try (Stream<Path> files = Files.list(logDir)) {
            for (Path f : files.toList()) {
                String name = f.getFileName().toString();
                if (name.matches("\\.?0000000000000000000[0-8]\\.(json|crc)(\\.crc)?")) {
                    Files.delete(f);
                }
            }
        }
        assertFalse(DeltaTableReader.logFileNames(path).contains("00000000000000000001.json"));

        TableSnapshot fresh = new DeltaTable(Fixtures.engine(), path).latest().orElseThrow();
        assertEquals(11, fresh.version());
        assertEquals(Optional.of(11L), fresh.txnVersion("conn/topic/0"));
        assertEquals(Optional.of(105L), fresh.txnVersion("conn/topic/1"));
        assertEquals(Optional.of(1000L), fresh.txnVersion("conn/topic/2"));
        assertEquals(Optional.empty(), fresh.txnVersion("conn/topic/3"));
        assertEquals(Optional.of(1000L), DeltaTableReader.txnVersion(path, "conn/topic/2"));
        assertEquals(11, DeltaTableReader.readAll(path).size());
    }

    @Test
    void aFailingPostCommitHookDoesNotFailTheCommit() {
        String path = Fixtures.tablePath(dir);
        Fixtures.createTable(Fixtures.engine(), path, Map.of("delta.checkpointInterval", "2"));
        DeltaTable failing = new DeltaTable(TestEngine.wrapping(Fixtures.engine()).failingParquetWrites(), path);

        failing.commitAppend(failing.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, 1)),
                Map.of("a", 1L), ENGINE_INFO);
        long version = failing.commitAppend(failing.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, 2)),
                Map.of("a", 2L), ENGINE_INFO);

        assertEquals(2, version);
        assertEquals(2, DeltaTableReader.version(path));
        assertFalse(DeltaTableReader.logFileNames(path).contains("00000000000000000002.checkpoint.parquet"));
        assertEquals(Optional.of(2L), DeltaTableReader.txnVersion(path, "a"));
    }

    @Test
    void logCompactionRunsWhenAsked() {
        String path = Fixtures.tablePath(dir);
        Fixtures.createTable(Fixtures.engine(), path, Map.of());
        DeltaTable table = new DeltaTable(Fixtures.engine(), path, Clock.systemUTC(), 2);
        for (long v = 1; v <= 3; v++) {
            table.commitAppend(table.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, v)),
                    Map.of("a", v), ENGINE_INFO);
        }
        List<String> log = DeltaTableReader.logFileNames(path);
        assertTrue(log.stream().anyMatch(n -> n.endsWith(".compacted.json")), log.toString());
        assertEquals(Optional.of(3L), new DeltaTable(Fixtures.engine(), path).latest().orElseThrow().txnVersion("a"));
    }
}
