package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.NestedType;
import io.deltasink.model.PartitionSpec;

/** Struct, array and map columns: the grammar, its errors, and conversion from Structs, Maps, Lists and JSON. */
class NestedTypesTest {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-06-22T10:00:00Z"), ZoneOffset.UTC);
    private static final String MAPPING = "id:long=id, address:struct<street:string,zip:int>=payload.address, "
            + "tags:array<string>=payload.tags, attrs:map<string,double>=payload.attrs, "
            + "deep : Array < Struct < a : decimal(5,2) , b : map<string,array<timestamp>> > >=payload.deep";

    private static String error(String columns) {
        return assertThrows(ConfigException.class, () -> ColumnMapping.parse(columns, Set.of())).getMessage();
    }

    @Test
    void grammarReadsNestedTypesInSparkDdlAndPrintsThemBack() {
        ColumnMapping m = ColumnMapping.parse(MAPPING, Set.of());
        NestedType.Struct address = new NestedType.Struct(List.of(
                new NestedType.Field("street", new NestedType.Leaf(ColumnType.STRING, 0, 0)),
                new NestedType.Field("zip", new NestedType.Leaf(ColumnType.INT, 0, 0))));
        assertEquals(Column.nested("address", address, true), m.schema().column(1));
        assertEquals(ColumnType.ARRAY, m.schema().column(2).type());
        assertEquals(ColumnType.MAP, m.schema().column(3).type());
        assertEquals("array<struct<a:decimal(5,2),b:map<string,array<timestamp>>>>", m.schema().column(4).deltaTypeName());
        assertEquals(List.of("payload", "deep"), ((Source.Field) m.specs().get(4).source()).path());
        assertEquals(m, ColumnMapping.parse(m.toString(), Set.of()), "toString parses back: " + m);
    }

    @Test
    void hostileTypesAreRefusedNamingTheColumnAndThePosition() {
        assertTrue(error("a:struct<>=x").contains("column 'a': type 'struct<>' at position 8: struct<> has no fields"),
                error("a:struct<>=x"));
        assertTrue(error("a:array<string=x, b:int=y").contains("'<' without a matching '>'"),
                error("a:array<string=x, b:int=y"));
        assertTrue(error("a:map<int,string>=x").contains("column 'a': type 'map<int,string>' at position 5: "
                + "map keys must be string"), error("a:map<int,string>=x"));
        assertTrue(error("a:struct<my field:int>=x").contains("struct field name 'my field' may not contain ' '"),
                error("a:struct<my field:int>=x"));
        assertTrue(error("a:struct<f:int,F:long>=x").contains("struct field 'F' is defined twice"),
                error("a:struct<f:int,F:long>=x"));
        assertTrue(error("a:array<strin>=x").contains("at position 7: unknown column type 'strin'"), error("a:array<strin>=x"));
        assertTrue(error("a:array<int>>=x").contains("at position 11: unexpected '>'"), error("a:array<int>>=x"));
        assertTrue(error("a:struct<f:int g:int>=x").contains("at position 14: expected '>' closing struct, found 'g'"),
                error("a:struct<f:int g:int>=x"));
        assertTrue(error("a:array<decimal>=x").contains("decimal needs a precision"), error("a:array<decimal>=x"));
        String deep = "array<".repeat(10_000) + "int" + ">".repeat(10_000);
        assertTrue(error("a:" + deep + "=x").contains("nested deeper than 32 levels"));
        assertTrue(error("a:array<array<int>=x, b:int=y").contains("'<' without a matching '>'"));
        assertTrue(error("a:array<timestamp(millis)>=x").contains("expected '>' closing array, found '('"),
                error("a:array<timestamp(millis)>=x"));
    }

    @Test
    void nestedColumnsCannotBePartitionColumnsNorTakeDate() {
        ColumnMapping m = ColumnMapping.parse("t:array<string>=t, x:int=x", Set.of());
        assertTrue(PartitionSpec.problems(m.schema(), List.of("t")).get(0)
                .contains("partition column 't' is array<string>; a partition column cannot be a struct, array or map"));
        assertTrue(error("d:struct<a:int>=date(ts), ts:timestamp=ts").contains("the column type must be date or string"));
        assertTrue(error("d:date=date(s), s:struct<a:timestamp>=s").contains("needs a timestamp or date column"));
        assertTrue(error("a:struct<x:int>=@topic").contains("@topic cannot fill a column of type struct<x:integer>"));
    }

    private static final Schema ADDRESS = SchemaBuilder.struct().optional()
            .field("street", Schema.OPTIONAL_STRING_SCHEMA).field("zip", Schema.OPTIONAL_INT64_SCHEMA)
            .field("extra", Schema.OPTIONAL_STRING_SCHEMA).build();
    private static final Schema VALUE = SchemaBuilder.struct()
            .field("id", Schema.INT64_SCHEMA)
            .field("payload", SchemaBuilder.struct()
                    .field("address", ADDRESS)
                    .field("tags", SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).optional().build())
                    .field("attrs", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_FLOAT32_SCHEMA).optional().build())
                    .field("deep", Schema.OPTIONAL_STRING_SCHEMA)
                    .build())
            .build();

    private static SinkRecord record(Object value) {
        return new SinkRecord("t", 0, null, null, value instanceof Struct s ? s.schema() : null, value, 7);
    }

    @Test
    void structsListsAndMapsConvertPerElementWithNullsAtEveryLevel() {
        MappingConverter converter = new MappingConverter(ColumnMapping.parse(MAPPING, Set.of()), CLOCK);
        Map<String, Float> attrs = new LinkedHashMap<>();
        attrs.put("p", 1.5f);
        attrs.put("q", null);
        Struct payload = new Struct(VALUE.field("payload").schema())
                .put("address", new Struct(ADDRESS).put("street", "Main").put("zip", 12L).put("extra", "dropped"))
                .put("tags", Arrays.asList("a", null, ""))
                .put("attrs", attrs)
                // JSON text inside a Struct field: parsed as the flat rules read JSON text
                .put("deep", "[{\"a\":\"1.5\",\"b\":{\"k\":[\"1970-01-01T00:00:00Z\",null,\"2026-06-22T10:00:00Z\"]}},null,{\"a\":null,\"b\":{}}]");
        Object[] row = converter.convert(record(new Struct(VALUE).put("id", 1L).put("payload", payload)));
        assertEquals(1L, row[0]);
        assertArrayEquals(new Object[] {"Main", 12}, (Object[]) row[1]);
        assertEquals(Arrays.asList("a", null, ""), row[2]);
        Map<String, Object> doubles = new LinkedHashMap<>();
        doubles.put("p", 1.5d);
        doubles.put("q", null);
        assertEquals(doubles, row[3]);
        List<?> deep = (List<?>) row[4];
        assertEquals(3, deep.size());
        Object[] first = (Object[]) deep.get(0);
        assertEquals(new BigDecimal("1.50"), first[0]);
        assertEquals(Map.of("k", Arrays.asList(0L, null, 1_782_122_400_000_000L)), first[1]);
        assertNull(deep.get(1));
        assertArrayEquals(new Object[] {null, Map.of()}, (Object[]) deep.get(2));
    }

    @Test
    void connectLogicalTypesInsideListsAndMapsFollowTheFlatRules() {
        Schema value = SchemaBuilder.struct()
                .field("at", SchemaBuilder.array(org.apache.kafka.connect.data.Timestamp.builder().optional().build()).build())
                .field("prices", SchemaBuilder.map(Schema.STRING_SCHEMA,
                        org.apache.kafka.connect.data.Decimal.builder(2).optional().build()).build())
                .build();
        Map<String, BigDecimal> prices = new LinkedHashMap<>();
        prices.put("a", new BigDecimal("1.25"));
        prices.put("b", null);
        Struct s = new Struct(value).put("at", Arrays.asList(new java.util.Date(1_000L), null)).put("prices", prices);
        MappingConverter converter = new MappingConverter(ColumnMapping.parse(
                "at:array<timestamp>=at, prices:map<string,decimal(10,3)>=prices", Set.of()), CLOCK);
        Object[] row = converter.convert(record(s));
        assertEquals(Arrays.asList(1_000_000L, null), row[0]);
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("a", new BigDecimal("1.250"));
        expected.put("b", null);
        assertEquals(expected, row[1]);
    }

    @Test
    void schemalessMapsAndJsonTextGiveTheSameRows() {
        MappingConverter converter = new MappingConverter(ColumnMapping.parse(MAPPING, Set.of()), CLOCK);
        String json = "{\"id\":1,\"payload\":{\"address\":{\"street\":\"Main\",\"zip\":\"12\"},\"tags\":[\"a\",null,\"\"],"
                + "\"attrs\":{\"p\":1.5,\"q\":null},\"deep\":[{\"a\":1.5,\"b\":{\"k\":[]}}]}}";
        Object[] fromText = converter.convert(record(json));
        Object[] fromBytes = converter.convert(record(json.getBytes(StandardCharsets.UTF_8)));
        Map<String, Object> address = new LinkedHashMap<>();
        address.put("street", "Main");
        address.put("zip", 12);
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("address", address);
        payload.put("tags", Arrays.asList("a", null, ""));
        Map<String, Object> attrs = new LinkedHashMap<>();
        attrs.put("p", 1.5);
        attrs.put("q", null);
        payload.put("attrs", attrs);
        payload.put("deep", List.of(Map.of("a", "1.5", "b", Map.of("k", List.of()))));
        Object[] fromMap = converter.convert(record(Map.of("id", 1, "payload", payload)));
        for (Object[] row : List.of(fromText, fromBytes, fromMap)) {
            assertEquals(1L, row[0]);
            assertArrayEquals(new Object[] {"Main", 12}, (Object[]) row[1]);
            assertEquals(Arrays.asList("a", null, ""), row[2]);
            assertEquals(attrs, row[3]);
            Object[] deep = (Object[]) ((List<?>) row[4]).get(0);
            assertEquals(new BigDecimal("1.50"), deep[0]);
            assertEquals(Map.of("k", List.of()), deep[1]);
        }
    }

    @Test
    void aWrongShapeOrBadLeafIsABadRecordNamingTheColumnAndThePath() {
        MappingConverter converter = new MappingConverter(ColumnMapping.parse(MAPPING, Set.of()), CLOCK);
        String[][] cases = {
                {"\"address\":[1,2]", "address", "expected an object for struct<street:string,zip:integer>, got a list"},
                {"\"address\":{\"zip\":\"x\"}", "address", "at zip: cannot convert text to int"},
                {"\"tags\":{\"a\":1}", "tags", "expected a list for array<string>, got an object"},
                {"\"attrs\":{\"a\":\"x\"}", "attrs", "at [a]: "},
                {"\"deep\":[{\"b\":{\"k\":[true]}}]", "deep", "at [0].b[k][0]: "},
                {"\"deep\":[{\"a\":123456}]", "deep", "at [0].a: "},
                {"\"deep\":\"[not json\"", "deep", "text that is not JSON"},
        };
        for (String[] c : cases) {
            RecordConversionException e = assertThrows(RecordConversionException.class,
                    () -> converter.convert(record("{\"id\":1,\"payload\":{" + c[0] + "}}")), c[0]);
            assertTrue(e.getMessage().contains("'" + c[1] + "'") && e.getMessage().contains(c[2]), c[0] + " -> " + e.getMessage());
        }
    }

    @Test
    void nullAndMissingNestedValuesAreNullAndNotNullIsEnforced() {
        MappingConverter converter = new MappingConverter(ColumnMapping.parse(MAPPING, Set.of("tags")), CLOCK);
        Object[] row = converter.convert(record("{\"id\":1,\"payload\":{\"address\":null,\"tags\":[],\"attrs\":\"null\"}}"));
        assertEquals(new ArrayList<>(Arrays.asList(1L, null, List.of(), null, null)), Arrays.asList(row));
        RecordConversionException e = assertThrows(RecordConversionException.class,
                () -> converter.convert(record("{\"id\":1,\"payload\":{\"tags\":null}}")));
        assertTrue(e.getMessage().contains("'tags'"), e.getMessage());
    }
    @Test
    void anArrayOfObjectsHoldingNullKeepsTheNull() {
        MappingConverter converter = new MappingConverter(ColumnMapping.parse(MAPPING, Set.of()), CLOCK);
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("tags", new Object[] {"a", null, "b"});
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("id", 1L);
        value.put("payload", payload);
        Object[] row = converter.convert(record(value));
        assertEquals(Arrays.asList("a", null, "b"), row[2]);
    }

    @Test
    void twoMapKeysThatReadAsOneTextAreABadRecordNotAnOverwrite() {
        MappingConverter converter = new MappingConverter(ColumnMapping.parse(MAPPING, Set.of()), CLOCK);
        Map<Object, Object> attrs = new LinkedHashMap<>();
        attrs.put(1, 1.0);
        attrs.put("1", 2.0);
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("attrs", attrs);
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("id", 1L);
        value.put("payload", payload);
        RecordConversionException e = assertThrows(RecordConversionException.class, () -> converter.convert(record(value)));
        assertTrue(e.getMessage().contains("'attrs'") && e.getMessage().contains("two map keys read as '1'"), e.getMessage());
    }
}
