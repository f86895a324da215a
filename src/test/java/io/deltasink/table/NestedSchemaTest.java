package io.deltasink.table;

import static io.deltasink.table.Fixtures.ENGINE_INFO;
import static io.deltasink.table.Fixtures.PARTITIONS;
import static io.deltasink.table.Fixtures.SCHEMA;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.NestedType;
import io.deltasink.model.RowSchema;
import io.deltasink.testing.DeltaTableReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Struct, array and map columns in the table's schema: the metaData spells them as the Delta
 * protocol does, a table holding them is recognised as the same mapping after a restart, and
 * schema.evolution=add-columns adds a nested column to an existing table (old rows read null); a
 * changed nested type is refused as any type change.
 */
class NestedSchemaTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final NestedType.Leaf STRING = new NestedType.Leaf(ColumnType.STRING, 0, 0);
    private static final Column ADDRESS = Column.nested("address", new NestedType.Struct(List.of(
            new NestedType.Field("street", STRING),
            new NestedType.Field("tags", new NestedType.Array(STRING)),
            new NestedType.Field("attrs", new NestedType.MapOf(new NestedType.Leaf(ColumnType.DECIMAL, 12, 3)))
    )), true);

    @TempDir
    Path dir;

    private static RowSchema plus(RowSchema base, Column more) {
        List<Column> all = new ArrayList<>(base.columns());
        all.add(more);
        return new RowSchema(all);
    }

    @Test
    void addColumnsAddsANestedColumnAndTheTableMatchesItAfterwards() throws Exception {
        String path = Fixtures.tablePath(dir);
        DeltaTable table = Fixtures.createTable(Fixtures.engine(), path, Map.of());
        table.commitAppend(table.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, 1)), Map.of("c/t/0", 1L),
                ENGINE_INFO);

        RowSchema evolved = plus(SCHEMA, ADDRESS);
        table.createOrCheck(evolved, PARTITIONS, Map.of(), ENGINE_INFO, SchemaEvolution.ADD_COLUMNS);
        JsonNode metaData = DeltaTableReader.actions(path, 2, "metaData").get(0);
        JsonNode address = null;
        for (JsonNode f : JSON.readTree(metaData.get("schemaString").asText()).get("fields")) {
            if (f.get("name").asText().equals("address")) {
                address = f;
            }
        }
        assertEquals(JSON.readTree("{\"name\":\"address\",\"type\":{\"type\":\"struct\",\"fields\":["
                + "{\"name\":\"street\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}},"
                + "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"elementType\":\"string\",\"containsNull\":true},"
                + "\"nullable\":true,\"metadata\":{}},"
                + "{\"name\":\"attrs\",\"type\":{\"type\":\"map\",\"keyType\":\"string\",\"valueType\":\"decimal(12,3)\","
                + "\"valueContainsNull\":true},\"nullable\":true,\"metadata\":{}}]},\"nullable\":true,\"metadata\":{}}"),
                address);

        // a restart with the same mapping: the table matches, nothing is added
        long version = DeltaTableReader.version(path);
        DeltaTable reopened = new DeltaTable(Fixtures.engine(), path);
        assertEquals(version, reopened.createOrCheck(evolved, PARTITIONS, Map.of(), ENGINE_INFO,
                SchemaEvolution.NONE).version());
        for (Map<String, Object> row : DeltaTableReader.readAll(path)) {
            assertNull(row.get("address"), "a row written before the column was added reads null");
        }

        // another nested type under the same name is a type change: refused, naming the column and both types
        Column changed = Column.nested("address", new NestedType.Struct(List.of(new NestedType.Field("street", STRING))),
                true);
        TableMismatchException e = assertThrows(TableMismatchException.class, () -> reopened.createOrCheck(
                plus(SCHEMA, changed), PARTITIONS, Map.of(), ENGINE_INFO, SchemaEvolution.ADD_COLUMNS));
        assertTrue(e.getMessage().contains("address") && e.getMessage().contains("struct<street:string>")
                && e.getMessage().contains("struct<street:string,tags:array<string>,attrs:map<string,decimal(12,3)>>"),
                e.getMessage());
    }
}
