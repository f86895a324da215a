package io.deltasink.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;

/**
 * Test-only: the local file system failing one data file of a table, as storage fails under a
 * writer: the Nth create of a {@code .parquet} file below the table throws, or the Nth created one
 * takes its first bytes and then fails every write and its close. Also records the thread of each
 * create. Plugged in with {@link #settings} ({@code delta.hadoop.fs.file.impl}); Hadoop
 * instantiates the file system itself, so the switch is static, keyed by the table's path.
 */
public final class DataFileFaults {
    /** How the Nth data file fails. */
    public enum Fault {
        CREATE, WRITE
    }

    private record Rule(Fault fault, int nth, AtomicInteger creates, AtomicInteger injected) {
    }

    private static final Map<String, Rule> ON = new ConcurrentHashMap<>();
    private static final Map<String, String> CREATING_THREADS = new ConcurrentHashMap<>();

    private DataFileFaults() {
    }

    public static Map<String, String> settings() {
        return Map.of("delta.hadoop.fs.file.impl", Local.class.getName());
    }

    /** The {@code nth} data file created below {@code tableUri} from now on (1 = the next) fails. */
    public static void failNth(String tableUri, Fault fault, int nth) {
        ON.put(new Path(tableUri).toUri().getPath(), new Rule(fault, nth, new AtomicInteger(), new AtomicInteger()));
    }

    public static void stop(String tableUri) {
        ON.remove(new Path(tableUri).toUri().getPath());
    }

    /** How many failures were injected for the table since {@link #failNth}. */
    public static int injected(String tableUri) {
        Rule rule = ON.get(new Path(tableUri).toUri().getPath());
        return rule == null ? 0 : rule.injected.get();
    }

    /** The name of the thread that created the data file named {@code fileName}, if one was created. */
    public static String creatingThread(String fileName) {
        return CREATING_THREADS.get(fileName);
    }

    private static Rule rule(Path f) {
        String p = f.toUri().getPath();
        for (Map.Entry<String, Rule> e : ON.entrySet()) {
            if (p.startsWith(e.getKey() + "/")) {
                return e.getValue();
            }
        }
        return null;
    }

    /** The local file system with the faults. */
    public static class Local extends LocalFileSystem {
        @Override
        public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize,
                                         short replication, long blockSize, Progressable progress) throws IOException {
            if (!f.getName().endsWith(".parquet")) {
                return super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress);
            }
            CREATING_THREADS.put(f.getName(), Thread.currentThread().getName());
            Rule rule = rule(f);
            boolean failing = rule != null && rule.creates.incrementAndGet() == rule.nth;
            if (failing && rule.fault == Fault.CREATE) {
                rule.injected.incrementAndGet();
                throw new IOException("injected: cannot create " + f.getName());
            }
            FSDataOutputStream out = super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress);
            if (!failing) {
                return out;
            }
            return new FSDataOutputStream(new OutputStream() {
                private long written;

                @Override
                public void write(int b) throws IOException {
                    write(new byte[] {(byte) b}, 0, 1);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    if (written > 0) {
                        rule.injected.incrementAndGet();
                        throw new IOException("injected: cannot write " + f.getName());
                    }
                    out.write(b, off, len);
                    written += len;
                }

                @Override
                public void close() throws IOException {
                    out.close();
                    rule.injected.incrementAndGet();
                    throw new IOException("injected: cannot complete " + f.getName());
                }
            }, null);
        }
    }
}
