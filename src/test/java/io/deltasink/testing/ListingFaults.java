package io.deltasink.testing;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

import io.deltasink.storage.NioLocalFileSystem;

/**
 * Test-only: the connector's local file system, failing the listing of a folder a test names with
 * an I/O error (a mount that does not answer, an object store's timeout), a given number of times.
 * Plugged in with {@code fs.file.impl} ({@link #KEY}; connector: {@code delta.hadoop.} + KEY).
 * Faults are armed per folder and used up one listing at a time; Hadoop makes its own file system
 * instances, hence the static registry.
 */
public class ListingFaults extends NioLocalFileSystem {
    public static final String KEY = "fs.file.impl";

    private static final Map<String, AtomicInteger> ARMED = new ConcurrentHashMap<>();

    /** The next {@code times} listings of {@code folder} fail. */
    public static void arm(String folder, int times) {
        ARMED.computeIfAbsent(key(new Path(folder)), k -> new AtomicInteger()).addAndGet(times);
    }

    /** Failures armed for the folder and not used yet. */
    public static int pending(String folder) {
        AtomicInteger left = ARMED.get(key(new Path(folder)));
        return left == null ? 0 : left.get();
    }

    @Override
    public FileStatus[] listStatus(Path f) throws IOException {
        AtomicInteger left = ARMED.get(key(f));
        if (left != null && left.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new IOException("injected: listing " + f + " timed out");
        }
        return super.listStatus(f);
    }

    private static String key(Path p) {
        String path = p.toUri().getPath();
        return path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path;
    }
}
