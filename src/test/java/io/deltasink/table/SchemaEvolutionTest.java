package io.deltasink.table;

import static io.deltasink.table.Fixtures.ENGINE_INFO;
import static io.deltasink.table.Fixtures.PARTITIONS;
import static io.deltasink.table.Fixtures.SCHEMA;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.kernel.engine.Engine;
import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;
import io.deltasink.testing.DeltaTableReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Adding the mapping's new columns to an existing table ({@code schema.evolution=add-columns}),
 * against real Kernel tables on disk: what is added, what stays refused, and two writers evolving
 * one table at once.
 */
class SchemaEvolutionTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static RowSchema plus(RowSchema base, Column... more) {
        List<Column> all = new ArrayList<>(base.columns());
        all.addAll(List.of(more));
        return new RowSchema(all);
    }

    private static RowSchema replacing(RowSchema base, String name, Column with) {
        List<Column> all = new ArrayList<>();
        for (Column c : base.columns()) {
            if (c.name().equals(name)) {
                if (with != null) {
                    all.add(with);
                }
            } else {
                all.add(c);
            }
        }
        return new RowSchema(all);
    }

    private static final Column HUMIDITY = Column.of("humidity", ColumnType.DOUBLE, false);
    private static final Column BATTERY = Column.of("battery", ColumnType.INT, true);

    private static List<String> described(JsonNode metaData) throws Exception {
        JsonNode fields = JSON.readTree(metaData.get("schemaString").asText()).get("fields");
        List<String> out = new ArrayList<>();
        fields.forEach(f -> out.add(f.get("name").asText() + ":" + f.get("type").asText() + ":"
                + f.get("nullable").asBoolean()));
        return out;
    }

    private DeltaTable tableWithOneRow(String path) {
        DeltaTable table = Fixtures.createTable(Fixtures.engine(), path, Map.of("delta.checkpointInterval", "3"));
        TableSnapshot base = table.latest().orElseThrow();
        table.commitAppend(base, List.of(Fixtures.oneRowFile(path, 1)), Map.of("c/t/0", 1L), ENGINE_INFO);
        return table;
    }

    @Test
    void addsTheMappingsNewColumnsAsNullableInACommitOfTheirOwnAndOldRowsReadNull() throws Exception {
        String path = Fixtures.tablePath(dir);
        DeltaTable table = tableWithOneRow(path);
        JsonNode before = DeltaTableReader.actions(path, 0, "metaData").get(0);

        TableSnapshot evolved = table.createOrCheck(plus(SCHEMA, HUMIDITY, BATTERY), PARTITIONS, Map.of(), ENGINE_INFO,
                SchemaEvolution.ADD_COLUMNS);

        assertEquals(2, evolved.version());
        List<JsonNode> actions = DeltaTableReader.actions(path, 2);
        List<String> kinds = new ArrayList<>();
        actions.forEach(a -> kinds.add(a.fieldNames().next()));
        assertEquals(List.of("commitInfo", "metaData"), kinds.stream().sorted().toList(), "metaData only: " + kinds);
        JsonNode commitInfo = DeltaTableReader.actions(path, 2, "commitInfo").get(0);
        assertTrue(commitInfo.get("engineInfo").asText().endsWith(ENGINE_INFO), commitInfo.toString());
        assertTrue(commitInfo.hasNonNull("txnId"), "identified as this writer's: " + commitInfo);
        JsonNode after = DeltaTableReader.actions(path, 2, "metaData").get(0);
        assertEquals(before.get("id"), after.get("id"));
        assertEquals(before.get("partitionColumns"), after.get("partitionColumns"));
        assertEquals(before.get("configuration"), after.get("configuration"));
        assertEquals(before.get("createdTime"), after.get("createdTime"));
        List<String> columns = described(after);
        assertEquals(described(before), columns.subList(0, columns.size() - 2), "old columns kept as they were");
        // NOT NULL in the mapping, nullable in the table: the row already there has no value
        assertEquals(List.of("humidity:double:true", "battery:integer:true"), columns.subList(columns.size() - 2,
                columns.size()));
        assertTrue(DeltaTableReader.actions(path, 2, "protocol").isEmpty(), "the protocol stays (1,2)");

        // a fresh reader sees the new schema; the old file reads null there
        assertEquals(List.of("humidity", "battery"), DeltaTableReader.columnNames(path).subList(9, 11));
        List<Map<String, Object>> rows = DeltaTableReader.readAll(path);
        assertEquals(1, rows.size());
        assertTrue(rows.get(0).containsKey("humidity"), rows.toString());
        assertNull(rows.get(0).get("humidity"));
        assertNull(rows.get(0).get("battery"));

        // rows written under the new schema carry their values, through checkpoints and checksums
        List<Column> dataColumns = new ArrayList<>(Fixtures.DATA_COLUMNS);
        dataColumns.add(Column.of("humidity", ColumnType.DOUBLE, true));
        dataColumns.add(BATTERY);
        TableSnapshot base = evolved;
        for (long seq = 2; seq <= 5; seq++) {
            Map<String, Object> row = new HashMap<>(Fixtures.row("dev-" + seq, "2026-06-22T08:16:00Z", 200, 1.5, null,
                    seq, "1.00"));
            row.put("humidity", 40.0 + seq);
            row.put("battery", (int) seq);
            DataFile file = TestParquetFiles.write(path, "device_type=plug/event_date=2026-06-22", dataColumns,
                    Map.of("device_type", "plug", "event_date", "2026-06-22"), List.of(row));
            table.commitAppend(base, List.of(file), Map.of("c/t/0", seq), ENGINE_INFO);
            base = table.latest().orElseThrow();
        }
        Map<Long, Object> humidity = new HashMap<>();
        DeltaTableReader.readAll(path).forEach(r -> humidity.put((Long) r.get("seq"), r.get("humidity")));
        assertNull(humidity.get(1L));
        assertEquals(45.0, humidity.get(5L));
        // every checksum Kernel wrote after the change records the new schema
        try (Stream<Path> log = Files.list(dir.resolve("table").resolve("_delta_log"))) {
            List<Path> checksums = log.filter(p -> p.getFileName().toString().matches("\\d{20}\\.crc")).toList();
            assertTrue(checksums.stream().anyMatch(p -> p.getFileName().toString().startsWith("0000000000000000000")
                    && Long.parseLong(p.getFileName().toString().substring(0, 20)) > 2), "Kernel wrote checksums after "
                    + "the change: " + checksums);
            for (Path crc : checksums) {
                long version = Long.parseLong(crc.getFileName().toString().substring(0, 20));
                String text = Files.readString(crc);
                assertEquals(version >= 2, text.contains("humidity"), crc + ": " + text);
            }
        }

        // again with the same mapping (a restart after the change, before any data): nothing to add
        TableSnapshot again = new DeltaTable(Fixtures.engine(), path).createOrCheck(plus(SCHEMA, HUMIDITY, BATTERY),
                PARTITIONS, Map.of(), ENGINE_INFO, SchemaEvolution.ADD_COLUMNS);
        assertEquals(base.version(), again.version());
    }

    @Test
    void aNotNullColumnTheMappingMakesNullableBecomesNullableAndOldRowsKeepTheirValues() throws Exception {
        String path = Fixtures.tablePath(dir);
        DeltaTable table = tableWithOneRow(path);
        RowSchema relaxed = replacing(SCHEMA, "device_id", Column.of("device_id", ColumnType.STRING, true));

        assertThrows(TableMismatchException.class, () -> table.createOrCheck(relaxed, PARTITIONS, Map.of(),
                ENGINE_INFO));
        TableSnapshot s = table.createOrCheck(relaxed, PARTITIONS, Map.of(), ENGINE_INFO, SchemaEvolution.ADD_COLUMNS);

        assertEquals(2, s.version());
        List<String> columns = described(DeltaTableReader.actions(path, 2, "metaData").get(0));
        assertEquals("device_id:string:true", columns.get(0));
        assertEquals("device_type:string:false", columns.get(1), "only the column the mapping relaxed");
        assertEquals(9, columns.size());
        assertEquals("dev-1", DeltaTableReader.readAll(path).get(0).get("device_id"));
    }

    @Test
    void withoutEvolutionANewMappingColumnIsRefusedAsBefore() {
        String path = Fixtures.tablePath(dir);
        DeltaTable table = tableWithOneRow(path);
        TableMismatchException e = assertThrows(TableMismatchException.class, () -> table.createOrCheck(
                plus(SCHEMA, BATTERY), PARTITIONS, Map.of(), ENGINE_INFO));
        assertEquals(List.of("column 'battery' (integer) is in the mapping but not in the table"), e.differences());
        assertFalse(e.getMessage().contains("schema.evolution"), e.getMessage());
        assertEquals(1, DeltaTableReader.version(path));
    }

    @Test
    void whatAddingColumnsCannotMendIsRefusedAndNothingIsAdded() {
        String path = Fixtures.tablePath(dir);
        tableWithOneRow(path);
        Map<String, RowSchema> refused = new java.util.LinkedHashMap<>();
        refused.put("column 'linkquality' type differs: table says integer, mapping says long",
                plus(replacing(SCHEMA, "linkquality", Column.of("linkquality", ColumnType.LONG, true)), BATTERY));
        refused.put("column 'seq' (long) is in the table but not in the mapping; add it to the mapping",
                plus(replacing(SCHEMA, "seq", null), BATTERY));
        // a case variant of an existing column is another column to Delta's readers: never added beside it
        refused.put("column 'Seq' (long) is in the mapping but not in the table (the table has 'seq'; names must "
                + "match exactly)", plus(replacing(SCHEMA, "seq", Column.of("Seq", ColumnType.LONG, true)), BATTERY));
        // a name a table without column mapping cannot hold
        refused.put("column 'bat tery' (integer) is in the mapping but not in the table",
                plus(SCHEMA, Column.of("bat tery", ColumnType.INT, true)));
        refused.forEach((expected, mapping) -> {
            TableMismatchException e = assertThrows(TableMismatchException.class, () -> new DeltaTable(
                    Fixtures.engine(), path).createOrCheck(mapping, PARTITIONS, Map.of(), ENGINE_INFO,
                    SchemaEvolution.ADD_COLUMNS), expected);
            assertTrue(e.differences().contains(expected), expected + " in " + e.differences());
            assertTrue(e.getMessage().contains("schema.evolution=add-columns only adds nullable columns"),
                    e.getMessage());
            assertEquals(1, DeltaTableReader.version(path), "nothing committed for " + expected);
        });

        // a new partition column: partitions never change
        RowSchema region = plus(SCHEMA, Column.of("region", ColumnType.STRING, true));
        List<String> partitions = List.of("device_type", "event_date", "region");
        TableMismatchException e = assertThrows(TableMismatchException.class, () -> new DeltaTable(Fixtures.engine(),
                path).createOrCheck(region, partitions, Map.of(), ENGINE_INFO, SchemaEvolution.ADD_COLUMNS));
        assertTrue(e.differences().contains("partition columns differ: table says [device_type, event_date], "
                + "mapping says [device_type, event_date, region]"), e.differences().toString());
        assertEquals(1, DeltaTableReader.version(path));
        assertEquals(9, DeltaTableReader.columnNames(path).size());
    }

    @Test
    void twoWritersAddingDifferentColumnsAtOnceEndWithOneSchemaHoldingBoth() {
        String path = Fixtures.tablePath(dir);
        tableWithOneRow(path);
        Engine plain = Fixtures.engine();
        // the rival adds humidity right before this writer's schema commit is written: this one loses version 2
        Engine racing = TestEngine.wrapping(plain).beforeCommitFile(2, () -> new DeltaTable(plain, path)
                .createOrCheck(plus(SCHEMA, HUMIDITY), PARTITIONS, Map.of(), "rival", SchemaEvolution.ADD_COLUMNS));

        TableSnapshot s = new DeltaTable(racing, path).createOrCheck(plus(SCHEMA, BATTERY), PARTITIONS, Map.of(),
                ENGINE_INFO, SchemaEvolution.ADD_COLUMNS);

        assertEquals(3, s.version());
        assertTrue(DeltaTableReader.actions(path, 2, "commitInfo").get(0).get("engineInfo").asText().endsWith("rival"));
        List<String> names = DeltaTableReader.columnNames(path);
        assertTrue(names.contains("humidity") && names.contains("battery"), names.toString());
        assertEquals(11, names.size(), names.toString());
        // the rival, checking again with its mapping, finds battery: not in its mapping, and refused as any
        // column the mapping lacks (it must name battery before it starts writing)
        assertThrows(TableMismatchException.class, () -> new DeltaTable(plain, path).createOrCheck(
                plus(SCHEMA, HUMIDITY), PARTITIONS, Map.of(), "rival", SchemaEvolution.ADD_COLUMNS));
        // one that names both writes on
        assertEquals(3, new DeltaTable(plain, path).createOrCheck(plus(SCHEMA, HUMIDITY, BATTERY), PARTITIONS,
                Map.of(), ENGINE_INFO, SchemaEvolution.ADD_COLUMNS).version());
    }

    @Test
    void aColumnAddedAfterTheReadTheMappingWasBuiltFromIsTheOtherWritersNotOneTheMappingLacks() {
        String path = Fixtures.tablePath(dir);
        DeltaTable table = tableWithOneRow(path);
        TableSnapshot basis = table.latest().orElseThrow();
        // another writer adds humidity after this one read the table and before it evolves it
        new DeltaTable(Fixtures.engine(), path).createOrCheck(plus(SCHEMA, HUMIDITY), PARTITIONS, Map.of(), "rival",
                SchemaEvolution.ADD_COLUMNS);

        // read afresh, the table has a column the mapping lacks
        assertThrows(TableMismatchException.class, () -> table.createOrCheck(plus(SCHEMA, BATTERY), PARTITIONS,
                Map.of(), ENGINE_INFO, SchemaEvolution.ADD_COLUMNS));
        // evolved from the read the mapping came from, humidity is the rival's and battery is added on top
        TableSnapshot s = table.checkFrom(basis, plus(SCHEMA, BATTERY), PARTITIONS, Map.of(), ENGINE_INFO,
                SchemaEvolution.ADD_COLUMNS);

        assertEquals(3, s.version());
        List<String> names = DeltaTableReader.columnNames(path);
        assertTrue(names.contains("humidity") && names.contains("battery"), names.toString());
        assertEquals(11, names.size(), names.toString());
        // a real difference is still refused from an old read
        TableMismatchException e = assertThrows(TableMismatchException.class, () -> table.checkFrom(basis,
                plus(SCHEMA, Column.of("humidity", ColumnType.STRING, true)), PARTITIONS, Map.of(), ENGINE_INFO,
                SchemaEvolution.ADD_COLUMNS));
        assertEquals(List.of("column 'humidity' type differs: table says double, mapping says string"),
                e.differences());
        assertEquals(3, DeltaTableReader.version(path));
    }

    @Test
    void twoWritersAddingTheSameColumnCommitItOnce() {
        String path = Fixtures.tablePath(dir);
        tableWithOneRow(path);
        Engine plain = Fixtures.engine();
        Engine racing = TestEngine.wrapping(plain).beforeCommitFile(2, () -> new DeltaTable(plain, path)
                .createOrCheck(plus(SCHEMA, BATTERY), PARTITIONS, Map.of(), "rival", SchemaEvolution.ADD_COLUMNS));

        TableSnapshot s = new DeltaTable(racing, path).createOrCheck(plus(SCHEMA, BATTERY), PARTITIONS, Map.of(),
                ENGINE_INFO, SchemaEvolution.ADD_COLUMNS);

        assertEquals(2, s.version());
        assertEquals(2, DeltaTableReader.version(path));
        assertEquals(1, DeltaTableReader.columnNames(path).stream().filter("battery"::equals).count());
    }

    @Test
    void aColumnTheOtherWriterAddedWithAnotherTypeIsRefused() {
        String path = Fixtures.tablePath(dir);
        tableWithOneRow(path);
        Engine plain = Fixtures.engine();
        Engine racing = TestEngine.wrapping(plain).beforeCommitFile(2, () -> new DeltaTable(plain, path)
                .createOrCheck(plus(SCHEMA, Column.of("battery", ColumnType.STRING, true)), PARTITIONS, Map.of(),
                        "rival", SchemaEvolution.ADD_COLUMNS));

        TableMismatchException e = assertThrows(TableMismatchException.class, () -> new DeltaTable(racing, path)
                .createOrCheck(plus(SCHEMA, BATTERY), PARTITIONS, Map.of(), ENGINE_INFO, SchemaEvolution.ADD_COLUMNS));

        assertEquals(List.of("column 'battery' type differs: table says string, mapping says integer"),
                e.differences());
        assertEquals(2, DeltaTableReader.version(path), "only the rival's change is in the table");
    }
}
