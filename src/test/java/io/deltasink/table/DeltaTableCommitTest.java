package io.deltasink.table;

import static io.deltasink.table.Fixtures.ENGINE_INFO;
import static io.deltasink.table.Fixtures.file;
import static io.deltasink.table.Fixtures.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.delta.kernel.engine.Engine;
import io.deltasink.model.DataFile;
import io.deltasink.testing.DeltaTableReader;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeltaTableCommitTest {
    private static final Instant NOW = Instant.parse("2026-06-22T09:16:01Z");

    @TempDir
    Path dir;
    private String path;
    private Engine engine;
    private DeltaTable table;

    @BeforeEach
    void createTable() {
        path = Fixtures.tablePath(dir);
        engine = Fixtures.engine();
        Fixtures.createTable(engine, path, Map.of());
        table = new DeltaTable(engine, path, Clock.fixed(NOW, ZoneOffset.UTC), 0);
    }

    private static Map<String, Long> txns(long v0, long v1, long v2) {
        Map<String, Long> txns = new LinkedHashMap<>();
        txns.put("conn/topic/0", v0);
        txns.put("conn/topic/1", v1);
        txns.put("conn/topic/2", v2);
        return txns;
    }

    @Test
    void oneCommitCarriesAnAddPerFileAndATxnPerPartition() {
        DataFile plug = file(path, "plug", "2026-06-22", List.of(
                row("p1", "2026-06-22T08:16:00Z", 231, 0.1, null, 1L, "1.50"),
                row("p2", "2026-06-22T09:15:50Z", 255, 128.6, null, 2L, "2.25")));
        DataFile door = file(path, "door", "2026-06-22", List.of(
                row("d1", "2026-06-22T08:21:10Z", 159, null, true, 3L, null)));

        long version = table.commitAppend(table.latest().orElseThrow(), List.of(plug, door), txns(10, 20, 30), ENGINE_INFO);

        assertEquals(1, version);
        TableSnapshot latest = table.latest().orElseThrow();
        assertEquals(1, latest.version());
        assertEquals(Optional.of(10L), latest.txnVersion("conn/topic/0"));
        assertEquals(Optional.of(20L), latest.txnVersion("conn/topic/1"));
        assertEquals(Optional.of(30L), latest.txnVersion("conn/topic/2"));
        assertEquals(Optional.empty(), latest.txnVersion("conn/topic/3"));

        List<JsonNode> txnActions = DeltaTableReader.actions(path, 1, "txn");
        assertEquals(3, txnActions.size());
        assertEquals("conn/topic/1", txnActions.get(1).get("appId").asText());
        assertEquals(20, txnActions.get(1).get("version").asLong());
        assertEquals(NOW.toEpochMilli(), txnActions.get(1).get("lastUpdated").asLong());

        List<JsonNode> adds = DeltaTableReader.actions(path, 1, "add");
        assertEquals(2, adds.size());
        JsonNode plugAdd = adds.stream().filter(a -> a.get("path").asText().equals(plug.path())).findFirst().orElseThrow();
        assertEquals("plug", plugAdd.get("partitionValues").get("device_type").asText());
        assertEquals("2026-06-22", plugAdd.get("partitionValues").get("event_date").asText());
        assertEquals(plug.size(), plugAdd.get("size").asLong());
        assertEquals(plug.modificationTime(), plugAdd.get("modificationTime").asLong());
        assertTrue(plugAdd.get("dataChange").asBoolean());

        JsonNode commitInfo = DeltaTableReader.actions(path, 1, "commitInfo").get(0);
        assertEquals("STREAMING UPDATE", commitInfo.get("operation").asText());
        assertTrue(commitInfo.get("engineInfo").asText().endsWith(ENGINE_INFO), commitInfo.toString());
        assertEquals("STREAMING UPDATE", DeltaTableReader.commitOperations(path).get(1L));
    }

    @Test
    void addActionsCarryStatsInTheDeltaFormat() {
        DataFile plug = file(path, "plug", "2026-06-22", List.of(
                row("p1", "2026-06-22T08:16:00.000999Z", 231, 0.1, null, 1L, "1.50"),
                row("p2", "2026-06-22T09:15:50.123456Z", 255, 128.6, null, 2L, "-2.25"),
                row("p3", null, null, null, null, 3L, null)));

        table.commitAppend(table.latest().orElseThrow(), List.of(plug), Map.of(), ENGINE_INFO);

        JsonNode add = DeltaTableReader.actions(path, 1, "add").get(0);
        JsonNode stats = DeltaTableReader.stats(add);
        assertEquals(3, stats.get("numRecords").asLong());
        JsonNode min = stats.get("minValues");
        JsonNode max = stats.get("maxValues");
        // timestamps with millisecond precision: min rounded down, max rounded up
        assertEquals("2026-06-22T08:16:00.000Z", min.get("event_time").asText());
        assertEquals("2026-06-22T09:15:50.124Z", max.get("event_time").asText());
        assertEquals(231, min.get("linkquality").asInt());
        assertEquals(255, max.get("linkquality").asInt());
        assertEquals(0.1, min.get("power").asDouble());
        assertEquals(128.6, max.get("power").asDouble());
        assertEquals("p1", min.get("device_id").asText());
        String raw = add.get("stats").asText();
        assertTrue(raw.contains("\"amount\":-2.25") && raw.contains("\"amount\":1.50"), raw);
        assertTrue(min.path("contact").isMissingNode(), "an all-null column has no bound");
        assertEquals(3, stats.get("nullCount").get("contact").asLong());
        assertEquals(1, stats.get("nullCount").get("event_time").asLong());
        assertEquals(0, stats.get("nullCount").get("device_id").asLong());
        assertTrue(stats.get("nullCount").path("device_type").isMissingNode(), "no stats for partition columns");
    }

    @Test
    void dateStatsAreWrittenAsIsoDates() {
        // event_date is a partition column here, so use a table where a date is a data column
        String other = Fixtures.tablePath(dir.resolve("other"));
        io.deltasink.model.RowSchema schema = new io.deltasink.model.RowSchema(List.of(
                io.deltasink.model.Column.of("day", io.deltasink.model.ColumnType.DATE, true)));
        DeltaTable dates = new DeltaTable(engine, other);
        TableSnapshot base = dates.createOrCheck(schema, List.of(), Map.of(), ENGINE_INFO);
        DataFile f = TestParquetFiles.write(other, "", schema.columns(), Map.of(), List.of(
                Map.of("day", Fixtures.days("2026-06-22")), Map.of("day", Fixtures.days("2025-12-31"))));

        dates.commitAppend(base, List.of(f), Map.of(), ENGINE_INFO);

        JsonNode stats = DeltaTableReader.stats(DeltaTableReader.actions(other, 1, "add").get(0));
        assertEquals("2025-12-31", stats.get("minValues").get("day").asText());
        assertEquals("2026-06-22", stats.get("maxValues").get("day").asText());
        assertEquals(List.of(LocalDate.parse("2026-06-22"), LocalDate.parse("2025-12-31")),
                DeltaTableReader.readAll(other).stream().map(r -> r.get("day")).toList());
    }

    @Test
    void anIndependentReaderSeesTheRowsWithTheirPartitionValues() {
        DataFile plug = file(path, "smart plug", "2026-06-22", List.of(
                row("p1", "2026-06-22T08:16:00.000123Z", 231, 0.1, null, 1L, "1.50")));
        DataFile noDate = file(path, "door", null, List.of(
                row("d1", null, 159, null, true, 2L, null)));
        table.commitAppend(table.latest().orElseThrow(), List.of(plug, noDate), Map.of("conn/t/0", 2L), ENGINE_INFO);

        List<Map<String, Object>> rows = new ArrayList<>(DeltaTableReader.readAll(path));
        rows.sort(Comparator.comparing(r -> (Long) r.get("seq")));

        assertEquals(2, rows.size());
        Map<String, Object> p1 = rows.get(0);
        assertEquals("p1", p1.get("device_id"));
        assertEquals("smart plug", p1.get("device_type"));
        assertEquals(LocalDate.parse("2026-06-22"), p1.get("event_date"));
        assertEquals(Instant.parse("2026-06-22T08:16:00.000123Z"), p1.get("event_time"));
        assertEquals(231, p1.get("linkquality"));
        assertEquals(0.1, p1.get("power"));
        assertEquals(new BigDecimal("1.50"), p1.get("amount"));
        assertNull(p1.get("contact"));
        Map<String, Object> d1 = rows.get(1);
        assertEquals("door", d1.get("device_type"));
        assertNull(d1.get("event_date"));
        assertEquals(true, d1.get("contact"));

        JsonNode plugAdd = DeltaTableReader.actions(path, 1, "add").stream()
                .filter(a -> a.get("partitionValues").get("device_type").asText().equals("smart plug"))
                .findFirst().orElseThrow();
        assertTrue(plugAdd.get("path").asText().startsWith("device_type=smart%20plug/"), plugAdd.toString());
        JsonNode doorAdd = DeltaTableReader.actions(path, 1, "add").stream()
                .filter(a -> a.get("partitionValues").get("device_type").asText().equals("door"))
                .findFirst().orElseThrow();
        assertTrue(doorAdd.get("partitionValues").get("event_date").isNull(), doorAdd.toString());
    }

    @Test
    void aStaleBaseThrowsCommitConflictAndLeavesTheTableAlone() {
        TableSnapshot stale = table.latest().orElseThrow();
        table.commitAppend(stale, List.of(Fixtures.oneRowFile(path, 1)), txns(5, 5, 5), ENGINE_INFO);

        DataFile late = Fixtures.oneRowFile(path, 2);
        CommitConflictException e = assertThrows(CommitConflictException.class,
                () -> table.commitAppend(stale, List.of(late), txns(9, 9, 9), ENGINE_INFO));

        assertEquals(1, e.version());
        TableSnapshot latest = table.latest().orElseThrow();
        assertEquals(1, latest.version());
        assertEquals(Optional.of(5L), latest.txnVersion("conn/topic/0"));
        assertEquals(List.of(1L), DeltaTableReader.readAll(path).stream().map(r -> r.get("seq")).toList());
    }

    @Test
    void offsetOnlyCommitsAreAllowedButEmptyCommitsAreNot() {
        TableSnapshot base = table.latest().orElseThrow();
        assertThrows(IllegalArgumentException.class, () -> table.commitAppend(base, List.of(), Map.of(), ENGINE_INFO));
        assertEquals(0, DeltaTableReader.version(path));

        assertEquals(1, table.commitAppend(base, List.of(), Map.of("conn/topic/0", 42L), ENGINE_INFO));

        assertTrue(DeltaTableReader.actions(path, 1, "add").isEmpty());
        assertEquals(Optional.of(42L), DeltaTableReader.txnVersion(path, "conn/topic/0"));
    }

    @Test
    void filesWithWrongPartitionValuesOrAbsolutePathsAreRejected() {
        TableSnapshot base = table.latest().orElseThrow();
        DataFile good = Fixtures.oneRowFile(path, 1);
        DataFile wrongKeys = new DataFile(good.path(), Map.of("device_type", "plug"), good.size(),
                good.modificationTime(), good.stats());
        DataFile badDate = new DataFile(good.path(), Map.of("device_type", "plug", "event_date", "22.06.2026"),
                good.size(), good.modificationTime(), good.stats());
        DataFile absolute = new DataFile(path + "/" + good.path(), good.partitionValues(), good.size(),
                good.modificationTime(), good.stats());

        assertThrows(IllegalArgumentException.class, () -> table.commitAppend(base, List.of(wrongKeys), Map.of(), ENGINE_INFO));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> table.commitAppend(base, List.of(badDate), Map.of(), ENGINE_INFO));
        assertTrue(e.getMessage().contains("event_date"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> table.commitAppend(base, List.of(absolute), Map.of(), ENGINE_INFO));
        assertThrows(IllegalArgumentException.class, () -> table.commitAppend(base, List.of(good, good), Map.of(), ENGINE_INFO));
        assertEquals(0, DeltaTableReader.version(path));
    }
}
