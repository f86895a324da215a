package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.storage.Converter;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.RowSchema;
import io.deltasink.proc.Preset;
import io.deltasink.testing.SensorEvents.Event;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/** The seed pipeline's "Parse and flatten" step, reproduced by the column mapping. */
class SeedMappingTest {
    /** The seed's columns; the connector's sensor preset uses the same text. */
    static final String SEED_COLUMNS = "device_id:string=device_id, device_type:string=device_type, "
            + "event_time:timestamp=ingested_at, linkquality:int=payload.linkquality, contact:boolean=payload.contact, "
            + "battery:int=payload.battery, power:double=payload.power, voltage:double=payload.voltage, "
            + "current:double=payload.current, energy:double=payload.energy, plug_state:string=payload.state, "
            + "raw_payload:string=raw(payload), processed_at:timestamp=@now, event_date:date=date(event_time)";
    /** What a sensor event cannot do without: its device, its timestamp, its payload (and so its date). */
    static final Set<String> SEED_NOT_NULL = Set.of("device_id", "device_type", "event_time", "raw_payload", "event_date");

    static final Instant NOW = Instant.parse("2026-06-22T10:00:00.654321Z");
    static final long NOW_MICROS = 1_782_122_400_654_321L;

    private final MappingConverter converter =
            new MappingConverter(ColumnMapping.parse(SEED_COLUMNS, SEED_NOT_NULL), Clock.fixed(NOW, ZoneOffset.UTC));

    private Object[] convert(Object value) {
        return converter.convert(SinkRecords.of("sensors", 0, 1L, value));
    }

    @Test
    void schemaHasTheSeedColumnsInOrderWithTypesAndNullability() {
        List<Column> expected = List.of(
                Column.of("device_id", ColumnType.STRING, false),
                Column.of("device_type", ColumnType.STRING, false),
                Column.of("event_time", ColumnType.TIMESTAMP, false),
                Column.of("linkquality", ColumnType.INT, true),
                Column.of("contact", ColumnType.BOOLEAN, true),
                Column.of("battery", ColumnType.INT, true),
                Column.of("power", ColumnType.DOUBLE, true),
                Column.of("voltage", ColumnType.DOUBLE, true),
                Column.of("current", ColumnType.DOUBLE, true),
                Column.of("energy", ColumnType.DOUBLE, true),
                Column.of("plug_state", ColumnType.STRING, true),
                Column.of("raw_payload", ColumnType.STRING, false),
                Column.of("processed_at", ColumnType.TIMESTAMP, true),
                Column.of("event_date", ColumnType.DATE, false));
        assertEquals(expected, converter.schema().columns());
        assertEquals(new RowSchema(expected), ColumnMapping.parse(SEED_COLUMNS, SEED_NOT_NULL).schema());
    }

    @Test
    void theShippedPresetsHoldTheSeedMapping() {
        for (Preset preset : List.of(Preset.sensorEventsLocal(), Preset.sensorEventsMinio())) {
            assertEquals(SEED_COLUMNS, preset.config().get("columns"), preset.name());
            assertEquals(SEED_NOT_NULL, Set.of(preset.config().get("columns.not.null").split(",")), preset.name());
        }
    }

    /**
     * The presets take the value as bytes (the connector parses the JSON text itself, the worker
     * need not decode it to a String first): the converter a preset names, fed the UTF-8 bytes a
     * producer wrote, hands the mapping a byte[] that gives the same row as the event's text.
     */
    @Test
    void theShippedPresetsReadTheValueAsBytesToTheSameRowAsText() throws ReflectiveOperationException {
        for (Preset preset : List.of(Preset.sensorEventsLocal(), Preset.sensorEventsMinio())) {
            String className = preset.config().get("value.converter");
            assertEquals("org.apache.kafka.connect.converters.ByteArrayConverter", className, preset.name());
            Converter valueConverter = (Converter) Class.forName(className).getDeclaredConstructor().newInstance();
            valueConverter.configure(Map.of(), false);
            MappingConverter mapping = new MappingConverter(ColumnMapping.parse(preset.config().get("columns"),
                    Set.of(preset.config().get("columns.not.null").split(","))), Clock.fixed(NOW, ZoneOffset.UTC));
            for (Event e : List.of(SensorEvents.smartPlug(3), SensorEvents.doorWindow(4))) {
                SchemaAndValue given = valueConverter.toConnectData("sensor-events", e.json().getBytes(StandardCharsets.UTF_8));
                assertInstanceOf(byte[].class, given.value(), preset.name());
                Object[] fromBytes = mapping.convert(
                        new SinkRecord("sensor-events", 0, null, null, given.schema(), given.value(), 1L));
                assertArrayEquals(convert(e.json()), fromBytes, preset.name() + " " + e);
                assertEquals(e.deviceId(), fromBytes[0]);
            }
            // a device id whose bytes are not UTF-8: a bad record naming its column, not a row with U+FFFD
            byte[] notUtf8 = SensorEvents.smartPlug(5).json().replace("smart-plug", "sm\u00e4rt-plug")
                    .getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i + 1 < notUtf8.length; i++) {
                if (notUtf8[i] == (byte) 0xC3) {
                    notUtf8[i + 1] = '(';
                }
            }
            SchemaAndValue given = valueConverter.toConnectData("sensor-events", notUtf8);
            RecordConversionException bad = assertThrows(RecordConversionException.class, () -> mapping.convert(
                    new SinkRecord("sensor-events", 0, null, null, given.schema(), given.value(), 1L)));
            assertTrue(bad.getMessage().contains("column 'device_id'") && bad.getMessage().contains("UTF-8"),
                    bad.getMessage());
        }
    }

    @Test
    void smartPlugEnvelopeGivesPlugValuesAndNullDoorFields() {
        Event e = SensorEvents.smartPlug(1);
        assertEquals("{\"power\":80.1,\"voltage\":229.1,\"current\":0.301,\"energy\":12.001,\"state\":\"OFF\",\"linkquality\":151}",
                e.payloadJson());
        assertEquals("2026-06-22T08:00:10.123457+00:00", e.ingestedAtText());

        Object[] row = convert(e.json());

        Object[] expected = {
            "smart-plug-02", "smart_plug",
            micros("2026-06-22T08:00:10.123457Z"),
            151, null, null,
            80.1, 229.1, 0.301, 12.001, "OFF",
            e.payloadJson(), NOW_MICROS, (int) LocalDate.of(2026, 6, 22).toEpochDay()};
        assertArrayEquals(expected, row);
        assertEquals(Long.class, row[2].getClass());
        assertEquals(Integer.class, row[3].getClass());
        assertEquals(Double.class, row[6].getClass());
        assertEquals(Integer.class, row[13].getClass());
    }

    @Test
    void doorWindowEnvelopeGivesDoorValuesAndNullPlugFields() {
        Event e = SensorEvents.doorWindow(2);
        assertEquals("{\"contact\":true,\"battery\":98,\"linkquality\":102}", e.payloadJson());

        Object[] row = convert(e.json());

        Object[] expected = {
            "door-window-01", "door_window",
            micros("2026-06-22T08:00:20.246914Z"),
            102, true, 98,
            null, null, null, null, null,
            e.payloadJson(), NOW_MICROS, (int) LocalDate.of(2026, 6, 22).toEpochDay()};
        assertArrayEquals(expected, row);
    }

    @Test
    void sameEnvelopeAsStringBytesMapAndStructGivesTheSameRow() {
        for (Event e : List.of(SensorEvents.smartPlug(7), SensorEvents.doorWindow(8))) {
            Object[] fromString = convert(e.json());
            assertEquals(e.deviceId(), fromString[0]);
            assertEquals(e.ingestedAtMicros(), fromString[2]);
            assertEquals(e.linkquality(), fromString[3]);
            assertEquals(e.contact(), fromString[4]);
            assertEquals(e.power(), fromString[6]);
            assertArrayEquals(fromString, convert(e.bytes()), "byte[] " + e);
            assertArrayEquals(fromString, convert(e.map()), "Map " + e);
            assertArrayEquals(fromString, convert(e.struct()), "Struct " + e);
        }
    }

    @Test
    void eventDateFollowsTheEventsUtcDay() {
        LocalDate newYear = LocalDate.of(2026, 12, 31);
        Event e = SensorEvents.event(3, newYear);
        Object[] row = convert(e.json());
        assertEquals((int) newYear.toEpochDay(), row[13]);
        assertEquals(e.epochDay(), row[13]);

        // 23:30 at -02:00 is 01:30 UTC the next day
        String late = "{\"device_id\":\"d\",\"device_type\":\"smart_plug\",\"ingested_at\":\"2026-06-22T23:30:00-02:00\","
                + "\"payload\":\"{}\"}";
        Object[] lateRow = convert(late);
        assertEquals((int) LocalDate.of(2026, 6, 23).toEpochDay(), lateRow[13]);
        assertEquals(micros("2026-06-23T01:30:00Z"), lateRow[2]);
        assertNull(lateRow[3], "an empty payload: payload columns are null");
        assertEquals("{}", lateRow[11]);
    }

    @Test
    void timestampOffsetsGiveTheSameInstantWithMicroseconds() {
        Event e = SensorEvents.smartPlug(1);
        String utc = e.json();
        String plusTwo = e.json(ZoneOffset.ofHours(2));
        String zulu = utc.replace("+00:00", "Z");
        assertEquals(true, plusTwo.contains("\"2026-06-22T10:00:10.123457+02:00\""), plusTwo);
        assertEquals(true, zulu.contains("\"2026-06-22T08:00:10.123457Z\""), zulu);

        long expected = 1_782_115_210_123_457L;
        assertEquals(expected, convert(utc)[2]);
        assertEquals(expected, convert(plusTwo)[2]);
        assertEquals(expected, convert(zulu)[2]);
        String minusHalf = e.json(ZoneOffset.ofHoursMinutes(-3, -30));
        assertEquals(true, minusHalf.contains("\"2026-06-22T04:30:10.123457-03:30\""), minusHalf);
        assertEquals(expected, convert(minusHalf)[2]);
        assertEquals(expected + 1, convert(utc.replace(".123457+00:00", ".123458999Z"))[2], "nanoseconds truncate");
    }

    @Test
    void eachJsonTextIsParsedOncePerRecord() {
        int[] parses = {0};
        Json counting = new Json() {
            @Override
            JsonNode parse(Object text) throws NotJsonException {
                parses[0]++;
                return super.parse(text);
            }
        };
        MappingConverter c = new MappingConverter(ColumnMapping.parse(SEED_COLUMNS, SEED_NOT_NULL),
                Clock.fixed(NOW, ZoneOffset.UTC), counting);
        Event e = SensorEvents.smartPlug(5);

        c.convert(SinkRecords.of("sensors", 0, 1L, e.json()));
        assertEquals(2, parses[0], "envelope once, payload once (read by 7 columns)");

        parses[0] = 0;
        c.convert(SinkRecords.of("sensors", 0, 2L, e.map()));
        assertEquals(1, parses[0], "only the payload text");
    }

    static long micros(String instant) {
        Instant i = Instant.parse(instant);
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
    }
}
