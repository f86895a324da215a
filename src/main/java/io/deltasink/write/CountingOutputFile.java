package io.deltasink.write;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.StandardOpenOption;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

import io.deltasink.storage.NioLocalFileSystem;

/**
 * A Parquet {@link OutputFile} on a Hadoop {@link FileSystem} that counts the bytes handed to the
 * file system, so the size of the finished file is known without asking storage for it.
 *
 * <p>Files of Hadoop's local file system (its own classes or {@link NioLocalFileSystem}, not another
 * subclass configured through {@code fs.file.impl}) are created with java.nio instead: without Hadoop's native
 * library it sets the permissions of every new file, and of its {@code .crc} checksum file, by
 * running {@code chmod} in a child process, some 10 ms per data file on a busy machine, which adds
 * up when thousands of table partitions each get a file. Such files have no {@code .crc} file
 * (Delta readers do not use them).
 */
final class CountingOutputFile implements OutputFile {
    private static final int LOCAL_BUFFER_BYTES = 8 * 1024;

    private final FileSystem fs;
    private final Path path;
    private CountingStream stream;

    CountingOutputFile(FileSystem fs, Path path) {
        this.fs = fs;
        this.path = path;
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) throws IOException {
        return open(false);
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
        return open(true);
    }

    private PositionOutputStream open(boolean overwrite) throws IOException {
        if (stream != null) {
            throw new IOException("file " + path + " was already opened for writing");
        }
        stream = new CountingStream(createStream(overwrite));
        return stream;
    }

    private OutputStream createStream(boolean overwrite) throws IOException {
        // exactly Hadoop's own classes: a subclass a user named through fs.file.impl does its own creating
        java.io.File local;
        if (fs.getClass() == LocalFileSystem.class || fs.getClass() == NioLocalFileSystem.class) {
            local = ((LocalFileSystem) fs).pathToFile(path);
        } else if (fs.getClass() == RawLocalFileSystem.class) {
            local = ((RawLocalFileSystem) fs).pathToFile(path);
        } else {
            return fs.create(path, overwrite);
        }
        java.nio.file.Path file = local.toPath();
        Files.createDirectories(file.getParent());
        OpenOption[] options = overwrite
                ? new OpenOption[] {StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE}
                : new OpenOption[] {StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE};
        return new BufferedOutputStream(Files.newOutputStream(file, options), LOCAL_BUFFER_BYTES);
    }

    @Override
    public boolean supportsBlockSize() {
        return false;
    }

    @Override
    public long defaultBlockSize() {
        return fs.getDefaultBlockSize(path);
    }

    @Override
    public String getPath() {
        return path.toString();
    }

    /** Bytes written to the file system so far; after close, the file's length. */
    long bytesWritten() {
        return stream == null ? 0 : stream.position;
    }

    private static final class CountingStream extends PositionOutputStream {
        private final OutputStream out;
        private long position;

        CountingStream(OutputStream out) {
            this.out = out;
        }

        @Override
        public long getPos() {
            return position;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            position++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            position += len;
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }
}
