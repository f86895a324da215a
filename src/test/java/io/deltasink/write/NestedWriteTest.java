package io.deltasink.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.deltasink.convert.ColumnMapping;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;

/**
 * Files of a table with struct, array and map columns, written by the real write path: DuckDB's own
 * Parquet reader reads every value back (nulls at every level, empty lists and maps), the layout is
 * Parquet's standard one (LIST list/element, MAP key_value/key/value), statistics cover the leading
 * flat columns only, and a value that does not fit its nested type is refused before Parquet sees it.
 */
class NestedWriteTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final RowSchema SCHEMA = ColumnMapping.parse("id:long=id, address:struct<street:string,zip:int,"
            + "price:decimal(20,2)>=a, tags:array<string>=t, attrs:map<string,double>=m, "
            + "grid:array<array<int>>=g, after:int=x", Set.of("id")).schema();

    @TempDir
    Path dir;

    @Test
    void duckDbReadsEveryNestedValueBackAndStatisticsCoverOnlyLeadingFlatColumns() throws Exception {
        List<Object[]> rows = new ArrayList<>();
        List<String> expectedJson = new ArrayList<>();
        for (long id = 0; id < 5_000; id++) {
            int shape = (int) (id % 5);
            Object[] address = shape == 1 ? null : shape == 2 ? new Object[] {null, null, null}
                    : new Object[] {"st " + id + " \u2603", (int) id - 2_500, new BigDecimal("123456789012345678.9" + (id % 10))};
            List<String> tags = shape == 3 ? List.of() : shape == 4 ? null : Arrays.asList("a" + id, null, "");
            Map<String, Object> attrs = new LinkedHashMap<>();
            if (shape != 0) {
                attrs.put("p", id + 0.25);
                attrs.put("q", null);
            }
            List<List<Integer>> grid = shape == 2 ? Arrays.asList(null, List.of(), Arrays.asList(1, null))
                    : List.of(List.of((int) id));
            rows.add(new Object[] {id, address, tags, shape == 4 ? null : attrs, grid, shape == 0 ? null : (int) id});
            expectedJson.add("{\"address\":" + (address == null ? "null" : "{\"street\":" + str(address[0]) + ",\"zip\":"
                    + address[1] + ",\"price\":" + address[2] + "}")
                    + ",\"tags\":" + (tags == null ? "null" : JSON.writeValueAsString(tags))
                    + ",\"attrs\":" + (shape == 4 ? "null" : JSON.writeValueAsString(attrs))
                    + ",\"grid\":" + JSON.writeValueAsString(grid) + "}");
        }
        PartitionedWriter writer = new PartitionedWriter(WriterSettings.defaults().withRowGroupSizeBytes(64 * 1024)
                .withPageSizeBytes(4096), SCHEMA, List.of(), ParquetTestFiles.hadoopPath(dir), new Configuration(),
                ParquetRoundTripTest.CLOCK);
        for (Object[] row : rows) {
            writer.write(row);
        }
        List<DataFile> files = writer.finish();
        assertEquals(1, files.size());
        DataFile.FileStats stats = files.get(0).stats();
        assertEquals(5_000, stats.numRecords());
        assertEquals(Map.of("id", 0L), stats.minValues());
        assertEquals(Map.of("id", 4_999L), stats.maxValues());
        assertEquals(Map.of("id", 0L), stats.nullCount(), "nothing after the first nested column has statistics");

        String path = dir.resolve(files.get(0).path()).toString().replace("'", "''");
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement st = duck.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT id, after, to_json({'address': address, 'tags': tags, "
                    + "'attrs': attrs, 'grid': grid}) FROM read_parquet('" + path + "') ORDER BY id")) {
                int r = 0;
                while (rs.next()) {
                    assertEquals(rows.get(r)[0], rs.getLong(1));
                    assertEquals(rows.get(r)[5], rs.getObject(2));
                    JsonNode expected = JSON.readTree(expectedJson.get(r));
                    JsonNode actual = JSON.readTree(rs.getString(3));
                    assertEquals(expected.toString(), normalize(expected, actual).toString(), "row " + r);
                    r++;
                }
                assertEquals(rows.size(), r);
            }
            List<String> layout = new ArrayList<>();
            try (ResultSet rs = st.executeQuery("SELECT name, repetition_type, converted_type FROM parquet_schema('"
                    + path + "')")) {
                while (rs.next()) {
                    layout.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3));
                }
            }
            // compaction's record path copies the nested values and keeps statistics to the leading flat columns
            List<DataFile> compacted = new ParquetRewriter(ParquetTestFiles.hadoopPath(dir), new Configuration(),
                    WriterSettings.defaults(), SCHEMA.columns(), ParquetRoundTripTest.CLOCK)
                    .rewrite("", Map.of(), List.of(files.get(0).path()));
            assertEquals(1, compacted.size());
            assertEquals(Map.of("id", 0L), compacted.get(0).stats().minValues());
            assertEquals(Map.of("id", 0L), compacted.get(0).stats().nullCount());
            String copy = dir.resolve(compacted.get(0).path()).toString().replace("'", "''");
            assertEquals(allRows(st, path), allRows(st, copy));
            int tags = layout.indexOf("tags OPTIONAL LIST");
            assertEquals(List.of("tags OPTIONAL LIST", "list REPEATED null", "element OPTIONAL UTF8",
                    "attrs OPTIONAL MAP", "key_value REPEATED null", "key REQUIRED UTF8", "value OPTIONAL null"),
                    layout.subList(tags, tags + 7), layout.toString());
        }
    }

    private static List<String> allRows(Statement st, String path) throws Exception {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = st.executeQuery("SELECT to_json(t) FROM read_parquet('" + path + "') t ORDER BY id")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        assertEquals(5_000, out.size());
        return out;
    }

    /** DuckDB prints decimals as numbers of its own scale: compare them by value. */
    private static JsonNode normalize(JsonNode expected, JsonNode actual) {
        if (expected != null && expected.isNumber() && actual.isNumber()
                && expected.decimalValue().compareTo(actual.decimalValue()) == 0) {
            return expected;
        }
        if (actual.isObject() && expected != null && expected.isObject()) {
            var out = JSON.createObjectNode();
            actual.properties().forEach(e -> out.set(e.getKey(), normalize(expected.get(e.getKey()), e.getValue())));
            return out;
        }
        if (actual.isArray() && expected != null && expected.isArray()) {
            var out = JSON.createArrayNode();
            for (int i = 0; i < actual.size(); i++) {
                out.add(normalize(expected.get(i), actual.get(i)));
            }
            return out;
        }
        return actual;
    }

    private static String str(Object s) throws Exception {
        return s == null ? "null" : JSON.writeValueAsString(s);
    }

    @Test
    void aNestedValueThatDoesNotFitIsRefusedBeforeParquetSeesItAndTheFileStaysUsable() throws Exception {
        PartitionedWriter writer = new PartitionedWriter(WriterSettings.defaults(), SCHEMA, List.of(),
                ParquetTestFiles.hadoopPath(dir), new Configuration(), ParquetRoundTripTest.CLOCK);
        Object[] good = {1L, null, List.of("x"), Map.of(), List.of(), 1};
        writer.write(good);
        Object[][] bad = {
                {2L, new Object[] {"s", "not an int", null}, null, null, null, null},
                {2L, new Object[] {"s"}, null, null, null, null},
                {2L, null, List.of(1), null, null, null},
                {2L, null, null, Map.of(1, 2.0), null, null},
                {2L, null, null, null, List.of(List.of("x")), null},
                {2L, new Object[] {null, null, new BigDecimal("1.234")}, null, null, null, null},
        };
        for (Object[] row : bad) {
            RowRejectedException e = assertThrows(RowRejectedException.class, () -> writer.write(row));
            assertFalse(e.getMessage().isEmpty());
        }
        writer.write(good);
        List<DataFile> files = writer.finish();
        assertEquals(2, files.get(0).stats().numRecords());
        assertTrue(files.get(0).stats().minValues().containsKey("id"));
    }
}
