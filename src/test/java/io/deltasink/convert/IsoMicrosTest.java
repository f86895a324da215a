package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * ISO text read straight from JSON bytes ({@link Timestamps#isoMicros}) gives what its String gives
 * ({@link Timestamps#parseMicros} within the range), and leaves every text it cannot read that way,
 * good or bad, to the String.
 */
class IsoMicrosTest {
    private static final String[] ZONES = {"Z", "+00:00", "-00:00", "+02:00", "-05:30", "+18:00", "-18:00", "+14:45",
        "+19:00", "+02:60", "z", "+0200", "+02", "", "+2:00", "+02:0a", " Z", "Z ", "+02:00Z"};
    private static final String[] FRACTIONS = {"", ".1", ".12", ".123", ".1234", ".12345", ".123456", ".1234567",
        ".12345678", ".123456789", ".1234567891", ".", ",5", ".5a", ".０"};

    /** The String's answer: its microseconds, or the failure's message. */
    private static String byString(String text) {
        try {
            return Long.toString(Timestamps.inRange(Timestamps.parseMicros(text)));
        } catch (BadValueException e) {
            return "bad: " + e.getMessage();
        }
    }

    private static long byBytes(String text) {
        byte[] utf8 = ("\"" + text + "\"").getBytes(StandardCharsets.UTF_8);
        return Timestamps.isoMicros(utf8, 1, utf8.length - 2);
    }

    private static String two(int n) {
        return n < 10 ? "0" + n : Integer.toString(n);
    }

    @Test
    void textsReadFromBytesAreWhatTheirStringsGiveAndTheRestIsLeftToTheString() {
        List<String> texts = new ArrayList<>(List.of("2026-06-22T09:15:30.123456+02:00", "0001-01-01T00:00:00Z",
                "0000-12-31T23:59:59.999999Z", "0001-01-01T00:59:59+01:00", "9999-12-31T23:59:59.999999Z",
                "9999-12-31T23:59:59.999999-00:01", "9999-12-31T22:00:00-02:00", "10000-01-01T00:00:00Z",
                "2024-02-29T12:00:00Z", "2023-02-29T12:00:00Z", "1900-02-29T00:00:00Z", "2000-02-29T00:00:00Z",
                "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z",
                "2026-01-01T24:00:00Z", "2026-01-01T23:60:00Z", "2026-01-01T23:59:60Z", "2026-01-01t10:00:00Z",
                "2026-01-01 10:00:00Z", "2026-01-01T10:00Z", "2026-01-01", "2026-01-01T10:00:00", " 2026-01-01T10:00:00Z",
                "2026-01-01T10:00:00Z ", "2026-1-01T10:00:00Z", "+2026-01-01T10:00:00Z", "2026-01-01T10:00:00.Z",
                "2026/01/01T10:00:00Z", "2026-01-01T10-00-00Z", "２026-01-01T10:00:00Z", "2026-01-01T10:00:00.1234567890Z",
                "abcd-ef-ghTij:kl:mnZ", "2026-01-01T10:00:00+18:59", "2026-01-01T10:00:00+24:00"));
        Random random = new Random(11);
        for (int k = 0; k < 20_000; k++) {
            int year = random.nextInt(10) == 0 ? random.nextInt(10_000) : 1900 + random.nextInt(200);
            int month = random.nextInt(10) == 0 ? random.nextInt(14) : 1 + random.nextInt(12);
            int day = random.nextInt(5) == 0 ? 28 + random.nextInt(5) : 1 + random.nextInt(31);
            int hour = random.nextInt(26);
            int minute = random.nextInt(61);
            int second = random.nextInt(61);
            String text = String.format("%04d-%s-%sT%s:%s:%s%s%s", year, two(month), two(day), two(hour), two(minute),
                    two(second), FRACTIONS[random.nextInt(FRACTIONS.length)], ZONES[random.nextInt(ZONES.length)]);
            if (random.nextInt(20) == 0) { // a byte changed anywhere
                char[] chars = text.toCharArray();
                String bytes = "0123456789-:T.+Z /\u00e9\u0000";
                chars[random.nextInt(chars.length)] = bytes.charAt(random.nextInt(bytes.length()));
                text = new String(chars);
            }
            texts.add(text);
        }
        int read = 0;
        for (String text : texts) {
            long micros = byBytes(text);
            String expected = byString(text);
            if (micros != Timestamps.NOT_READ) {
                read++;
                assertEquals(expected, Long.toString(micros), text);
            } else {
                // left to the String: only for another shape than the usual one, or a text the String refuses
                boolean usual = text.matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d{1,9})?(Z|[+-]\\d\\d:\\d\\d)");
                assertTrue(!usual || expected.startsWith("bad: "), "left to the String though it gives " + expected
                        + ": " + text);
            }
        }
        assertTrue(read > 3_000, "texts read from bytes: " + read);
    }

    @Test
    void theSeedsTimestampsAreReadFromTheValuesBytesToTheSameRows() {
        String columns = "event_time:timestamp=ingested_at, event_date:date=date(event_time), t:timestamp(millis)=p.t";
        Clock clock = Clock.fixed(Instant.parse("2026-06-22T10:00:00Z"), ZoneOffset.UTC);
        MappingConverter stream = new MappingConverter(ColumnMapping.parse(columns), clock);
        MappingConverter tree = new MappingConverter(ColumnMapping.parse(columns), clock, EpochUnit.NONE, new Json(), false);
        for (int seq = 0; seq < 500; seq++) {
            SensorEvents.Event e = SensorEvents.event(seq);
            String json = "{\"ingested_at\":\"" + e.ingestedAtText(ZoneOffset.ofHours(seq % 3 - 1))
                    + "\",\"p\":\"{\\\"t\\\":\\\"" + e.ingestedAtText() + "\\\"}\"}";
            SinkRecord record = SinkRecords.of("t", 0, seq, json.getBytes(StandardCharsets.UTF_8));
            Object[] row = stream.convert(record);
            assertEquals(List.of(e.ingestedAtMicros(), e.epochDay(), e.ingestedAtMicros()), List.of(row), json);
            assertEquals(List.of(tree.convert(record)), List.of(row), json);
        }
        Object[] sources = new Object[3];
        String json = "{\"ingested_at\":\"" + SensorEvents.event(1).ingestedAtText() + "\"}";
        assertTrue(new StreamingPaths(FieldTree.build(ColumnMapping.parse(columns).specs()), new Json(), true)
                .resolve(SinkRecords.of("t", 0, 1L, json), json, sources));
        assertInstanceOf(Timestamps.Read.class, sources[0], "read straight from the bytes");
    }
}
