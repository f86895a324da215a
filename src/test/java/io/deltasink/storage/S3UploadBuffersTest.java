package io.deltasink.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.testing.S3ProxyServer;

/**
 * S3A's upload buffers: blocks on disk and small unless delta.hadoop.* says otherwise, applied by a
 * real S3A against a real S3 server, and counted per open file when a user keeps them in memory.
 */
class S3UploadBuffersTest {
    static final String BUCKET = "uploads";
    static final long MIB = 1 << 20;

    @TempDir
    static Path dir;
    static S3ProxyServer server;

    @BeforeAll
    static void start() {
        server = new S3ProxyServer(dir.resolve("s3"), BUCKET).start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static StorageSettings storage(String location, Map<String, String> overrides) {
        Map<String, String> p = new HashMap<>(server.connectorSettings());
        p.put("name", "uploads");
        p.put(DeltaSinkConfig.TABLE_LOCATION, location);
        p.putAll(overrides);
        return StorageSettings.from(new DeltaSinkConfig(p));
    }

    @Test
    void blocksStayOnDiskAndSmallUnlessTheUserSaysOtherwise() {
        try (StorageSettings s = storage("s3a://" + BUCKET + "/t", Map.of())) {
            Configuration conf = s.hadoopConf();
            assertEquals("disk", conf.get("fs.s3a.fast.upload.buffer"));
            assertEquals(2, conf.getInt("fs.s3a.fast.upload.active.blocks", -1));
            assertEquals(16 * MIB, conf.getLongBytes("fs.s3a.multipart.size", -1));
            assertEquals(0, s.uploadBufferBytesPerFile(), "blocks on disk take no memory");
        }
        try (StorageSettings s = storage("s3a://" + BUCKET + "/t", Map.of(
                "delta.hadoop.fs.s3a.fast.upload.buffer", "bytebuffer",
                "delta.hadoop.fs.s3a.fast.upload.active.blocks", "1",
                "delta.hadoop.fs.s3a.multipart.size", "8M"))) {
            Configuration conf = s.hadoopConf();
            assertEquals("bytebuffer", conf.get("fs.s3a.fast.upload.buffer"));
            assertEquals(1, conf.getInt("fs.s3a.fast.upload.active.blocks", -1));
            // the block being filled and the one queued for upload, each allocated whole
            assertEquals(2 * 8 * MIB, s.uploadBufferBytesPerFile());
        }
        try (StorageSettings s = storage("s3a://" + BUCKET + "/t",
                Map.of("delta.hadoop.fs.s3a.fast.upload.buffer", "array"))) {
            assertEquals(3 * 16 * MIB, s.uploadBufferBytesPerFile(), "our block size and count apply");
        }
        try (StorageSettings s = storage(dir.resolve("local").toString(),
                Map.of("delta.hadoop.fs.s3a.fast.upload.buffer", "array"))) {
            assertEquals(0, s.uploadBufferBytesPerFile(), "a local table has no upload blocks");
        }
    }

    @Test
    void s3aWritesThroughDiskBlocksOfTheSmallSize() throws IOException {
        try (StorageSettings s = storage("s3a://" + BUCKET + "/t", Map.of())) {
            org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(s.tablePath(), "part-0.parquet");
            FileSystem fs = file.getFileSystem(s.hadoopConf());
            S3AFileSystem s3a = (S3AFileSystem) ((FilterFileSystem) fs).getRawFileSystem();
            assertEquals(16 * MIB, s3a.getPartitionSize());
            byte[] data = "one block on disk".getBytes(StandardCharsets.UTF_8);
            try (FSDataOutputStream out = fs.create(file, false)) {
                out.write(data);
                String stream = out.getWrappedStream().toString();
                assertTrue(stream.contains("blockSize=" + 16 * MIB), stream);
                assertTrue(stream.contains("FileBlock"), "the block is a file on disk: " + stream);
            }
            assertArrayEquals(data, Files.readAllBytes(server.bucketDir().resolve("t/part-0.parquet")));
        }
    }
}
