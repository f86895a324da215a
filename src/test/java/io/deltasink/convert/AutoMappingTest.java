package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.NestedType;
import io.deltasink.model.RowSchema;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/** columns=auto: columns from the first record's own shape, then ordinary conversion. */
class AutoMappingTest {

    private static Object[] convert(ColumnMapping mapping, SinkRecord record) {
        return new MappingConverter(mapping, Clock.systemUTC()).convert(record);
    }

    @Test
    void structFlattensByItsSchemaWithLogicalTypes() {
        Schema payload = SchemaBuilder.struct().optional()
                .field("power", Schema.FLOAT64_SCHEMA)
                .field("level", Schema.INT8_SCHEMA)
                .build();
        Schema schema = SchemaBuilder.struct()
                .field("id", Schema.STRING_SCHEMA)
                .field("count", Schema.INT32_SCHEMA)
                .field("total", Schema.INT64_SCHEMA)
                .field("small", Schema.INT16_SCHEMA)
                .field("ratio", Schema.FLOAT32_SCHEMA)
                .field("on", Schema.BOOLEAN_SCHEMA)
                .field("blob", Schema.BYTES_SCHEMA)
                .field("at", Timestamp.SCHEMA)
                .field("day", Date.SCHEMA)
                .field("time", Time.SCHEMA)
                .field("price", Decimal.builder(2).parameter("connect.decimal.precision", "8").build())
                .field("payload", payload)
                .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
                .field("attrs", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build())
                .build();
        Struct value = new Struct(schema).put("id", "s1").put("count", 3).put("total", 4L).put("small", (short) 5)
                .put("ratio", 0.5f).put("on", true).put("blob", new byte[] {1})
                .put("at", new java.util.Date(1_750_583_760_123L)).put("day", new java.util.Date(86_400_000L * 20_000))
                .put("time", new java.util.Date(3_600_000L)).put("price", new BigDecimal("12.34"))
                .put("payload", null).put("tags", List.of("x", "y")).put("attrs", Map.of("k", 1));
        SinkRecord record = SinkRecords.of("t", 0, 0L, value);

        ColumnMapping mapping = AutoMapping.derive(record);

        assertEquals(List.of(
                Column.of("id", ColumnType.STRING, true),
                Column.of("count", ColumnType.INT, true),
                Column.of("total", ColumnType.LONG, true),
                Column.of("small", ColumnType.SHORT, true),
                Column.of("ratio", ColumnType.FLOAT, true),
                Column.of("on", ColumnType.BOOLEAN, true),
                Column.of("blob", ColumnType.BINARY, true),
                Column.of("at", ColumnType.TIMESTAMP, true),
                Column.of("day", ColumnType.DATE, true),
                Column.of("time", ColumnType.INT, true),
                new Column("price", ColumnType.DECIMAL, 8, 2, true),
                Column.of("payload_power", ColumnType.DOUBLE, true),
                Column.of("payload_level", ColumnType.BYTE, true),
                Column.nested("tags", new NestedType.Array(new NestedType.Leaf(ColumnType.STRING, 0, 0)), true),
                Column.nested("attrs", new NestedType.MapOf(new NestedType.Leaf(ColumnType.INT, 0, 0)), true)),
                mapping.schema().columns());
        Object[] row = convert(mapping, record);
        assertArrayEquals(new Object[] {"s1", 3, 4L, (short) 5, 0.5f, true, new byte[] {1}, 1_750_583_760_123_000L,
            20_000, 3_600_000, new BigDecimal("12.34"), null, null, List.of("x", "y"), Map.of("k", 1)}, row);

        Struct withPayload = new Struct(schema);
        for (var f : schema.fields()) {
            withPayload.put(f, value.get(f));
        }
        withPayload.put("payload", new Struct(payload).put("power", 84.3).put("level", (byte) 2));
        Object[] second = convert(mapping, SinkRecords.of("t", 0, 1L, withPayload));
        assertEquals(84.3, second[11]);
        assertEquals((byte) 2, second[12]);
    }

    @Test
    void mapInfersTypesFromValuesAndFlattensNestedMaps() {
        Map<String, Object> nested = new LinkedHashMap<>();
        nested.put("power", 84.3);
        nested.put("state", "ON");
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("device_id", "plug-1");
        value.put("count", 3);
        value.put("big", 4L);
        value.put("ok", false);
        value.put("price", new BigDecimal("1.5"));
        value.put("payload", nested);
        value.put("list", List.of(1, 2));
        value.put("nothing", null);
        value.put("odd key!", 1);
        value.put("payload_power", 2);

        ColumnMapping mapping = AutoMapping.derive(SinkRecords.of("t", 0, 0L, value));

        assertEquals(List.of(
                Column.of("device_id", ColumnType.STRING, true),
                Column.of("count", ColumnType.LONG, true),
                Column.of("big", ColumnType.LONG, true),
                Column.of("ok", ColumnType.BOOLEAN, true),
                Column.of("price", ColumnType.DOUBLE, true),
                Column.of("payload_power", ColumnType.DOUBLE, true),
                Column.of("payload_state", ColumnType.STRING, true),
                Column.of("list", ColumnType.STRING, true),
                Column.of("nothing", ColumnType.STRING, true),
                Column.of("odd_key!", ColumnType.LONG, true),
                Column.of("payload_power_2", ColumnType.LONG, true)), mapping.schema().columns());
        assertArrayEquals(new Object[] {"plug-1", 3L, 4L, false, 1.5, 84.3, "ON", "[1,2]", null, 1L, 2L},
                convert(mapping, SinkRecords.of("t", 0, 0L, value)));

        Map<String, Object> later = Map.of("device_id", "plug-2", "payload", Map.of("power", 90), "extra", 1);
        assertArrayEquals(new Object[] {"plug-2", null, null, null, null, 90.0, null, null, null, null, null},
                convert(mapping, SinkRecords.of("t", 0, 1L, later)));
    }

    @Test
    void jsonTextFlattensLikeAMap() {
        SinkRecord record = SinkRecords.of("t", 0, 0L, SensorEvents.smartPlug(1).json());
        ColumnMapping mapping = AutoMapping.derive(record);
        assertEquals("device_id:string=device_id, device_type:string=device_type, ingested_at:string=ingested_at, "
                + "payload:string=payload", mapping.toString());
        Object[] row = convert(mapping, record);
        assertEquals(SensorEvents.smartPlug(1).payloadJson(), row[3]);

        ColumnMapping numbers = AutoMapping.derive(SinkRecords.of("t", 0, 0L, "{\"a\":1,\"b\":1.5,\"c\":{\"d\":true}}"));
        assertEquals("a:long=a, b:double=b, c_d:boolean=c.d", numbers.toString());
    }

    @Test
    void valuesThatCannotBeFlattened() {
        assertTrue(assertThrows(RecordConversionException.class, () -> AutoMapping.derive(SinkRecords.of("t", 0, 5L, "[1,2]")))
                .getMessage().contains("t/0@5: columns=auto needs a JSON object, a Map or a Struct, got a JSON array"));
        assertTrue(assertThrows(RecordConversionException.class, () -> AutoMapping.derive(SinkRecords.of("t", 0, 5L, "nope")))
                .getMessage().contains("columns=auto: value is not valid JSON"));
        assertTrue(assertThrows(RecordConversionException.class, () -> AutoMapping.derive(SinkRecords.of("t", 0, 5L, 42)))
                .getMessage().contains("columns=auto needs a Struct, a Map or JSON text, got Integer"));
        assertTrue(assertThrows(RecordConversionException.class, () -> AutoMapping.derive(SinkRecords.of("t", 0, 5L, Map.of())))
                .getMessage().contains("found no fields"));
    }

    @Test
    void againstATableTheRowsHaveTheTablesColumnsWhateverTheRecordsShape() {
        RowSchema table = new RowSchema(List.of(Column.of("id", ColumnType.STRING, false),
                Column.of("payload_power", ColumnType.DOUBLE, true), Column.of("payload_on", ColumnType.BOOLEAN, true),
                Column.of("count", ColumnType.INT, true)));
        RecordConverter converter = AutoMapping.forTable(table, Clock.systemUTC(), EpochUnit.NONE);
        assertEquals(table, converter.schema());

        // an integer where the table has a double, no flag, a field the table does not have
        Object[] first = converter.convert(SinkRecords.of("t", 0, 0L,
                "{\"id\":\"a\",\"payload\":{\"power\":2},\"count\":3,\"extra\":1}"));
        assertArrayEquals(new Object[] {"a", 2.0, null, 3}, first);
        // a Struct with the flag: the column is found by the same naming
        Schema payload = SchemaBuilder.struct().field("on", Schema.BOOLEAN_SCHEMA).build();
        Schema schema = SchemaBuilder.struct().field("id", Schema.STRING_SCHEMA).field("payload", payload).build();
        Struct value = new Struct(schema).put("id", "b").put("payload", new Struct(payload).put("on", true));
        assertArrayEquals(new Object[] {"b", null, true, null}, converter.convert(SinkRecords.of("t", 0, 1L, value)));
        assertArrayEquals(new Object[] {"c", 1.5, false, null}, converter.convert(SinkRecords.of("t", 0, 2L,
                Map.of("id", "c", "payload", Map.of("power", 1.5, "on", false)))));

        // records that do not fit the table are bad records
        RecordConversionException notANumber = assertThrows(RecordConversionException.class, () -> converter.convert(
                SinkRecords.of("t", 0, 3L, "{\"id\":\"d\",\"payload\":{\"power\":\"high\"}}")));
        assertTrue(notANumber.getMessage().contains("t/0@3") && notANumber.getMessage().contains("payload_power"),
                notANumber.getMessage());
        assertThrows(RecordConversionException.class, () -> converter.convert(SinkRecords.of("t", 0, 4L, "{\"count\":1}")),
                "id is NOT NULL in the table");
        assertThrows(RecordConversionException.class, () -> converter.convert(SinkRecords.of("t", 0, 5L, "nope")));
    }
}
