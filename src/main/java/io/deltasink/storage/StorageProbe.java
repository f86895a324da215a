package io.deltasink.storage;

import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A short look at an S3 table's bucket before any task starts (for {@code Connector.validate()}):
 * S3A with one attempt, no retries and short connection timeouts checks that the bucket exists
 * and that the credentials may read the table's folder. A server that accepts connections but does
 * not answer runs into S3A's own (short) timeouts and counts as unreachable. The whole probe is
 * bounded by {@link #LIMIT_MS}; past that it says nothing (the first S3 client of a JVM may spend
 * that long loading classes), and the task reports what it meets. Its own FileSystem, closed
 * afterwards.
 */
public final class StorageProbe {
    private static final Logger log = LoggerFactory.getLogger(StorageProbe.class);

    /** The longest validate() waits for the probe. */
    public static final long LIMIT_MS = 10_000L;

    private StorageProbe() {
    }

    /**
     * The failure the probe met (classify it with {@link StorageErrors}), or empty when storage answered
     * or the probe did not finish in time.
     */
    public static Optional<Throwable> check(StorageSettings storage) {
        Configuration conf = storage.fileSystems().unscopedCopy(); // its own S3A, with the settings below
        conf.setInt("fs.s3a.attempts.maximum", 1);
        conf.setInt("fs.s3a.retry.limit", 0);
        conf.setInt("fs.s3a.retry.throttle.limit", 0);
        conf.set("fs.s3a.connection.establish.timeout", "3s");
        conf.set("fs.s3a.connection.timeout", "5s");
        conf.set("fs.s3a.connection.request.timeout", "8s");
        conf.setInt("fs.s3a.bucket.probe", 2); // initialize() asks S3 whether the bucket exists
        conf.setBoolean("fs.s3a.impl.disable.cache", true);
        Path root = storage.tablePath();
        ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "delta-sink-validate-s3-probe");
            t.setDaemon(true);
            return t;
        });
        try {
            Future<Void> probe = thread.submit(() -> {
                try (FileSystem fs = FileSystem.newInstance(root.toUri(), conf)) {
                    fs.exists(root); // a HEAD and a LIST: needs read access with the given keys
                }
                return null;
            });
            probe.get(LIMIT_MS, TimeUnit.MILLISECONDS);
            return Optional.empty();
        } catch (ExecutionException e) {
            return Optional.of(e.getCause());
        } catch (TimeoutException e) {
            log.warn("Could not check the bucket of {} within {} ms; it is not checked before the task starts",
                    storage.tableUri(), LIMIT_MS);
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of(new IOException("interrupted while probing the bucket", e));
        } finally {
            thread.shutdownNow();
        }
    }
}
