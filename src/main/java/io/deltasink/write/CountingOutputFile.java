package io.deltasink.write;

import java.io.IOException;
import java.io.OutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/**
 * A Parquet {@link OutputFile} on a Hadoop {@link FileSystem} that counts the bytes handed to the
 * file system, so the size of the finished file is known without asking storage for it.
 */
final class CountingOutputFile implements OutputFile {
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
        stream = new CountingStream(fs.create(path, overwrite));
        return stream;
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
