package io.deltasink.testing;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Sample events of the seed sensor pipeline: the producer's JSON envelope
 * <pre>
 * {"device_id":"smart-plug-01","device_type":"smart_plug","ingested_at":"2026-06-22T08:00:10.123457+00:00",
 *  "payload":"{\"power\":80.1,\"voltage\":229.1,...}"}
 * </pre>
 * whose {@code payload} is JSON text inside the JSON. Every value is a function of a sequence
 * number (and a day), so tests can compute what to expect:
 * <ul>
 *   <li>ingested_at: the day at 08:00:00 UTC plus {@code seq * 10} seconds (within 16 hours)
 *       plus {@code (seq * 123457) % 1000000} microseconds;</li>
 *   <li>smart_plug: power {@code 80.0 + (seq % 500) / 10}, voltage {@code 229.0 + (seq % 20) / 10},
 *       current {@code 0.300 + (seq % 100) / 1000}, energy {@code 12.000 + seq / 1000}, state ON for
 *       even seq else OFF, linkquality {@code 150 + seq % 106}, device {@code smart-plug-0(1 + seq % 3)};</li>
 *   <li>door_window: contact true for even seq, battery {@code 100 - seq % 10}, linkquality
 *       {@code 100 + seq % 100}, device {@code door-window-0(1 + seq % 2)}.</li>
 * </ul>
 */
public final class SensorEvents {
    public static final String SMART_PLUG = "smart_plug";
    public static final String DOOR_WINDOW = "door_window";
    public static final LocalDate DAY = LocalDate.of(2026, 6, 22);
    public static final Schema ENVELOPE_SCHEMA = SchemaBuilder.struct().name("io.deltasink.testing.SensorEnvelope")
            .field("device_id", Schema.STRING_SCHEMA)
            .field("device_type", Schema.STRING_SCHEMA)
            .field("ingested_at", Schema.STRING_SCHEMA)
            .field("payload", Schema.OPTIONAL_STRING_SCHEMA)
            .build();

    private static final DateTimeFormatter ISO_MICROS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSxxx");
    private static final long SECONDS_IN_16_HOURS = 16 * 3600;

    private SensorEvents() {
    }

    public static Event smartPlug(long seq) {
        return smartPlug(seq, DAY);
    }

    public static Event smartPlug(long seq, LocalDate day) {
        return new Event(seq, "smart-plug-0" + (1 + seq % 3), SMART_PLUG, ingestedAt(seq, day),
                tenths(800 + seq % 500), tenths(2290 + seq % 20), thousandths(300 + seq % 100),
                thousandths(12_000 + seq), seq % 2 == 0 ? "ON" : "OFF", null, null, (int) (150 + seq % 106));
    }

    public static Event doorWindow(long seq) {
        return doorWindow(seq, DAY);
    }

    public static Event doorWindow(long seq, LocalDate day) {
        return new Event(seq, "door-window-0" + (1 + seq % 2), DOOR_WINDOW, ingestedAt(seq, day),
                null, null, null, null, null, seq % 2 == 0, (int) (100 - seq % 10), (int) (100 + seq % 100));
    }

    /** A mixed stream: every fifth event ({@code seq % 5 == 4}) is a door sensor, the others smart plugs. */
    public static Event event(long seq) {
        return event(seq, DAY);
    }

    public static Event event(long seq, LocalDate day) {
        return seq % 5 == 4 ? doorWindow(seq, day) : smartPlug(seq, day);
    }

    /**
     * An event of a device type of its own: {@link #event(long, LocalDate)} with {@code deviceType}
     * instead of smart_plug / door_window. A type starting with smart_plug carries a smart plug's
     * payload, any other a door sensor's.
     */
    public static Event event(long seq, LocalDate day, String deviceType) {
        Event e = deviceType.startsWith(SMART_PLUG) ? smartPlug(seq, day) : doorWindow(seq, day);
        return new Event(e.seq, e.deviceId, deviceType, e.ingestedAt, e.power, e.voltage, e.current, e.energy,
                e.state, e.contact, e.battery, e.linkquality);
    }

    private static Instant ingestedAt(long seq, LocalDate day) {
        return day.atTime(8, 0).toInstant(ZoneOffset.UTC)
                .plusSeconds(seq * 10 % SECONDS_IN_16_HOURS)
                .plusNanos(seq * 123_457 % 1_000_000 * 1000);
    }

    private static Double tenths(long unscaled) {
        return BigDecimal.valueOf(unscaled, 1).doubleValue();
    }

    private static Double thousandths(long unscaled) {
        return BigDecimal.valueOf(unscaled, 3).doubleValue();
    }

    /** One event; device fields of the other device type are null. */
    public record Event(long seq, String deviceId, String deviceType, Instant ingestedAt,
                        Double power, Double voltage, Double current, Double energy, String state,
                        Boolean contact, Integer battery, int linkquality) {

        public boolean isSmartPlug() {
            return deviceType.startsWith(SMART_PLUG);
        }

        /** ingested_at as the producer writes it: microseconds and a {@code +00:00} offset. */
        public String ingestedAtText() {
            return ingestedAtText(ZoneOffset.UTC);
        }

        /** ingested_at written in another offset: the same instant, e.g. {@code 10:00:10.123457+02:00}. */
        public String ingestedAtText(ZoneOffset offset) {
            return ISO_MICROS.format(ingestedAt.atOffset(offset));
        }

        /** The instant of ingested_at in microseconds since the epoch. */
        public long ingestedAtMicros() {
            return ingestedAt.getEpochSecond() * 1_000_000L + ingestedAt.getNano() / 1000;
        }

        /** The UTC date of ingested_at in days since the epoch. */
        public int epochDay() {
            return (int) ingestedAt.atOffset(ZoneOffset.UTC).toLocalDate().toEpochDay();
        }

        /** The payload as its JSON text, keys in the device's order. */
        public String payloadJson() {
            Map<String, Object> p = new LinkedHashMap<>();
            if (isSmartPlug()) {
                p.put("power", power);
                p.put("voltage", voltage);
                p.put("current", current);
                p.put("energy", energy);
                p.put("state", state);
            } else {
                p.put("contact", contact);
                p.put("battery", battery);
            }
            p.put("linkquality", linkquality);
            return write(p);
        }

        /** The envelope as JSON text, ingested_at with {@code +00:00}. */
        public String json() {
            return json(ZoneOffset.UTC);
        }

        /** The envelope as JSON text, ingested_at written in {@code offset}. */
        public String json(ZoneOffset offset) {
            return write(map(offset));
        }

        /** The envelope as UTF-8 JSON bytes. */
        public byte[] bytes() {
            return json().getBytes(StandardCharsets.UTF_8);
        }

        /** The envelope as the schemaless JSON converter gives it: a Map whose payload is still JSON text. */
        public Map<String, Object> map() {
            return map(ZoneOffset.UTC);
        }

        public Map<String, Object> map(ZoneOffset offset) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("device_id", deviceId);
            m.put("device_type", deviceType);
            m.put("ingested_at", ingestedAtText(offset));
            m.put("payload", payloadJson());
            return m;
        }

        /** The envelope as a Struct of {@link #ENVELOPE_SCHEMA}; payload is JSON text. */
        public Struct struct() {
            return new Struct(ENVELOPE_SCHEMA)
                    .put("device_id", deviceId)
                    .put("device_type", deviceType)
                    .put("ingested_at", ingestedAtText())
                    .put("payload", payloadJson());
        }

        private static String write(Map<String, Object> m) {
            try {
                return new ObjectMapper().writeValueAsString(m);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
