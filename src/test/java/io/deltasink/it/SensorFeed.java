package io.deltasink.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.deltasink.it.ConnectHarness.Coordinates;
import io.deltasink.it.ConnectHarness.Kind;
import io.deltasink.it.ConnectHarness.Message;
import io.deltasink.it.ConnectHarness.Sent;
import io.deltasink.testing.SensorEvents;

/**
 * The messages the tests produce: the seed's sensor envelopes from {@link SensorEvents} (both
 * device types, two dates), spread round-robin over the topic's partitions with the device id as
 * key, plus bad records of each kind. What a row must hold is derived from the produced JSON by parsing it here, not by
 * asking the connector's converter.
 */
final class SensorFeed {
    private static final ObjectMapper JSON = new ObjectMapper();

    private SensorFeed() {
    }

    /** {@code count} good events, numbered from {@code first} (so two batches never repeat one). */
    static List<Message> good(int first, int count) {
        List<Message> out = new ArrayList<>(count);
        for (int i = first; i < first + count; i++) {
            String json = envelope(i);
            out.add(new Message(i % ConnectHarness.PARTITIONS, deviceId(json), json, Kind.GOOD));
        }
        return out;
    }

    /**
     * The envelope of event number {@code i}: the seed's mixed stream (every fifth a door sensor) on
     * {@link SensorEvents#DAY} or the day after, every seventh written with a +02:00 offset (its
     * event_date is still the UTC date).
     */
    static String envelope(int i) {
        LocalDate day = SensorEvents.DAY.plusDays((i / 2) % 2);
        SensorEvents.Event event = SensorEvents.event(i, day);
        return i % 7 == 6 ? event.json(ZoneOffset.ofHours(2)) : event.json();
    }

    // ---- bad records ------------------------------------------------------------------------------

    /** The kinds of records the connector cannot turn into a row. */
    enum Bad {
        /** the value is not JSON at all */
        NOT_JSON,
        /** the envelope is JSON but its payload text is not */
        PAYLOAD_NOT_JSON,
        /** an int column gets text */
        WRONG_TYPE_LINKQUALITY,
        /** the timestamp column gets something that is not a timestamp */
        WRONG_TYPE_INGESTED_AT,
        /** a NOT NULL column (device_id) is missing */
        MISSING_DEVICE_ID,
        /** the partition column device_type is missing */
        MISSING_DEVICE_TYPE,
        /** the event timestamp is missing, so is its date */
        MISSING_INGESTED_AT,
        /** there is no payload */
        MISSING_PAYLOAD,
        /** the payload is JSON null */
        NULL_PAYLOAD,
        /** the payload is a boolean, so payload.power cannot be read */
        SCALAR_PAYLOAD,
        /** the timestamp is in year 10000 once normalised to UTC */
        INGESTED_AT_YEAR_10000,
        /** the timestamp is epoch seconds, a number without a unit */
        INGESTED_AT_EPOCH_SECONDS,
        /** the partition column device_type holds an unpaired UTF-16 surrogate (a JSON escape) */
        UNPAIRED_SURROGATE
    }

    /** A bad record of the given kind, made from good event {@code i}. */
    static Message bad(Bad kind, int i) {
        String good = envelope(i);
        String key = deviceId(good);
        int partition = i % ConnectHarness.PARTITIONS;
        String value = switch (kind) {
            case NOT_JSON -> "this is not JSON: " + good.substring(0, Math.min(20, good.length()));
            case PAYLOAD_NOT_JSON -> with(good, n -> n.put("payload", "power=84.3;state=ON"));
            case WRONG_TYPE_LINKQUALITY -> withPayload(good, p -> p.put("linkquality", "abc"));
            case WRONG_TYPE_INGESTED_AT -> with(good, n -> n.put("ingested_at", "yesterday"));
            case MISSING_DEVICE_ID -> with(good, n -> n.remove("device_id"));
            case MISSING_DEVICE_TYPE -> with(good, n -> n.remove("device_type"));
            case MISSING_INGESTED_AT -> with(good, n -> n.remove("ingested_at"));
            case MISSING_PAYLOAD -> with(good, n -> n.remove("payload"));
            case NULL_PAYLOAD -> with(good, n -> n.putNull("payload"));
            case SCALAR_PAYLOAD -> with(good, n -> n.put("payload", true));
            case INGESTED_AT_YEAR_10000 -> with(good, n -> n.put("ingested_at", "9999-12-31T23:00:00-05:00"));
            case INGESTED_AT_EPOCH_SECONDS -> with(good, n -> n.put("ingested_at", 1_782_119_730L));
            // the escape itself: a producer's UTF-8 encoder would turn the lone char into '?'
            case UNPAIRED_SURROGATE -> with(good, n -> n.put("device_type", "smart_plug_LONE"))
                    .replace("_LONE", "\\ud800");
        };
        return new Message(partition, key, value, Kind.BAD);
    }

    /** A record with a null value (a tombstone). */
    static Message tombstone(int i) {
        String good = envelope(i);
        return new Message(i % ConnectHarness.PARTITIONS, deviceId(good), null, Kind.TOMBSTONE);
    }

    // ---- expectations -----------------------------------------------------------------------------

    /** What a row of a good event must hold (a subset of its columns). */
    record ExpectedRow(String deviceId, String deviceType, LocalDate eventDate, int linkquality) {
    }

    /** The rows the table must hold after these messages: one per GOOD message, by coordinates. */
    static Map<Coordinates, ExpectedRow> expectedRows(List<Sent> sent) {
        Map<Coordinates, ExpectedRow> out = new TreeMap<>();
        for (Sent s : sent) {
            if (s.message().kind() == Kind.GOOD) {
                out.put(s.at(), expectedRow(s.message().value()));
            }
        }
        return out;
    }

    /** The Hive-style folders ({@code device_type=.../event_date=...}) the rows must be written to, sorted. */
    static List<String> partitionFolders(Map<Coordinates, ExpectedRow> rows) {
        return rows.values().stream().map(r -> "device_type=" + r.deviceType() + "/event_date=" + r.eventDate())
                .distinct().sorted().toList();
    }

    static ExpectedRow expectedRow(String envelope) {
        JsonNode n = parse(envelope);
        LocalDate date = OffsetDateTime.parse(n.get("ingested_at").asText())
                .atZoneSameInstant(ZoneOffset.UTC).toLocalDate();
        JsonNode payload = parse(n.get("payload").asText());
        return new ExpectedRow(n.get("device_id").asText(), n.get("device_type").asText(), date,
                payload.get("linkquality").asInt());
    }

    static String deviceId(String envelope) {
        return parse(envelope).get("device_id").asText();
    }

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private interface Edit {
        void apply(ObjectNode node);
    }

    private static String with(String envelope, Edit edit) {
        ObjectNode n = (ObjectNode) parse(envelope);
        edit.apply(n);
        return n.toString();
    }

    private static String withPayload(String envelope, Edit edit) {
        return with(envelope, n -> {
            ObjectNode payload = (ObjectNode) parse(n.get("payload").asText());
            edit.apply(payload);
            n.put("payload", payload.toString());
        });
    }
}
