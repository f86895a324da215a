package io.deltasink.proc;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

import org.apache.kafka.common.TopicPartition;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.deltasink.testing.SensorEvents;

/**
 * The feed of {@link EndToEndPackagedIT}: sensor envelopes as the seed producer writes them (JSON
 * whose {@code payload} is JSON text), each with a device id of its own so a row can be traced to
 * the record it came from, mixed with every kind of input the seed preset must not turn into a row:
 * bad records, each bound for the dead letter queue, and a tombstone, which the preset skips (it
 * leaves {@code behavior.on.null.values} at {@code ignore}: skipped and counted, as the README and
 * the design's failure table say). What a row must hold is read from the produced JSON here, not by
 * the connector's converter.
 */
final class E2eFeed {
    /** Device types of the well-formed events: the seed's two, then non-ASCII and path-hostile ones. */
    static final List<String> DEVICE_TYPES = List.of(SensorEvents.SMART_PLUG, SensorEvents.DOOR_WINDOW,
            "plüg", "日本", "a/b", "x=y", "50%", "with space", "..", "#?:");
    private static final int EVENTS_PER_TYPE = 4;
    private static final ObjectMapper JSON = new ObjectMapper();

    private E2eFeed() {
    }

    /** What must become of an input. */
    enum Fate {
        /** One row of the table, holding what {@link Input#expected()} says. */
        ROW,
        /** One dead letter, and no row. */
        DEAD_LETTER,
        /** Neither a row nor a dead letter, its offset passed all the same: a tombstone, skipped and counted. */
        SKIPPED
    }

    /**
     * One record to produce: a well-formed event ({@code expected} is its row), a bad input or a
     * tombstone ({@code expected} null).
     *
     * @param value    the value's bytes; null for a tombstone
     * @param deviceId the device id the value carries, if any (for tracing a row back)
     * @param problem  for a bad input, a part of the error its dead letter must carry besides the
     *                 record and the column; null when only those are checked
     */
    record Input(String label, int partition, String key, byte[] value, String deviceId, Fate fate,
                 Expected expected, String problem) {
        boolean good() {
            return fate == Fate.ROW;
        }

        boolean bad() {
            return fate == Fate.DEAD_LETTER;
        }

        boolean skipped() {
            return fate == Fate.SKIPPED;
        }
    }

    /** An input and where it landed. */
    record Sent(Input input, TopicPartition at, long offset) {
        String coordinates() {
            return at.partition() + "@" + offset;
        }
    }

    /**
     * Every input, in producing order, round-robin over {@code partitions}: a bad one first, then
     * one after every third good one (so bad ones fall on every partition), the rest, the tombstone
     * last, at the end.
     */
    static List<Input> inputs(int partitions) {
        List<Unplaced> good = good();
        List<Unplaced> bad = bad();
        List<Unplaced> mixed = new ArrayList<>();
        int b = 0;
        mixed.add(bad.get(b++));
        for (int g = 0; g < good.size(); g++) {
            mixed.add(good.get(g));
            if (g % 3 == 2 && b < bad.size()) {
                mixed.add(bad.get(b++));
            }
        }
        mixed.addAll(bad.subList(b, bad.size()));
        List<Input> out = new ArrayList<>();
        for (int i = 0; i < mixed.size(); i++) {
            Unplaced u = mixed.get(i);
            out.add(new Input(u.label, i % partitions, u.key, u.value, u.deviceId, u.fate,
                    u.fate == Fate.ROW ? Expected.of(new String(u.value, StandardCharsets.UTF_8)) : null, u.problem));
        }
        return out;
    }

    private record Unplaced(String label, String key, byte[] value, String deviceId, Fate fate, String problem) {
    }

    // ---- well-formed events ----------------------------------------------------------------------------

    /**
     * {@link #EVENTS_PER_TYPE} events of each device type over two days, every third written with a
     * +02:00 offset; then two at the edges of years 0001-9999 after UTC normalisation.
     */
    private static List<Unplaced> good() {
        List<Unplaced> out = new ArrayList<>();
        int seq = 0;
        for (int n = 0; n < EVENTS_PER_TYPE; n++) {
            for (String type : DEVICE_TYPES) {
                LocalDate day = SensorEvents.DAY.plusDays(n % 2);
                SensorEvents.Event e = SensorEvents.DOOR_WINDOW.equals(type) ? SensorEvents.doorWindow(seq, day)
                        : SensorEvents.smartPlug(seq, day);
                String at = e.ingestedAtText(seq % 3 == 2 ? ZoneOffset.ofHours(2) : ZoneOffset.UTC);
                out.add(goodEvent("device type " + type, seq, type, at, e.payloadJson()));
                seq++;
            }
        }
        String payload = SensorEvents.smartPlug(seq).payloadJson();
        out.add(goodEvent("ingested_at 0001-01-01T00:00:00Z (first instant of year 1)", seq++,
                SensorEvents.SMART_PLUG, "0001-01-01T00:00:00Z", payload));
        out.add(goodEvent("ingested_at 9999-12-31T18:59:59.999999-05:00 (last microsecond of year 9999 in UTC)", seq,
                "日本", "9999-12-31T18:59:59.999999-05:00", payload));
        return out;
    }

    private static Unplaced goodEvent(String label, int seq, String type, String ingestedAt, String payload) {
        String deviceId = String.format("e2e-%03d", seq);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("device_id", deviceId);
        m.put("device_type", type);
        m.put("ingested_at", ingestedAt);
        m.put("payload", payload);
        return new Unplaced(label, deviceId, utf8(write(m)), deviceId, Fate.ROW, null);
    }

    // ---- bad inputs --------------------------------------------------------------------------------------

    /**
     * Each kind of input the seed preset must send to the dead letter queue, once (device ids
     * bad-01, bad-02 ...), then a tombstone.
     */
    private static List<Unplaced> bad() {
        List<Unplaced> out = new ArrayList<>();
        out.add(new Unplaced("value not JSON", "bad-01", utf8("this is not JSON {\"device_id\": \"bad-01\""), null,
                Fate.DEAD_LETTER, null));
        bad(out, "payload text not JSON", n -> n.put("payload", "power=84.3;state=ON"));
        bad(out, "linkquality \"abc\"", n -> n.put("payload", payloadWith("linkquality", "abc")));
        bad(out, "ingested_at \"yesterday\"", n -> n.put("ingested_at", "yesterday"));
        for (String field : List.of("device_id", "device_type", "ingested_at", "payload")) {
            bad(out, field + " missing", n -> n.remove(field));
        }
        bad(out, "payload JSON null", n -> n.putNull("payload"));
        bad(out, "payload text \"null\"", n -> n.put("payload", "null"));
        for (String at : List.of("10000-01-01T00:00:00Z", "9999-12-31T23:00:00-05:00", "0000-12-31T23:00:00Z",
                "0001-01-01T00:30:00+01:00")) {
            bad(out, "ingested_at " + at + " (outside years 0001-9999 in UTC)", n -> n.put("ingested_at", at));
        }
        bad(out, "ingested_at a JSON number 1782115210", n -> n.put("ingested_at", 1782115210L));
        bad(out, "ingested_at digit-only text \"1782115210\"", n -> n.put("ingested_at", "1782115210"));
        bad(out, "payload true (a path through a scalar)", n -> n.put("payload", true));
        bad(out, "payload text \"true\" (a path through a scalar)", n -> n.put("payload", "true"));
        bad(out, "payload text \"42\" (a path through a scalar)", n -> n.put("payload", "42"));
        // the escape as JSON text: a Java string holding a lone surrogate cannot be encoded as UTF-8
        bad(out, "device_id \"\\ud800\" (an unpaired surrogate)", n -> n.put("device_id", "SURROGATE"));
        replaceInLast(out, "\"SURROGATE\"", utf8("\"\\ud800\""), "\ud800", null);
        // bytes that are no UTF-8 inside a string: 0xC3 opens a two-byte sequence, '(' (0x28) cannot continue it
        bad(out, "device_id with the bytes C3 28 (not UTF-8)", n -> n.put("device_id", "NOT_UTF8"));
        String prefix = String.format("bad-%02d", out.size());
        byte[] notUtf8 = concat(utf8("\"" + prefix), new byte[] {(byte) 0xC3, 0x28}, utf8("\""));
        replaceInLast(out, "\"NOT_UTF8\"", notUtf8, prefix + "\ufffd(", "value is not valid JSON (Invalid UTF-8");
        bad(out, "device_type \"\" (empty, in a NOT NULL partition column)", n -> n.put("device_type", ""));
        withProblem(out, "column 'device_type': an empty string cannot be the value of a NOT NULL partition column");
        bad(out, "payload a JSON list [1,2] (a path through a list)", n -> n.putArray("payload").add(1).add(2));
        withProblem(out, "path 'payload.linkquality' goes through field 'payload', which holds a list");
        bad(out, "payload text \"[1,2]\" (a path through a list)", n -> n.put("payload", "[1,2]"));
        withProblem(out, "path 'payload.linkquality' goes through field 'payload', which holds a list");
        // 50 characters, 100 bytes of UTF-8, escaped as 300: device_type=%C3%BC... is 312 bytes, over 255
        bad(out, "device_type of 50 \"\u00fc\" (a folder name of 312 bytes once escaped)",
                n -> n.put("device_type", "\u00fc".repeat(50)));
        withProblem(out, "column 'device_type': the partition value makes a folder name of 312 bytes once escaped");
        out.add(new Unplaced("tombstone (null value; behavior.on.null.values=ignore skips it)", "tombstone", null, null,
                Fate.SKIPPED, null));
        return out;
    }

    /** The last input with the bytes of {@code marker} in its value replaced, carrying {@code deviceId}. */
    private static void replaceInLast(List<Unplaced> out, String marker, byte[] with, String deviceId, String problem) {
        Unplaced last = out.remove(out.size() - 1);
        byte[] value = last.value;
        byte[] find = utf8(marker);
        int at = indexOf(value, find);
        if (at < 0) {
            throw new IllegalStateException(marker + " not in " + new String(value, StandardCharsets.UTF_8));
        }
        byte[] replaced = concat(Arrays.copyOfRange(value, 0, at), with,
                Arrays.copyOfRange(value, at + find.length, value.length));
        out.add(new Unplaced(last.label, last.key, replaced, deviceId, last.fate, problem));
    }

    /** The last input, its dead letter's error also holding {@code problem}. */
    private static void withProblem(List<Unplaced> out, String problem) {
        Unplaced last = out.remove(out.size() - 1);
        out.add(new Unplaced(last.label, last.key, last.value, last.deviceId, last.fate, problem));
    }

    /** Adds a well-formed smart plug envelope with the device id "bad-NN", edited. */
    private static void bad(List<Unplaced> out, String label, Consumer<ObjectNode> edit) {
        int number = out.size() + 1;
        String deviceId = String.format("bad-%02d", number);
        SensorEvents.Event e = SensorEvents.smartPlug(500 + number);
        ObjectNode n = JSON.createObjectNode();
        n.put("device_id", deviceId);
        n.put("device_type", SensorEvents.SMART_PLUG);
        n.put("ingested_at", e.ingestedAtText());
        n.put("payload", e.payloadJson());
        edit.accept(n);
        String carried = n.path("device_id").isTextual() ? n.get("device_id").asText() : null;
        out.add(new Unplaced(label, deviceId, utf8(n.toString()), carried, Fate.DEAD_LETTER, null));
    }

    private static String payloadWith(String field, String text) {
        ObjectNode p = (ObjectNode) parse(SensorEvents.smartPlug(600).payloadJson());
        p.put(field, text);
        return p.toString();
    }

    // ---- expectations ------------------------------------------------------------------------------------

    /** The row a well-formed envelope must become, read from its JSON. */
    record Expected(String deviceId, String deviceType, Instant eventTime, LocalDate eventDate, Integer linkquality,
                    Boolean contact, Integer battery, Double power, Double voltage, Double current, Double energy,
                    String plugState, String rawPayload) {

        static Expected of(String envelope) {
            JsonNode n = parse(envelope);
            Instant at = OffsetDateTime.parse(n.get("ingested_at").asText()).toInstant();
            String raw = n.get("payload").asText();
            JsonNode p = parse(raw);
            return new Expected(n.get("device_id").asText(), n.get("device_type").asText(), at,
                    at.atOffset(ZoneOffset.UTC).toLocalDate(),
                    p.has("linkquality") ? p.get("linkquality").asInt() : null,
                    p.has("contact") ? p.get("contact").asBoolean() : null,
                    p.has("battery") ? p.get("battery").asInt() : null,
                    p.has("power") ? p.get("power").asDouble() : null,
                    p.has("voltage") ? p.get("voltage").asDouble() : null,
                    p.has("current") ? p.get("current").asDouble() : null,
                    p.has("energy") ? p.get("energy").asDouble() : null,
                    p.has("state") ? p.get("state").asText() : null,
                    raw);
        }

        /** Null when {@code row} holds this event; else the columns that differ. */
        String mismatch(Map<String, Object> row) {
            Map<String, Object> want = new LinkedHashMap<>();
            want.put("device_id", deviceId);
            want.put("device_type", deviceType);
            want.put("event_time", eventTime);
            want.put("event_date", eventDate);
            want.put("linkquality", linkquality);
            want.put("contact", contact);
            want.put("battery", battery);
            want.put("power", power);
            want.put("voltage", voltage);
            want.put("current", current);
            want.put("energy", energy);
            want.put("plug_state", plugState);
            want.put("raw_payload", rawPayload);
            List<String> diffs = new ArrayList<>();
            want.forEach((column, value) -> {
                if (!Objects.equals(value, row.get(column))) {
                    diffs.add(column + " " + row.get(column) + " (expected " + value + ")");
                }
            });
            return diffs.isEmpty() ? null : String.join(", ", diffs);
        }
    }

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private static int indexOf(byte[] bytes, byte[] find) {
        for (int i = 0; i + find.length <= bytes.length; i++) {
            if (Arrays.equals(bytes, i, i + find.length, find, 0, find.length)) {
                return i;
            }
        }
        return -1;
    }

    private static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
