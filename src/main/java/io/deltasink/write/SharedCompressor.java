package io.deltasink.write;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * One compressor for every Parquet file a {@link PartitionedWriter} has open. By default each
 * ParquetWriter gets a compressor of its own: an output buffer of a whole page (1 MiB by default,
 * which G1 stores as a humongous object taking two 1 MiB regions) plus the codec's own state
 * (snappy's direct buffers, gzip's native zlib stream), and returns the codec to Hadoop's
 * CodecPool at close, which keeps every codec it was ever given. The writer is used by one thread,
 * and a page writer copies the compressed bytes before it compresses the next page, so one
 * compressor serves every open file: its memory is paid once per writer, not once per file.
 *
 * <p>{@link #release()} of a file's writer does nothing; the shared codec is never returned to the
 * pool and goes with the garbage collector when the {@link PartitionedWriter} does.
 */
final class SharedCompressor implements CompressionCodecFactory {
    /** Initial capacity of the compressed-page buffer; it grows to the largest compressed page. */
    private static final int INITIAL_BUFFER_BYTES = 64 * 1024;

    private final CodecFactory codecs;
    private final CompressionCodecName codec;
    private BytesInputCompressor compressor;

    SharedCompressor(Configuration conf, CompressionCodecName codec) {
        this.codecs = new CodecFactory(conf, INITIAL_BUFFER_BYTES);
        this.codec = codec;
    }

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName name) {
        if (name != codec) {
            throw new IllegalArgumentException("this writer compresses with " + codec + ", not " + name);
        }
        if (compressor == null) {
            BytesInputCompressor shared = codecs.getCompressor(name);
            compressor = new BytesInputCompressor() {
                @Override
                public BytesInput compress(BytesInput bytes) throws IOException {
                    return shared.compress(bytes);
                }

                @Override
                public CompressionCodecName getCodecName() {
                    return shared.getCodecName();
                }

                @Override
                public void release() {
                    // shared by every open file: stays with the writer
                }
            };
        }
        return compressor;
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName name) {
        throw new UnsupportedOperationException("the writer does not decompress");
    }

    @Override
    public void release() {
        // called when one file's writer closes; the compressor is shared
    }
}
