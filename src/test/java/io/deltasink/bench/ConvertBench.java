package io.deltasink.bench;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Locale;
import java.util.Set;

import org.apache.kafka.connect.sink.SinkRecord;

import io.deltasink.convert.ColumnMapping;
import io.deltasink.convert.MappingConverter;
import io.deltasink.proc.Preset;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * Conversion alone, on one thread: the seed preset's mapping over a mixed stream of sensor events
 * (4 smart plugs to 1 door sensor), reporting records/s and bytes allocated per record (the
 * thread's own allocation counter). The value reaches the converter as the worker's converter
 * would hand it over:
 * <ul>
 *   <li>{@code string}: the UTF-8 bytes decoded to a String first, as StringConverter does, the
 *       decoding included in the time;</li>
 *   <li>{@code bytes}: the bytes as they are, as ByteArrayConverter does.</li>
 * </ul>
 * Run from the project root: {@code mvn -q -B -Pbench test-compile exec:java
 * -Dbench.main=io.deltasink.bench.ConvertBench [-Dexec.args="string|bytes [SECONDS]"]}.
 */
public final class ConvertBench {
    private static final int DISTINCT = 10_000;

    private ConvertBench() {
    }

    /** Args: [string|bytes, default bytes] [seconds measured, default 10]. */
    public static void main(String[] args) {
        String input = args.length > 0 ? args[0] : "bytes";
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        if (!input.equals("string") && !input.equals("bytes")) {
            throw new IllegalArgumentException("input: string or bytes, not " + input);
        }
        var config = Preset.sensorEventsLocal().config();
        MappingConverter converter = new MappingConverter(ColumnMapping.parse(config.get("columns"),
                Set.of(config.get("columns.not.null").split(","))), Clock.systemUTC());
        byte[][] values = new byte[DISTINCT][];
        for (int i = 0; i < DISTINCT; i++) {
            values[i] = SensorEvents.event(i).bytes();
        }
        boolean decode = input.equals("string");
        run(converter, values, decode, 3);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
        long start = System.nanoTime();
        long records = run(converter, values, decode, seconds);
        long nanos = System.nanoTime() - start;
        long allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;
        System.out.printf(Locale.ROOT, "convert %s: %,d records in %.2f s: %,.0f records/s, %,d bytes allocated per record%n",
                input, records, nanos / 1e9, records * 1e9 / nanos, allocated / records);
    }

    private static long run(MappingConverter converter, byte[][] values, boolean decode, int seconds) {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        long records = 0;
        long check = 0;
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < values.length; i++, records++) {
                Object value = decode ? new String(values[i], StandardCharsets.UTF_8) : values[i];
                SinkRecord r = SinkRecords.of("sensor-events", 0, records, value);
                check += converter.convert(r).length;
            }
        }
        if (check == 0) {
            throw new IllegalStateException("no rows");
        }
        return records;
    }
}
