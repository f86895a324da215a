package io.deltasink.write;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.deltasink.model.DataFile;

/**
 * A {@link PartitionedWriter} fed through a bounded hand-off: the caller's thread does everything
 * that can refuse a row ({@link PartitionedWriter#check}, {@link PartitionedWriter#checkFolders} the
 * first time a table partition is seen), so a {@link RowRejectedException} is thrown by the
 * {@link #write} of its own row; the row then goes, in chunks of {@link #CHUNK_ROWS} rows (or
 * {@link #CHUNK_BYTES} estimated bytes), to one writer thread that encodes, compresses and writes
 * the files while the caller converts the next rows. At most {@link #CHUNKS_IN_FLIGHT} chunks wait
 * or are being written; the caller waits for a free slot beyond that.
 *
 * <p>A failure of the writer thread (storage, or anything thrown) is kept and thrown by the next
 * {@link #write}, {@link #drain} or {@link #finish}; the writer is then unusable until
 * {@link #abort()}. {@link #drain} waits until every row handed off is in the partitioned writer,
 * {@link #finish} closes the files on the writer thread and returns them, {@link #abort} drops what
 * waits and deletes every file since the last finish. The thread is started by the first chunk,
 * is a daemon, carries the name given, and ends with {@link #close()}.
 *
 * <p>Without a thread name every call goes straight to the partitioned writer on the caller's thread.
 * One caller thread only.
 */
public final class BackgroundWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BackgroundWriter.class);
    /** Rows per chunk handed to the writer thread. */
    public static final int CHUNK_ROWS = 128;
    /** A chunk is handed off early once its rows' estimated heap size reaches this. */
    static final long CHUNK_BYTES = 256 * 1024;
    /** Chunks waiting for or in the writer thread at most (the caller fills one more). */
    static final int CHUNKS_IN_FLIGHT = 4;
    /** Table partitions whose folder names are known to be valid, remembered on the caller's side. */
    static final int CHECKED_PARTITIONS = 4096;
    private static final long STOP_WAIT_SECONDS = 30;

    private final PartitionedWriter writer;
    private final String threadName;
    private final Semaphore slots = new Semaphore(CHUNKS_IN_FLIGHT);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Set<List<String>> checkedPartitions = new HashSet<>();
    /** The key of the last row written: its folders are checked. */
    private List<String> lastCheckedKey;
    /** Chunks handed off before an {@link #abort()} that raised it are skipped. */
    private volatile long epoch;

    private ExecutorService thread;
    private Object[][] rows = new Object[CHUNK_ROWS][];
    private List<?>[] keys = new List<?>[CHUNK_ROWS];
    private int size;
    private long chunkBytes;
    private long rowsBuffered;

    /**
     * @param writer     the writer the rows go to; only this class may use it from now on
     * @param threadName the writer thread's name; null to write on the caller's thread
     */
    public BackgroundWriter(PartitionedWriter writer, String threadName) {
        this.writer = Objects.requireNonNull(writer, "writer");
        this.threadName = threadName;
    }

    /**
     * Checks a row and hands it to the writer thread (or writes it, without one).
     *
     * @throws RowRejectedException     when the row cannot be written; nothing is kept of it
     * @throws IllegalArgumentException when the row is not a row of the schema
     * @throws IOException              a failure of the writer thread (or of this write, without one);
     *                                  call {@link #abort()} then
     */
    public void write(Object[] row) throws IOException {
        if (threadName == null) {
            writer.write(row);
            return;
        }
        throwFailure();
        List<String> key = writer.check(row);
        // the partitioned writer hands the same key again for a row of the same table partition
        if (key != lastCheckedKey && !checkedPartitions.contains(key)) {
            writer.checkFolders(key);
            if (checkedPartitions.size() >= CHECKED_PARTITIONS) {
                checkedPartitions.clear();
            }
            checkedPartitions.add(key);
        }
        lastCheckedKey = key;
        rows[size] = row;
        keys[size] = key;
        size++;
        rowsBuffered++;
        chunkBytes += PendingRows.estimate(row);
        if (size == CHUNK_ROWS || chunkBytes >= CHUNK_BYTES) {
            handOff();
        }
    }

    /**
     * Waits until every row written so far is in the partitioned writer (in memory or in files), then
     * throws what failed meanwhile.
     */
    public void drain() throws IOException {
        if (threadName == null) {
            return;
        }
        throwFailure();
        handOff();
        if (thread != null) {
            acquire(CHUNKS_IN_FLIGHT);
            slots.release(CHUNKS_IN_FLIGHT);
        }
        throwFailure();
    }

    /**
     * Waits for the rows handed off, closes every file on the writer thread and returns every file
     * finished since the last call (see {@link PartitionedWriter#finish()}).
     *
     * @throws IOException a failure of the writer thread or of closing the files; call {@link #abort()} then
     */
    public List<DataFile> finish() throws IOException {
        if (threadName == null) {
            return writer.finish();
        }
        throwFailure();
        handOff();
        List<DataFile> files = thread == null ? writer.finish() : await(thread().submit(() -> {
            if (failure.get() != null) {
                return List.<DataFile>of();
            }
            try {
                return writer.finish();
            } catch (Throwable e) {
                fail(e);
                return List.<DataFile>of();
            }
        }));
        throwFailure();
        rowsBuffered = 0;
        return files;
    }

    /**
     * Drops the rows not yet written, waits for the chunk being written, then deletes every file
     * written since the last {@link #finish()} (on the writer thread) and forgets any failure.
     * Throws the first file that could not be deleted.
     */
    public void abort() throws IOException {
        if (threadName == null) {
            writer.abort();
            return;
        }
        clearChunk();
        rowsBuffered = 0;
        if (thread == null) {
            failure.set(null);
            writer.abort();
            return;
        }
        epoch++; // chunks still queued are skipped
        try {
            await(thread.submit(() -> {
                writer.abort();
                return null;
            }));
        } finally {
            failure.set(null);
        }
    }

    /** Rows written since the last {@link #finish()} or {@link #abort()}, whether handed off or written. */
    public long rowsBuffered() {
        return threadName == null ? writer.rowsBuffered() : rowsBuffered;
    }

    /**
     * Stops the writer thread once the work handed to it is done (interrupting it after a while);
     * call {@link #abort()} or {@link #finish()} first. The writer is not usable afterwards.
     */
    @Override
    public void close() {
        if (thread == null) {
            return;
        }
        thread.shutdown();
        boolean interrupted = false;
        try {
            if (!thread.awaitTermination(STOP_WAIT_SECONDS, TimeUnit.SECONDS)) {
                LOG.warn("Writer thread {} still busy after {} s: interrupting it", threadName, STOP_WAIT_SECONDS);
                thread.shutdownNow();
            }
        } catch (InterruptedException e) {
            thread.shutdownNow();
            interrupted = true;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void handOff() throws IOException {
        if (size == 0) {
            return;
        }
        Object[][] chunkRows = rows;
        List<?>[] chunkKeys = keys;
        int n = size;
        long chunkEpoch = epoch;
        rows = new Object[CHUNK_ROWS][];
        keys = new List<?>[CHUNK_ROWS];
        size = 0;
        chunkBytes = 0;
        acquire(1);
        thread().execute(() -> writeChunk(chunkRows, chunkKeys, n, chunkEpoch));
    }

    @SuppressWarnings("unchecked")
    private void writeChunk(Object[][] chunkRows, List<?>[] chunkKeys, int n, long chunkEpoch) {
        try {
            if (failure.get() != null || chunkEpoch != epoch) {
                return; // the batch is dropped anyway
            }
            for (int i = 0; i < n; i++) {
                writer.write((List<String>) chunkKeys[i], chunkRows[i]);
            }
        } catch (Throwable e) {
            fail(e);
        } finally {
            slots.release();
        }
    }

    private void fail(Throwable e) {
        // a row refused here would be blamed on another record by the caller: every refusal is checked up front
        Throwable kept = e instanceof RowRejectedException
                ? new IllegalStateException("a row passed the checks but the writer refused it", e) : e;
        if (!failure.compareAndSet(null, kept)) {
            failure.get().addSuppressed(kept);
        }
    }

    private void throwFailure() throws IOException {
        Throwable e = failure.get();
        if (e != null) {
            throw asThrown(e);
        }
    }

    /** Throws {@code e} when unchecked; otherwise the IOException to throw for it. */
    private static IOException asThrown(Throwable e) {
        if (e instanceof RuntimeException r) {
            throw r;
        }
        if (e instanceof Error err) {
            throw err;
        }
        return e instanceof IOException io ? io : new IOException(e);
    }

    /**
     * Waits for slots of the hand-off, through interrupts (the caller's interrupt status is kept): what
     * the writer thread does with the rows handed off, files it creates and failures, must be accounted
     * for before the caller goes on. The wait is bounded by the writer thread's progress.
     */
    private void acquire(int permits) {
        slots.acquireUninterruptibly(permits);
    }

    /**
     * Waits for work of the writer thread to end, through interrupts (which are kept): the files it
     * closes or deletes must be accounted for before the caller goes on.
     */
    private <T> T await(Future<T> future) throws IOException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw asThrown(e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void clearChunk() {
        java.util.Arrays.fill(rows, 0, size, null);
        java.util.Arrays.fill(keys, 0, size, null);
        size = 0;
        chunkBytes = 0;
    }

    private ExecutorService thread() {
        if (thread == null) {
            thread = TaskThreads.pool(threadName, 1);
            LOG.debug("Started writer thread {}", threadName);
        }
        return thread;
    }
}
