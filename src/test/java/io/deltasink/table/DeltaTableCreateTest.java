package io.deltasink.table;

import static io.deltasink.table.Fixtures.ENGINE_INFO;
import static io.deltasink.table.Fixtures.PARTITIONS;
import static io.deltasink.table.Fixtures.SCHEMA;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.kernel.TableManager;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.transaction.DataLayoutSpec;
import io.delta.kernel.utils.CloseableIterable;
import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.PartitionSpec;
import io.deltasink.model.RowSchema;
import io.deltasink.testing.DeltaTableReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeltaTableCreateTest {
    @TempDir
    Path dir;

    @Test
    void latestIsEmptyWhenThereIsNoTable() {
        DeltaTable table = new DeltaTable(Fixtures.engine(), Fixtures.tablePath(dir));
        assertTrue(table.latest().isEmpty());
    }

    @Test
    void anEmptyLogDirectoryLeftByACrashCountsAsNoTable() throws Exception {
        java.nio.file.Files.createDirectories(dir.resolve("table").resolve("_delta_log"));
        String path = "file:" + dir.resolve("table").toAbsolutePath();
        DeltaTable table = new DeltaTable(Fixtures.engine(), path);
        assertTrue(table.latest().isEmpty());
        assertEquals(0, table.createOrCheck(SCHEMA, PARTITIONS, Map.of(), ENGINE_INFO).version());
    }

    @Test
    void createWritesProtocolAndMetadataWithSchemaPartitionsAndProperties() throws Exception {
        String path = Fixtures.tablePath(dir);
        DeltaTable table = new DeltaTable(Fixtures.engine(), path);

        TableSnapshot snapshot = table.createOrCheck(SCHEMA, PARTITIONS,
                Map.of("delta.checkpointInterval", "5", "owner", "sensors"), ENGINE_INFO);

        assertEquals(0, snapshot.version());
        assertEquals(PARTITIONS, snapshot.partitionColumns());
        assertEquals(new TableColumn("amount", "decimal(10,2)", true), snapshot.columns().get(7));
        assertEquals("5", snapshot.properties().get("delta.checkpointInterval"));

        JsonNode protocol = DeltaTableReader.actions(path, 0, "protocol").get(0);
        assertEquals(1, protocol.get("minReaderVersion").asInt());
        assertEquals(2, protocol.get("minWriterVersion").asInt());
        assertFalse(protocol.has("writerFeatures"), protocol.toString());

        JsonNode metaData = DeltaTableReader.actions(path, 0, "metaData").get(0);
        assertEquals("[\"device_type\",\"event_date\"]", metaData.get("partitionColumns").toString());
        assertEquals("5", metaData.get("configuration").get("delta.checkpointInterval").asText());
        assertEquals("sensors", metaData.get("configuration").get("owner").asText());
        JsonNode fields = new ObjectMapper().readTree(metaData.get("schemaString").asText()).get("fields");
        List<String> described = new ArrayList<>();
        fields.forEach(f -> described.add(f.get("name").asText() + ":" + f.get("type").asText() + ":"
                + f.get("nullable").asBoolean()));
        assertEquals(List.of("device_id:string:false", "device_type:string:false", "event_time:timestamp:true",
                "linkquality:integer:true", "power:double:true", "contact:boolean:true", "seq:long:true",
                "amount:decimal(10,2):true", "event_date:date:true"), described);

        JsonNode commitInfo = DeltaTableReader.actions(path, 0, "commitInfo").get(0);
        assertEquals("CREATE TABLE", commitInfo.get("operation").asText());
        assertTrue(commitInfo.get("engineInfo").asText().endsWith(ENGINE_INFO), commitInfo.toString());
        assertTrue(DeltaTableReader.actions(path, 0, "add").isEmpty());
    }

    @Test
    void createOrCheckOnAMatchingTableReturnsItWithoutANewVersion() {
        String path = Fixtures.tablePath(dir);
        Fixtures.createTable(Fixtures.engine(), path, Map.of());
        // column order is irrelevant; a NOT NULL mapping column over a nullable table column is fine
        List<Column> reordered = new ArrayList<>(SCHEMA.columns());
        java.util.Collections.reverse(reordered);
        reordered.set(reordered.indexOf(Column.of("power", ColumnType.DOUBLE, true)),
                Column.of("power", ColumnType.DOUBLE, false));

        TableSnapshot again = new DeltaTable(Fixtures.engine(), path)
                .createOrCheck(new RowSchema(reordered), PARTITIONS, Map.of(), ENGINE_INFO);

        assertEquals(0, again.version());
        assertEquals(0, DeltaTableReader.version(path));
    }

    @Test
    void createOrCheckRefusesADifferentTableNamingEachDifference() {
        String path = Fixtures.tablePath(dir);
        Fixtures.createTable(Fixtures.engine(), path, Map.of());
        List<Column> columns = new ArrayList<>(SCHEMA.columns());
        columns.removeIf(c -> c.name().equals("contact"));                      // table has an extra column
        columns.replaceAll(c -> switch (c.name()) {
            case "linkquality" -> Column.of("linkquality", ColumnType.LONG, true);    // type differs
            case "device_id" -> Column.of("device_id", ColumnType.STRING, true);      // nullable vs NOT NULL
            case "seq" -> Column.of("SEQ", ColumnType.LONG, true);                    // case differs
            default -> c;
        });
        columns.add(Column.of("battery", ColumnType.INT, true));                 // missing in table

        TableMismatchException e = assertThrows(TableMismatchException.class, () -> new DeltaTable(Fixtures.engine(), path)
                .createOrCheck(new RowSchema(columns), List.of("device_type"), Map.of(), ENGINE_INFO));

        String m = e.getMessage();
        assertTrue(m.contains("column 'linkquality' type differs: table says integer, mapping says long"), m);
        assertTrue(m.contains("column 'device_id' is NOT NULL in the table but nullable in the mapping"), m);
        assertTrue(m.contains("column 'battery' (integer) is in the mapping but not in the table"), m);
        assertTrue(m.contains("column 'contact' (boolean) is in the table but not in the mapping"), m);
        assertTrue(m.contains("partition columns differ: table says [device_type, event_date], mapping says [device_type]"), m);
        assertTrue(m.contains("column 'SEQ' (long) is in the mapping but not in the table (the table has 'seq'; names must match exactly)"), m);
        assertEquals(7, e.differences().size(), e.differences().toString());
        assertTrue(e instanceof org.apache.kafka.connect.errors.ConnectException);
        assertEquals(0, DeltaTableReader.version(path));
    }

    @Test
    void createOrCheckRefusesAnUnpartitionedTableWhenTheMappingPartitions() {
        String path = Fixtures.tablePath(dir);
        new DeltaTable(Fixtures.engine(), path).createOrCheck(SCHEMA, List.of(), Map.of(), ENGINE_INFO);

        TableMismatchException e = assertThrows(TableMismatchException.class,
                () -> new DeltaTable(Fixtures.engine(), path).createOrCheck(SCHEMA, PARTITIONS, Map.of(), ENGINE_INFO));
        assertEquals(List.of("partition columns differ: table says [], mapping says [device_type, event_date]"),
                e.differences());
    }

    @Test
    void aColumnMappingTableIsRefusedForNow() {
        String path = Fixtures.tablePath(dir);
        assertThrows(IllegalArgumentException.class, () -> new DeltaTable(Fixtures.engine(), path)
                .createOrCheck(SCHEMA, PARTITIONS, Map.of("delta.columnMapping.mode", "name"), ENGINE_INFO));
        assertTrue(new DeltaTable(Fixtures.engine(), path).latest().isEmpty());
        // such a table made by another tool
        Engine engine = Fixtures.engine();
        TableManager.buildCreateTableTransaction(path, KernelTypes.schemaOf(SCHEMA), "other tool")
                .withTableProperties(Map.of("delta.columnMapping.mode", "name"))
                .withDataLayoutSpec(DataLayoutSpec.partitioned(PARTITIONS.stream()
                        .map(io.delta.kernel.expressions.Column::new).toList()))
                .build(engine).commit(engine, CloseableIterable.emptyIterable());

        TableMismatchException e = assertThrows(TableMismatchException.class,
                () -> new DeltaTable(Fixtures.engine(), path).createOrCheck(SCHEMA, PARTITIONS, Map.of(), ENGINE_INFO));
        assertEquals(List.of("the table uses column mapping (delta.columnMapping.mode=name), "
                + "which this connector does not write yet"), e.differences());
    }

    @Test
    void aPartitionColumnOutsideTheMappingIsRejectedBeforeAnythingIsWritten() {
        String path = Fixtures.tablePath(dir);
        assertThrows(IllegalArgumentException.class, () -> new DeltaTable(Fixtures.engine(), path)
                .createOrCheck(SCHEMA, List.of("nope"), Map.of(), ENGINE_INFO));
        assertTrue(new DeltaTable(Fixtures.engine(), path).latest().isEmpty());
    }

    @Test
    void partitionColumnsFollowTheSharedRulesBeforeAnythingIsWritten() {
        String path = Fixtures.tablePath(dir);
        RowSchema withBinary = new RowSchema(List.of(Column.of("id", ColumnType.LONG, false),
                Column.of("raw", ColumnType.BINARY, true)));
        RowSchema one = new RowSchema(List.of(Column.of("id", ColumnType.LONG, false)));
        Map<RowSchema, List<String>> cases = Map.of(SCHEMA, List.of("device_type", "device_type"),
                withBinary, List.of("raw"), one, List.of("id"));
        cases.forEach((schema, partitions) -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new DeltaTable(
                    Fixtures.engine(), path).createOrCheck(schema, partitions, Map.of(), ENGINE_INFO), partitions::toString);
            assertEquals(String.join("; ", PartitionSpec.problems(schema, partitions)), e.getMessage());
            assertTrue(new DeltaTable(Fixtures.engine(), path).latest().isEmpty(), "no table for " + partitions);
        });
    }

    @Test
    void theLoserOfACreateRaceChecksTheWinnersTable() {
        String path = Fixtures.tablePath(dir);
        Engine plain = Fixtures.engine();
        Engine racing = TestEngine.wrapping(plain).beforeCommitFile(0,
                () -> new DeltaTable(plain, path).createOrCheck(SCHEMA, PARTITIONS, Map.of(), "winner"));

        TableSnapshot snapshot = new DeltaTable(racing, path).createOrCheck(SCHEMA, PARTITIONS, Map.of(), ENGINE_INFO);

        assertEquals(0, snapshot.version());
        assertTrue(DeltaTableReader.actions(path, 0, "commitInfo").get(0).get("engineInfo").asText().endsWith("winner"));
        assertEquals(List.of(0L), List.copyOf(DeltaTableReader.commitOperations(path).keySet()));
    }

    @Test
    void theLoserOfACreateRaceRefusesAWinnerWithAnotherSchema() {
        String path = Fixtures.tablePath(dir);
        Engine plain = Fixtures.engine();
        RowSchema other = new RowSchema(List.of(Column.of("device_type", ColumnType.STRING, true),
                Column.of("event_date", ColumnType.DATE, true), Column.of("x", ColumnType.INT, true)));
        Engine racing = TestEngine.wrapping(plain).beforeCommitFile(0,
                () -> new DeltaTable(plain, path).createOrCheck(other, PARTITIONS, Map.of(), "winner"));

        TableMismatchException e = assertThrows(TableMismatchException.class,
                () -> new DeltaTable(racing, path).createOrCheck(SCHEMA, PARTITIONS, Map.of(), ENGINE_INFO));
        assertTrue(e.getMessage().contains("column 'x' (integer) is in the table but not in the mapping"), e.getMessage());
    }

    @Test
    void aJvmWhoseLocaleWritesOtherDigitsIsRefusedBeforeKernelNamesALogFile() {
        for (String ok : new String[] {"en-US", "de-DE", "fr-CH", "hi-IN", "und"}) {
            DeltaTable.checkDigits(Locale.forLanguageTag(ok));
        }
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> DeltaTable.checkDigits(Locale.forLanguageTag("ar-EG")));
        assertTrue(e.getMessage().contains("ar-EG") && e.getMessage().contains("-Duser.language=en"), e.getMessage());
    }
}
