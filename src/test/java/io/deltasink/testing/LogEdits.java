package io.deltasink.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Test-only: damages a real table's {@code _delta_log} the ways a table gets damaged (a commit
 * file cut mid-line or overwritten with garbage, a file gone, a checkpoint that is not Parquet)
 * or changed by a newer writer (a protocol upgrade). Works through Hadoop, so on local tables
 * and on S3 alike.
 */
public final class LogEdits {
    private final Path log;
    private final FileSystem fs;

    public LogEdits(String tableUri, Configuration conf) {
        this.log = new Path(tableUri, "_delta_log");
        try {
            this.fs = log.getFileSystem(conf);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public LogEdits(String tableUri) {
        this(tableUri, new Configuration());
    }

    /** The name of the commit file of a version, e.g. {@code 00000000000000000003.json}. */
    public static String commit(long version) {
        return String.format("%020d.json", version);
    }

    /** The name of the (single file) checkpoint of a version. */
    public static String checkpoint(long version) {
        return String.format("%020d.checkpoint.parquet", version);
    }

    public byte[] read(String name) {
        try (InputStream in = fs.open(new Path(log, name))) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public LogEdits write(String name, byte[] content) {
        try (FSDataOutputStream out = fs.create(new Path(log, name), true)) {
            out.write(content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public LogEdits delete(String name) {
        try {
            if (!fs.delete(new Path(log, name), false)) {
                throw new IllegalStateException("no " + name + " in " + log);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** Cuts the file in the middle of its content (mid-line for a commit file). */
    public LogEdits truncate(String name) {
        byte[] content = read(name);
        return write(name, Arrays.copyOf(content, content.length / 2));
    }

    /** Writes a commit of one action line, as another writer would (e.g. a protocol upgrade). */
    public LogEdits commitLine(long version, String json) {
        return write(commit(version), (json + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /** Removes Delta's version checksum files ({@code N.crc}), so readers replay the log itself. */
    public LogEdits dropVersionChecksums() {
        try {
            for (FileStatus f : fs.listStatus(log)) {
                if (f.getPath().getName().matches("\\d{20}\\.crc")) {
                    fs.delete(f.getPath(), false);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }
}
