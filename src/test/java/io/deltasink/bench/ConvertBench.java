package io.deltasink.bench;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Locale;
import java.util.Set;

import org.apache.kafka.connect.sink.SinkRecord;

import io.deltasink.convert.BatchClock;
import io.deltasink.convert.ColumnMapping;
import io.deltasink.convert.MappingConverter;
import io.deltasink.proc.Preset;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * Conversion alone, on one thread: the seed preset's mapping over a mixed stream of sensor events
 * (4 smart plugs to 1 door sensor), reporting records per second of the thread's CPU time (a
 * shared machine's load does not count), records per wall-clock second, and bytes allocated per
 * record (the thread's own allocation counter). The clock of {@code @now} is ticked every
 * {@value ConvertEncodeBench#PUT_RECORDS} records, as a task ticks it at every put. The value reaches the converter as the worker's converter
 * would hand it over:
 * <ul>
 *   <li>{@code string}: the UTF-8 bytes decoded to a String first, as StringConverter does, the
 *       decoding included in the time;</li>
 *   <li>{@code bytes}: the bytes as they are, as ByteArrayConverter does.</li>
 * </ul>
 * Run from the project root: {@code mvn -q -B -Pbench test-compile exec:java
 * -Dbench.main=io.deltasink.bench.ConvertBench [-Dexec.args="string|bytes [RECORDS]"]}.
 */
public final class ConvertBench {
    private static final int DISTINCT = 10_000;

    private ConvertBench() {
    }

    /** Args: [string|bytes, default bytes] [records measured after 300,000 to warm up, default 1,000,000]. */
    public static void main(String[] args) {
        String input = args.length > 0 ? args[0] : "bytes";
        long count = args.length > 1 ? Long.parseLong(args[1]) : 1_000_000L;
        if (!input.equals("string") && !input.equals("bytes")) {
            throw new IllegalArgumentException("input: string or bytes, not " + input);
        }
        var config = Preset.sensorEventsLocal().config();
        BatchClock clock = new BatchClock(Clock.systemUTC());
        MappingConverter converter = new MappingConverter(ColumnMapping.parse(config.get("columns"),
                Set.of(config.get("columns.not.null").split(","))), clock);
        byte[][] values = new byte[DISTINCT][];
        for (int i = 0; i < DISTINCT; i++) {
            values[i] = SensorEvents.event(i).bytes();
        }
        boolean decode = input.equals("string");
        run(converter, clock, values, decode, 300_000L);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
        long cpuBefore = threads.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        run(converter, clock, values, decode, count);
        long nanos = System.nanoTime() - start;
        long cpu = threads.getCurrentThreadCpuTime() - cpuBefore;
        long allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;
        System.out.printf(Locale.ROOT, "convert %s: %,d records, %.2f s CPU, %.2f s wall: %,.0f records/s of CPU time, "
                + "%,.0f records/s wall, %,d bytes allocated per record%n",
                input, count, cpu / 1e9, nanos / 1e9, count * 1e9 / cpu, count * 1e9 / nanos, allocated / count);
    }

    private static void run(MappingConverter converter, BatchClock clock, byte[][] values, boolean decode, long count) {
        long check = 0;
        for (long n = 0; n < count; n++) {
            if (n % ConvertEncodeBench.PUT_RECORDS == 0) {
                clock.tick();
            }
            byte[] bytes = values[(int) (n % values.length)];
            Object value = decode ? new String(bytes, StandardCharsets.UTF_8) : bytes;
            SinkRecord r = SinkRecords.of("sensor-events", 0, n, value);
            check += converter.convert(r).length;
        }
        if (check != count * converter.schema().columns().size()) {
            throw new IllegalStateException("rows missing");
        }
    }
}
