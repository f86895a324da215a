package io.deltasink.it;

import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;

/**
 * Test-only: the local file system, with a switchable storage outage. While an outage is on for a
 * directory, every data file written below it fails when it is closed, as a file on a flaky
 * object store fails at its final upload. Plugged into a connector with
 * {@code delta.hadoop.fs.file.impl}; the switch is static because Hadoop instantiates the file
 * system itself, and it only affects paths under the directory a test names.
 */
public class FailingLocalFileSystem extends LocalFileSystem {
    private static volatile String outageUnder;
    private static final AtomicInteger FAILURES = new AtomicInteger();

    /** Starts an outage for data files below {@code dir}. */
    static void startOutage(java.nio.file.Path dir) {
        outageUnder = dir.toAbsolutePath().toUri().getPath();
    }

    static void endOutage() {
        outageUnder = null;
    }

    /** How many closes failed since the JVM started. */
    static int failures() {
        return FAILURES.get();
    }

    @Override
    public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize,
                                     short replication, long blockSize, Progressable progress) throws IOException {
        FSDataOutputStream out = super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress);
        String path = f.toUri().getPath();
        if (!path.endsWith(".parquet")) {
            return out;
        }
        return new FSDataOutputStream(new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                out.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
            }

            @Override
            public void flush() throws IOException {
                out.flush();
            }

            @Override
            public void close() throws IOException {
                out.close();
                String under = outageUnder;
                if (under != null && path.startsWith(under)) {
                    FAILURES.incrementAndGet();
                    throw new IOException("injected storage outage: cannot complete " + path);
                }
            }
        }, null);
    }
}
