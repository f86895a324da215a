package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.deltasink.testing.SinkRecords;

/**
 * A path that has to descend through a scalar (a boolean, a number, JSON text of a scalar) or
 * that names a field of a list is a bad record naming the column and the path; a missing field,
 * JSON null on the way or a list index past the end stays null (NOT NULL decides).
 */
class PathThroughScalarTest {
    private static final String COLUMNS = "state:string=payload.state, power:double=payload.power";

    private static Object[] convert(String columns, Object value) {
        return new MappingConverter(ColumnMapping.parse(columns), Clock.systemUTC())
                .convert(SinkRecords.of("t", 2, 9L, value));
    }

    private static String error(String columns, Object value) {
        return assertThrows(RecordConversionException.class, () -> convert(columns, value),
                columns + " <- " + value).getMessage();
    }

    private static Map<String, Object> payload(Object payload) {
        Map<String, Object> m = new HashMap<>();
        m.put("payload", payload);
        return m;
    }

    private static String throughPayload(String holds, String value) {
        return "Cannot convert record t/2@9, column 'state': path 'payload.state' goes through field 'payload', which "
                + "holds " + holds + ", not an object; value: '" + value + "'";
    }

    @Test
    void aScalarOnThePathIsABadRecordNamingTheColumnAndThePath() {
        assertEquals(throughPayload("a boolean", "true"), error(COLUMNS, payload(true)));
        assertEquals(throughPayload("a number", "42"), error(COLUMNS, payload(42)));
        assertEquals(throughPayload("a number", "84.5"), error(COLUMNS, payload(new BigDecimal("84.5"))));
        assertEquals(throughPayload("a boolean", "true"), error(COLUMNS, "{\"payload\":true}"));
        assertEquals(throughPayload("a number", "1.5"), error(COLUMNS, "{\"payload\":1.5}"));
        assertTrue(error(COLUMNS, payload(new java.util.Date(0))).contains("which holds a timestamp, not an object"));
    }

    @Test
    void jsonTextOfAScalarIsAScalar() {
        assertEquals(throughPayload("JSON text of a boolean", "true"), error(COLUMNS, payload("true")));
        assertEquals(throughPayload("JSON text of a number", "42"), error(COLUMNS, "{\"payload\":\"42\"}"));
        assertEquals(throughPayload("JSON text of a string", "\"on\""), error(COLUMNS, payload("\"on\"")));
        assertEquals(throughPayload("JSON text of a boolean", "false"),
                error(COLUMNS, payload("false".getBytes(StandardCharsets.UTF_8))));
    }

    @Test
    void theRecordValueItselfMayBeTheScalar() {
        assertEquals("Cannot convert record t/2@9, column 'state': path 'payload.state' goes through the record value, "
                + "which holds a number, not an object; value: '7'", error(COLUMNS, 7L));
        assertEquals("Cannot convert record t/2@9, column 'state': path 'payload.state' goes through the record value, "
                + "which holds JSON text of a boolean, not an object; value: 'true'", error(COLUMNS, "true"));
    }

    @Test
    void aNameIntoAListIsABadRecord() {
        assertEquals("Cannot convert record t/2@9, column 'n': path 'items.name' goes through field 'items', which "
                + "holds a list; 'name' is not a list index; value: '[{\"name\":\"a\"}]'",
                error("n:string=items.name", Map.of("items", List.of(Map.of("name", "a")))));
        assertEquals("Cannot convert record t/2@9, column 'n': path 'items.name' goes through field 'items', which "
                + "holds a list; 'name' is not a list index; value: '[1,2]'", error("n:string=items.name", "{\"items\":[1,2]}"));
        assertEquals("Cannot convert record t/2@9, column 'x': path 'a.b.x' goes through field 'a.b', which holds a "
                + "number, not an object; value: '3'", error("x:int=a.b.x", Map.of("a", Map.of("b", 3))));
        assertEquals("Cannot convert record t/2@9, column 'x': path 'a.0' goes through field 'a', which holds a "
                + "boolean, not an object or a list; value: 'false'", error("x:int=a.0", Map.of("a", false)));
    }

    @Test
    void theFirstColumnBelowTheScalarIsNamedWithItsOwnPath() {
        String m = error("p:boolean=payload, raw:string=raw(payload.deep.er), state:string=payload.state", payload(true));
        assertEquals("Cannot convert record t/2@9, column 'raw': path 'payload.deep.er' goes through field 'payload', "
                + "which holds a boolean, not an object; value: 'true'", m);
    }

    @Test
    void missingFieldsNullsAndIndexesPastTheEndStayNull() throws Exception {
        assertArrayEquals(new Object[] {null, null}, convert(COLUMNS, Map.of("other", 1)));
        assertArrayEquals(new Object[] {null, null}, convert(COLUMNS, payload(null)));
        assertArrayEquals(new Object[] {null, null}, convert(COLUMNS, "{\"payload\":null}"));
        assertArrayEquals(new Object[] {null, null}, convert(COLUMNS, payload("null")));
        assertArrayEquals(new Object[] {null, null}, convert(COLUMNS, payload("{}")));
        assertArrayEquals(new Object[] {null, null}, convert(COLUMNS, "{\"payload\":\"{\\\"state\\\":null}\"}"));
        assertArrayEquals(new Object[] {null, null, "b"}, convert("a:int=l.5, b:int=j.2.x, c:string=j.1",
                Map.of("l", List.of(1, 2), "j", new ObjectMapper().readTree("[\"a\",\"b\"]"))));
        Schema schema = SchemaBuilder.struct().field("payload", SchemaBuilder.struct()
                .field("state", Schema.OPTIONAL_STRING_SCHEMA).optional().build()).build();
        assertArrayEquals(new Object[] {null, null}, convert(COLUMNS, new Struct(schema)));
    }

    @Test
    void aNumericSegmentNamesAnObjectsFieldAndIndexesAList() {
        assertArrayEquals(new Object[] {"zero", null, "b"}, convert("a:string=m.0, b:string=m.1, c:string=l.1",
                Map.of("m", Map.of("0", "zero"), "l", List.of("a", "b"))));
        assertArrayEquals(new Object[] {"zero", 7}, convert("a:string=m.0, b:int=l.0",
                "{\"m\":{\"0\":\"zero\"},\"l\":[7]}"));
    }

    @Test
    void aMapKeyedByNumbersIsReachedByTheKeysText() {
        Schema schema = SchemaBuilder.struct().field("readings",
                SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.FLOAT64_SCHEMA).build()).build();
        Struct struct = new Struct(schema).put("readings", Map.of(1, 84.5, 2, 85.0));
        assertArrayEquals(new Object[] {84.5, 85.0, null}, convert("a:double=readings.1, b:double=readings.2, "
                + "c:double=readings.3", struct));
        assertArrayEquals(new Object[] {"yes"}, convert("a:string=flags.true", Map.of("flags", Map.of(true, "yes"))));
    }

    @Test
    void scalarStructFieldsAndBytesHoldingJson() {
        Schema schema = SchemaBuilder.struct().field("payload", Schema.INT32_SCHEMA)
                .field("doc", Schema.BYTES_SCHEMA).build();
        Struct struct = new Struct(schema).put("payload", 5)
                .put("doc", ByteBuffer.wrap("{\"state\":\"ON\"}".getBytes(StandardCharsets.UTF_8)));
        assertArrayEquals(new Object[] {"ON"}, convert("s:string=doc.state", struct));
        assertEquals(throughPayload("a number", "5"), error(COLUMNS, struct));
    }
}
