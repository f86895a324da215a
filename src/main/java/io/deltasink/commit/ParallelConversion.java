package io.deltasink.commit;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.deltasink.convert.ConverterFactory;
import io.deltasink.convert.RecordConverter;
import io.deltasink.write.TaskThreads;

/**
 * Converts a run of a put()'s records on the caller's thread and helper threads of the task's own
 * together ({@code convert.threads}): the records are cut into chunks of {@link #CHUNK}, every
 * thread takes the next chunk not taken until none is left, each with a converter of its own of
 * the configured mapping; the caller then waits for the chunks the helpers took. A run is at most
 * {@link #WINDOW} records or {@link #WINDOW_BYTES} of values ({@link #windowEnd}), so the rows
 * waiting to be taken add little to the memory the records hold already. A helper that is
 * slow to start or is descheduled only takes fewer chunks: the caller never waits for a chunk no
 * one has begun.
 *
 * <p>Conversion has no side effect (a converter keeps no state a record leaves behind), so what
 * each record gives, its row or the exception its conversion threw, is handed back in record
 * order and the caller takes it exactly where it would have converted the record itself: bad
 * records, the dead letter queue and a failing task are as with one thread. Only for a configured
 * mapping, whose converter never changes; in auto mode the converter follows the records, which
 * stay on the task's thread.
 */
final class ParallelConversion implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ParallelConversion.class);
    /** Records per chunk a thread takes at a time. */
    static final int CHUNK = 16;
    /** Fewer records than this are converted on the caller's thread alone. */
    static final int MIN_RECORDS = 2 * CHUNK;
    /** Records converted at a time at most, so the rows waiting to be taken stay few. */
    static final int WINDOW = 1024;
    /** Bytes of values (about) converted at a time at most, so the rows waiting to be taken stay small. */
    static final long WINDOW_BYTES = 1 << 20;
    /** What a value other than text or bytes (a Struct, a Map) counts for in {@link #WINDOW_BYTES}. */
    private static final int OTHER_VALUE_BYTES = 512;
    private static final int SPINS = 1 << 10;
    private static final long PARK_NANOS = 20_000;

    private final RecordConverter mine;
    private final ThreadLocal<RecordConverter> theirs;
    private final int helpers;
    private final ExecutorService threads;

    private ParallelConversion(ConverterFactory factory, RecordConverter mine, int helpers, String threadName) {
        this.mine = mine;
        this.helpers = helpers;
        this.theirs = ThreadLocal.withInitial(() -> factory.create(null));
        this.threads = TaskThreads.pool(threadName, helpers);
    }

    /**
     * Conversion on {@code threads} threads in all (the caller's included) when the mapping is
     * configured; null when there is one thread, or in auto mode.
     */
    static ParallelConversion of(ConverterFactory factory, int threads, String threadName) {
        if (threads < 2) {
            return null;
        }
        RecordConverter mine = factory.create(null);
        return mine == null ? null : new ParallelConversion(factory, mine, threads - 1, Objects.requireNonNull(threadName));
    }

    /**
     * Converts {@code records[from, to)}: element {@code i - from} of the result is the row of
     * record {@code i}, the exception its conversion threw, or null for a null value (a tombstone).
     */
    Object[] convert(List<SinkRecord> records, int from, int to) {
        Run run = new Run(records, from, to);
        if (to - from >= MIN_RECORDS) {
            for (int h = 0; h < helpers; h++) {
                try {
                    threads.execute(() -> run.take(theirs.get()));
                } catch (RejectedExecutionException e) {
                    LOG.debug("Conversion helpers are stopped: converting on the task's thread only");
                    break;
                }
            }
        }
        run.take(mine);
        run.awaitAll();
        return run.out;
    }

    /**
     * The end of the records to convert together from {@code from} on: at most {@link #WINDOW}
     * records whose values hold about {@link #WINDOW_BYTES}, at least one record.
     */
    static int windowEnd(List<SinkRecord> records, int from) {
        int end = Math.min(records.size(), from + WINDOW);
        long bytes = 0;
        for (int i = from; i < end; i++) {
            Object value = records.get(i).value();
            bytes += value instanceof byte[] b ? b.length : value instanceof String t ? t.length()
                    : value == null ? 0 : OTHER_VALUE_BYTES;
            if (bytes >= WINDOW_BYTES) {
                return i + 1;
            }
        }
        return end;
    }

    /** The row of a result of {@link #convert}; throws what the conversion threw. */
    static Object[] row(Object converted) {
        if (converted instanceof Object[] row) {
            return row;
        }
        if (converted instanceof RuntimeException e) {
            throw e;
        }
        if (converted instanceof Error e) {
            throw e;
        }
        throw new IllegalArgumentException("not a conversion result: " + converted);
    }

    /** Stops the helpers once they are done with what they took. */
    @Override
    public void close() {
        threads.shutdown();
    }

    /** The records of one {@link #convert} call and the chunks taken and done. */
    private static final class Run {
        private final List<SinkRecord> records;
        private final int from;
        private final Object[] out;
        private final int chunks;
        private final AtomicInteger next = new AtomicInteger();
        private final AtomicIntegerArray done;

        Run(List<SinkRecord> records, int from, int to) {
            this.records = records;
            this.from = from;
            this.out = new Object[to - from];
            this.chunks = (out.length + CHUNK - 1) / CHUNK;
            this.done = new AtomicIntegerArray(chunks);
        }

        /** Converts chunks not taken yet until none is left. */
        void take(RecordConverter converter) {
            int chunk;
            while ((chunk = next.getAndIncrement()) < chunks) {
                try {
                    int end = Math.min(out.length, (chunk + 1) * CHUNK);
                    for (int i = chunk * CHUNK; i < end; i++) {
                        out[i] = convert(converter, records.get(from + i));
                    }
                } finally {
                    done.set(chunk, 1); // publishes the chunk's results to the caller
                }
            }
        }

        private static Object convert(RecordConverter converter, SinkRecord record) {
            if (record.value() == null) {
                return null;
            }
            try {
                return converter.convert(record);
            } catch (RuntimeException | Error e) { // handed to the caller for this record, as if thrown there
                return e;
            }
        }

        /**
         * Waits until every chunk is done. Once the caller has taken what was left, the chunks not
         * done are being converted by a helper, a few records' work each.
         */
        void awaitAll() {
            for (int chunk = 0; chunk < chunks; chunk++) {
                for (int spin = 0; done.get(chunk) == 0; spin++) {
                    if (spin < SPINS) {
                        Thread.onSpinWait();
                    } else {
                        LockSupport.parkNanos(PARK_NANOS);
                    }
                }
            }
        }
    }
}
