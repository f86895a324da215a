package io.deltasink.table;

import static io.deltasink.table.Fixtures.ENGINE_INFO;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.delta.kernel.engine.Engine;
import io.deltasink.testing.DeltaTableReader;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Positions-only commits (the offsets API) and the "no position" txn version, on a real table. */
class DeltaTablePositionsTest {
    @TempDir
    Path dir;
    private String path;
    private Engine engine;
    private DeltaTable table;

    @BeforeEach
    void createTable() {
        path = Fixtures.tablePath(dir);
        engine = Fixtures.engine();
        table = Fixtures.createTable(engine, path, Map.of("delta.checkpointInterval", "2"));
        table.commitAppend(table.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, 1)),
                Map.of("conn/topic/0", 500L, "conn/topic/1", 700L), ENGINE_INFO);
    }

    @Test
    void aPositionsCommitHoldsTxnActionsOnly() {
        Map<String, Long> positions = new LinkedHashMap<>();
        positions.put("conn/topic/0", 100L);
        positions.put("conn/topic/1", TableSnapshot.NO_POSITION);

        long version = table.commitPositions(table.latest().orElseThrow(), positions, ENGINE_INFO);

        List<JsonNode> actions = DeltaTableReader.actions(path, version);
        List<String> kinds = actions.stream().map(a -> a.fieldNames().next()).sorted().toList();
        assertEquals(List.of("commitInfo", "txn", "txn"), kinds, actions.toString());
        assertEquals("Manual Update", DeltaTableReader.commitOperations(path).get(version));
        List<JsonNode> txns = DeltaTableReader.actions(path, version, "txn");
        assertEquals("conn/topic/0", txns.get(0).get("appId").asText());
        assertEquals(100, txns.get(0).get("version").asLong());
        assertEquals(-1, txns.get(1).get("version").asLong());

        TableSnapshot latest = table.latest().orElseThrow();
        assertEquals(Optional.of(100L), latest.txnVersion("conn/topic/0"));
        assertEquals(Optional.of(TableSnapshot.NO_POSITION), latest.txnVersion("conn/topic/1"));
        assertEquals(Optional.of(TableSnapshot.NO_POSITION), DeltaTableReader.txnVersion(path, "conn/topic/1"));
        assertEquals(1, DeltaTableReader.readAll(path).size(), "the rows are untouched");
    }

    @Test
    void theNoPositionVersionSurvivesACheckpoint() {
        table.commitPositions(table.latest().orElseThrow(), Map.of("conn/topic/1", TableSnapshot.NO_POSITION),
                ENGINE_INFO);
        assertTrue(DeltaTableReader.logFileNames(path).contains("00000000000000000002.checkpoint.parquet"),
                DeltaTableReader.logFileNames(path).toString());
        table.commitPositions(table.latest().orElseThrow(), Map.of("conn/topic/0", 42L), ENGINE_INFO);

        TableSnapshot latest = table.latest().orElseThrow();
        assertEquals(Optional.of(TableSnapshot.NO_POSITION), latest.txnVersion("conn/topic/1"));
        assertEquals(Optional.of(42L), latest.txnVersion("conn/topic/0"));
    }

    @Test
    void otherNegativeVersionsAndEmptyCommitsAreRefused() {
        TableSnapshot base = table.latest().orElseThrow();
        assertThrows(IllegalArgumentException.class, () -> table.commitPositions(base, Map.of("conn/topic/0", -2L),
                ENGINE_INFO));
        assertThrows(IllegalArgumentException.class, () -> table.commitPositions(base, Map.of(), ENGINE_INFO));
        assertEquals(1, table.latest().orElseThrow().version());
    }

    @Test
    void aPositionsCommitOnAStaleSnapshotIsAConflict() {
        TableSnapshot stale = table.latest().orElseThrow();
        table.commitPositions(stale, Map.of("conn/topic/0", 1L), ENGINE_INFO);
        assertThrows(CommitConflictException.class, () -> table.commitPositions(stale, Map.of("conn/topic/0", 2L),
                ENGINE_INFO));
        assertEquals(Optional.of(1L), table.latest().orElseThrow().txnVersion("conn/topic/0"));
    }
}
