package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.deltasink.Converters;
import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.ConverterFactory;
import io.deltasink.convert.RecordConverter;
import io.deltasink.model.RowSchema;
import io.deltasink.proc.Preset;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * Conversion on the task's thread and helper threads together: every record gives, in its own
 * place, what one converter on one thread gives it (the row, or the exception with its message),
 * whatever the run's length, the threads' count and how the chunks fall between them.
 */
class ParallelConversionTest {
    private static final String TOPIC = "sensor-events";
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-06-22T12:00:00Z"), ZoneOffset.UTC);
    private final List<ParallelConversion> opened = new ArrayList<>();

    @AfterEach
    void closeAll() {
        opened.forEach(ParallelConversion::close);
    }

    private ParallelConversion open(ConverterFactory factory, int threads) {
        ParallelConversion c = ParallelConversion.of(factory, threads, "delta-convert-test");
        assertNotNull(c);
        opened.add(c);
        return c;
    }

    /** The seed preset's mapping (@now at a fixed instant). */
    private static ConverterFactory seedMapping() {
        Map<String, String> props = new HashMap<>(Preset.sensorEventsLocal().config());
        props.put(DeltaSinkConfig.CONNECTOR_NAME, "test");
        return Converters.factory(new DeltaSinkConfig(props), CLOCK);
    }

    /** Seed events as bytes and text, with tombstones and bad records of several kinds among them. */
    private static List<SinkRecord> mixed(int n) {
        List<SinkRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Object value = switch (i % 11) {
                case 3 -> null;
                case 5 -> "{\"device_id\":\"plug\",\"device_type\":\"smart_plug\",\"ingested_at\":\"10000-01-01T00:00:00Z\","
                        + "\"payload\":\"{}\"}";
                case 7 -> "{\"device_type\":\"smart_plug\",\"ingested_at\":\"2026-06-22T08:00:00Z\",\"payload\":\"{}\"}";
                case 8 -> "{\"device_id\":\"plug\",\"device_type\":\"smart_plug\",\"ingested_at\":\"2026-06-22T08:00:00Z\","
                        + "\"payload\":\"{\\\"power\\\":\\\"high\\\"}\"}";
                case 9 -> "not json at all";
                case 10 -> "{\"device_id\":\"plug\",\"device_type\":\"smart_plug\",\"ingested_at\":\"2026-06-22T08:00:00Z\","
                        + "\"payload\":\"{\\\"note\\\":\\\"\\\\udc00\\\"}\"}";
                default -> i % 2 == 0 ? SensorEvents.event(i).bytes() : SensorEvents.event(i).json();
            };
            out.add(SinkRecords.of(TOPIC, 0, i, value));
        }
        return out;
    }

    /** What one converter on this thread gives each record of {@code records[from, to)}, as {@link ParallelConversion#convert} hands it. */
    private static Object[] oneThread(RecordConverter converter, List<SinkRecord> records, int from, int to) {
        Object[] out = new Object[to - from];
        for (int i = from; i < to; i++) {
            if (records.get(i).value() == null) {
                continue;
            }
            try {
                out[i - from] = converter.convert(records.get(i));
            } catch (RuntimeException e) {
                out[i - from] = e;
            }
        }
        return out;
    }

    private static void assertSameResults(Object[] expected, Object[] actual, String what) {
        assertEquals(expected.length, actual.length, what);
        for (int i = 0; i < expected.length; i++) {
            if (expected[i] instanceof Object[] row) {
                assertInstanceOf(Object[].class, actual[i], what + " #" + i + ": " + actual[i]);
                assertArrayEquals(row, (Object[]) actual[i], what + " #" + i);
            } else if (expected[i] instanceof RuntimeException e) {
                assertInstanceOf(e.getClass(), actual[i], what + " #" + i);
                assertEquals(e.getMessage(), ((Throwable) actual[i]).getMessage(), what + " #" + i);
            } else {
                assertNull(actual[i], what + " #" + i);
            }
        }
    }

    @Test
    void everyRecordGivesWhatOneThreadGivesInItsOwnPlace() {
        ConverterFactory factory = seedMapping();
        RecordConverter reference = factory.create(null);
        List<SinkRecord> records = mixed(3000);
        Object[] all = oneThread(reference, records, 0, records.size());
        assertTrue(Arrays.stream(all).anyMatch(r -> r instanceof RuntimeException)
                && Arrays.stream(all).anyMatch(r -> r instanceof Object[]), "good and bad records among them");
        for (int threads : new int[] {2, 3, 5}) {
            ParallelConversion conversion = open(factory, threads);
            for (int[] run : new int[][] {{0, 0}, {0, 1}, {7, 38}, {7, 39}, {7, 40}, {100, 233}, {5, 1029}, {0, 3000}}) {
                assertSameResults(oneThread(reference, records, run[0], run[1]),
                        conversion.convert(records, run[0], run[1]), threads + " threads, records " + run[0] + ".." + run[1]);
            }
        }
    }

    /** A converter that notes the thread of each record it converts; {@code pauseMs} per record. */
    private record Noting(RecordConverter inner, Map<Long, String> threads, long pauseMs) implements RecordConverter {
        @Override
        public RowSchema schema() {
            return inner.schema();
        }

        @Override
        public Object[] convert(SinkRecord record) {
            threads.put(record.kafkaOffset(), Thread.currentThread().getName());
            if (pauseMs > 0) {
                try {
                    Thread.sleep(pauseMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return inner.convert(record);
        }
    }

    @Test
    void helpersTakeChunksWhileTheTasksThreadIsBusyAndTheRowsComeBackInRecordOrder() {
        ConverterFactory seed = seedMapping();
        Map<Long, String> threads = new ConcurrentHashMap<>();
        AtomicInteger created = new AtomicInteger();
        // the first converter is the caller's: slow, so the helpers surely take chunks
        ConverterFactory noting = first -> new Noting(seed.create(null), threads, created.getAndIncrement() == 0 ? 2 : 0);
        ParallelConversion conversion = open(noting, 3);
        List<SinkRecord> records = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            records.add(SinkRecords.of(TOPIC, 0, i, SensorEvents.event(i).bytes()));
        }
        Object[] out = conversion.convert(records, 0, records.size());
        assertSameResults(oneThread(seed.create(null), records, 0, records.size()), out, "rows in record order");
        assertEquals(400, threads.size());
        Set<String> names = Set.copyOf(threads.values());
        // the caller takes chunks too, unless the helpers are done before it takes its first
        assertTrue(names.stream().allMatch(n -> n.equals(Thread.currentThread().getName())
                || n.startsWith("delta-convert-test-")), "the caller and the helpers only: " + names);
        assertTrue(names.stream().anyMatch(n -> n.startsWith("delta-convert-test-")), "helpers convert: " + names);
        for (int chunk = 0; chunk < 400 / ParallelConversion.CHUNK; chunk++) {
            Set<String> byChunk = new java.util.HashSet<>();
            for (int i = chunk * ParallelConversion.CHUNK; i < (chunk + 1) * ParallelConversion.CHUNK; i++) {
                byChunk.add(threads.get((long) i));
            }
            assertEquals(1, byChunk.size(), "one thread per chunk " + chunk + ": " + byChunk);
        }
    }

    @Test
    void whatAConversionThrowsOnAHelperIsHandedBackForItsOwnRecord() {
        ConverterFactory seed = seedMapping();
        Error error = new AssertionError("converter broke on 150");
        IllegalStateException bug = new IllegalStateException("converter bug on 170");
        AtomicInteger created = new AtomicInteger();
        ConverterFactory failing = first -> {
            boolean caller = created.getAndIncrement() == 0;
            RecordConverter inner = seed.create(null);
            return new RecordConverter() {
                @Override
                public RowSchema schema() {
                    return inner.schema();
                }

                @Override
                public Object[] convert(SinkRecord record) {
                    if (caller) {
                        try {
                            Thread.sleep(1); // the helper takes most chunks
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    if (record.kafkaOffset() == 150) {
                        throw error;
                    }
                    if (record.kafkaOffset() == 170) {
                        throw bug;
                    }
                    return inner.convert(record);
                }
            };
        };
        ParallelConversion conversion = open(failing, 2);
        List<SinkRecord> records = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            records.add(SinkRecords.of(TOPIC, 0, i, SensorEvents.event(i).bytes()));
        }
        Object[] out = conversion.convert(records, 0, records.size());
        assertSame(error, assertThrows(AssertionError.class, () -> ParallelConversion.row(out[150])));
        assertSame(bug, assertThrows(IllegalStateException.class, () -> ParallelConversion.row(out[170])));
        for (int i = 0; i < 200; i++) {
            if (i != 150 && i != 170) {
                assertEquals(SensorEvents.event(i).deviceId(), ParallelConversion.row(out[i])[0], "record " + i);
            }
        }
    }

    @Test
    void onceStoppedTheCallerConvertsAlone() {
        ConverterFactory seed = seedMapping();
        Map<Long, String> threads = new ConcurrentHashMap<>();
        ParallelConversion conversion = open(first -> new Noting(seed.create(null), threads, 0), 2);
        conversion.close();
        List<SinkRecord> records = mixed(300);
        assertSameResults(oneThread(seed.create(null), records, 0, 300), conversion.convert(records, 0, 300),
                "after close");
        assertEquals(Set.of(Thread.currentThread().getName()), Set.copyOf(threads.values()));
    }

    @Test
    void oneThreadOrColumnsFromTheRecordsConvertOnTheTasksThreadOnly() {
        assertNull(ParallelConversion.of(seedMapping(), 1, "delta-convert-test"));
        Map<String, String> props = new HashMap<>(Preset.sensorEventsLocal().config());
        props.put(DeltaSinkConfig.CONNECTOR_NAME, "test");
        props.put(DeltaSinkConfig.COLUMNS, "auto");
        assertNull(ParallelConversion.of(Converters.factory(new DeltaSinkConfig(props), CLOCK), 4, "delta-convert-test"));
    }

    @Test
    void aRunHoldsAtMostAWindowOfRecordsOrOfBytes() {
        List<SinkRecord> small = mixed(2500);
        assertEquals(ParallelConversion.WINDOW, ParallelConversion.windowEnd(small, 0));
        assertEquals(2500, ParallelConversion.windowEnd(small, 2000));
        List<SinkRecord> large = new ArrayList<>();
        int size = (int) (ParallelConversion.WINDOW_BYTES / 4) + 1;
        for (int i = 0; i < 10; i++) {
            large.add(SinkRecords.of(TOPIC, 0, i, i % 2 == 0 ? new byte[size] : "x".repeat(size)));
        }
        assertEquals(4, ParallelConversion.windowEnd(large, 0), "four values of a quarter of the bytes and more");
        assertEquals(8, ParallelConversion.windowEnd(large, 4));
        large.set(2, SinkRecords.of(TOPIC, 0, 2, new byte[(int) ParallelConversion.WINDOW_BYTES * 5]));
        assertEquals(3, ParallelConversion.windowEnd(large, 2), "a value beyond the bytes alone");
        assertEquals(3, ParallelConversion.windowEnd(large, 0));
    }
}
