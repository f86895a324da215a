package io.deltasink.testing;

import java.io.IOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.impl.OpenFileParameters;
import org.apache.hadoop.fs.s3a.S3AFileSystem;

/**
 * Test-only: transient faults on a table's {@code _delta_log}. While a fault is on for a table,
 * every listing, status probe and open of a file below its {@code _delta_log} fails with the
 * socket error a flaky network gives ({@code SocketTimeoutException: Read timed out} or
 * {@code SocketException: Connection reset}), or only the opens of files whose name ends with a
 * given suffix (e.g. {@code .checkpoint.parquet}); or listings of the log come back empty, as
 * from a store that answers inconsistently. Data files and writes are not touched.
 *
 * <p>Plugged in with {@link #settings}: {@code delta.hadoop.fs.file.impl} for a local table
 * ({@link Local}), {@code delta.hadoop.fs.s3a.impl} for S3 ({@link S3A}, behind the connector's
 * scoped S3 file system). Hadoop instantiates the file systems itself, so the switch is static;
 * it is keyed by the table's path and affects no other table.
 */
public final class LogFaults {
    /** What goes wrong. */
    public enum Fault {
        READ_TIMEOUT, CONNECTION_RESET,
        /** Listings of the log find nothing; status probes and reads work. */
        EMPTY_LISTING;

        IOException exception(String what) {
            return this == READ_TIMEOUT ? new SocketTimeoutException("Read timed out (injected, " + what + ")")
                    : new SocketException("Connection reset (injected, " + what + ")");
        }
    }

    private record Rule(Fault fault, String suffix) {
    }

    /** table path (URI path, no scheme or bucket) + "/_delta_log" -> the fault on */
    private static final Map<String, Rule> ON = new ConcurrentHashMap<>();
    private static final AtomicInteger INJECTED = new AtomicInteger();

    private LogFaults() {
    }

    /** The connector settings that route the table's file system through the fault injector. */
    public static Map<String, String> settings(String tableUri) {
        return tableUri.startsWith("s3a:")
                ? Map.of("delta.hadoop.fs.s3a.impl", S3A.class.getName())
                : Map.of("delta.hadoop.fs.file.impl", Local.class.getName());
    }

    /** Starts failing every log read and listing of the table. */
    public static void start(String tableUri, Fault fault) {
        ON.put(logDir(new Path(tableUri)), new Rule(fault, null));
    }

    /** Starts failing the opens of the table's log files whose name ends with {@code suffix}. */
    public static void start(String tableUri, Fault fault, String suffix) {
        ON.put(logDir(new Path(tableUri)), new Rule(fault, suffix));
    }

    public static void stop(String tableUri) {
        ON.remove(logDir(new Path(tableUri)));
    }

    /** How many operations failed since the JVM started. */
    public static int injected() {
        return INJECTED.get();
    }

    private static String logDir(Path table) {
        return table.toUri().getPath() + "/_delta_log";
    }

    private static Rule rule(Path path) {
        if (ON.isEmpty()) {
            return null;
        }
        String p = path.toUri().getPath();
        for (Map.Entry<String, Rule> e : ON.entrySet()) {
            if (p.equals(e.getKey()) || p.startsWith(e.getKey() + "/")) {
                return e.getValue();
            }
        }
        return null;
    }

    static void check(Path path, String operation) throws IOException {
        Rule rule = rule(path);
        if (rule == null || rule.fault == Fault.EMPTY_LISTING) {
            return;
        }
        if (rule.suffix != null && (operation.equals("list") || !path.getName().endsWith(rule.suffix))) {
            return;
        }
        INJECTED.incrementAndGet();
        throw rule.fault.exception(operation + " " + path.getName());
    }

    /** Whether a listing of {@code dir} is to come back empty. */
    static boolean listsNothing(Path dir) {
        Rule rule = rule(dir);
        if (rule != null && rule.fault == Fault.EMPTY_LISTING) {
            INJECTED.incrementAndGet();
            return true;
        }
        return false;
    }

    private static RemoteIterator<FileStatus> empty() {
        return new RemoteIterator<>() {
            @Override
            public boolean hasNext() {
                return false;
            }

            @Override
            public FileStatus next() {
                throw new java.util.NoSuchElementException();
            }
        };
    }

    /** The local file system with the faults. */
    public static class Local extends LocalFileSystem {
        @Override
        public FileStatus[] listStatus(Path f) throws IOException {
            check(f, "list");
            return listsNothing(f) ? new FileStatus[0] : super.listStatus(f);
        }

        @Override
        public RemoteIterator<FileStatus> listStatusIterator(Path f) throws IOException {
            check(f, "list");
            return listsNothing(f) ? empty() : super.listStatusIterator(f);
        }

        @Override
        public FileStatus getFileStatus(Path f) throws IOException {
            check(f, "status");
            return super.getFileStatus(f);
        }

        @Override
        public FSDataInputStream open(Path f, int bufferSize) throws IOException {
            check(f, "open");
            return super.open(f, bufferSize);
        }

        @Override
        protected CompletableFuture<FSDataInputStream> openFileWithOptions(Path path, OpenFileParameters parameters)
                throws IOException {
            check(path, "open");
            return super.openFileWithOptions(path, parameters);
        }
    }

    /** S3A with the faults. */
    public static class S3A extends S3AFileSystem {
        @Override
        public FileStatus[] listStatus(Path f) throws IOException {
            check(f, "list");
            return listsNothing(f) ? new FileStatus[0] : super.listStatus(f);
        }

        @Override
        public RemoteIterator<FileStatus> listStatusIterator(Path f) throws IOException {
            check(f, "list");
            return listsNothing(f) ? empty() : super.listStatusIterator(f);
        }

        @Override
        public FileStatus getFileStatus(Path f) throws IOException {
            check(f, "status");
            return super.getFileStatus(f);
        }

        @Override
        public boolean exists(Path f) throws IOException {
            check(f, "status");
            return super.exists(f);
        }

        @Override
        public FSDataInputStream open(Path f, int bufferSize) throws IOException {
            check(f, "open");
            return super.open(f, bufferSize);
        }

        @Override
        public CompletableFuture<FSDataInputStream> openFileWithOptions(Path path, OpenFileParameters parameters)
                throws IOException {
            check(path, "open");
            return super.openFileWithOptions(path, parameters);
        }
    }
}
