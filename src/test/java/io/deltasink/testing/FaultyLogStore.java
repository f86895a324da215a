package io.deltasink.testing;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

import io.deltasink.storage.ExclusiveLocalLogStore;

/**
 * Test-only: the connector's log store for local tables (the one Kernel uses for file: paths), with
 * faults injected into the writing of commit files, as storage shows them when the answer to a
 * write is lost: the commit lands and the writer is told "already exists" (a retried conditional
 * create whose first attempt stored the object) or gets an I/O error; or the write is lost
 * before anything is stored.
 *
 * <p>Plugged in with the Hadoop setting {@link #KEY} (connector: {@code delta.hadoop.} + KEY).
 * Faults are armed per table directory and used up one commit at a time; Kernel makes its own
 * log store instances, hence the static registry.
 */
public class FaultyLogStore extends ExclusiveLocalLogStore {
    public static final String KEY = "io.delta.kernel.logStore.file.impl";

    public enum Fault {
        /** The commit file is stored, then the write reports that the file already exists. */
        LANDED_THEN_EXISTS,
        /** The commit file is stored, then the write fails with an I/O error. */
        LANDED_THEN_IO_ERROR,
        /** The write fails with an I/O error before anything is stored. */
        LOST_BEFORE_WRITE
    }

    private static final Map<String, Deque<Fault>> ARMED = new ConcurrentHashMap<>();
    private static final Map<String, Runnable> RIVALS = new ConcurrentHashMap<>();

    public FaultyLogStore(Configuration conf) {
        super(conf);
    }

    /** Injects these faults, in order, into the next commits of the table at {@code tableUri}. */
    public static void arm(String tableUri, Fault... faults) {
        Deque<Fault> queue = ARMED.computeIfAbsent(logDir(new Path(tableUri)), k -> new ArrayDeque<>());
        synchronized (queue) {
            queue.addAll(java.util.List.of(faults));
        }
    }

    /**
     * Runs {@code rival} once, right before the next commit file of the table at {@code tableUri} is
     * written: the deterministic way to make that commit lose the race for its version to whatever
     * the rival commits (its own commits are not held up).
     */
    public static void beforeNextCommit(String tableUri, Runnable rival) {
        RIVALS.put(logDir(new Path(tableUri)), rival);
    }

    /** Faults armed for the table and not used yet. */
    public static int pending(String tableUri) {
        Deque<Fault> queue = ARMED.get(logDir(new Path(tableUri)));
        if (queue == null) {
            return 0;
        }
        synchronized (queue) {
            return queue.size();
        }
    }

    @Override
    public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration hadoopConf)
            throws IOException {
        boolean commit = !Boolean.TRUE.equals(overwrite) && path.getName().matches("\\d{20}\\.json");
        Runnable rival = commit ? RIVALS.remove(path.getParent().toUri().getPath()) : null;
        if (rival != null) {
            rival.run();
        }
        Fault fault = commit ? next(path) : null;
        if (fault == Fault.LOST_BEFORE_WRITE) {
            throw new IOException("injected: connection reset before " + path.getName() + " was stored");
        }
        super.write(path, actions, overwrite, hadoopConf);
        if (fault == Fault.LANDED_THEN_EXISTS) {
            throw new FileAlreadyExistsException(path.toString(), null, "injected: stored, then reported as existing");
        }
        if (fault == Fault.LANDED_THEN_IO_ERROR) {
            throw new IOException("injected: connection reset after " + path.getName() + " was stored");
        }
    }

    private static Fault next(Path commitFile) {
        Deque<Fault> queue = ARMED.get(commitFile.getParent().toUri().getPath());
        if (queue == null) {
            return null;
        }
        synchronized (queue) {
            return queue.poll();
        }
    }

    private static String logDir(Path table) {
        return new Path(table, "_delta_log").toUri().getPath();
    }
}
