package io.deltasink.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.deltasink.testing.S3Server;

/** The S3A client, on the individual SDK modules we ship, against a real S3 HTTP server. */
class S3AClientTest {
    @RegisterExtension
    static final S3Server s3 = new S3Server("smoke");

    @Test
    void restartedServerServesTheSameDataOnTheSamePort() throws IOException {
        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("s3a://smoke/restart/kept.txt");
        byte[] data = "kept across a restart".getBytes(StandardCharsets.UTF_8);
        try (FileSystem fs = file.getFileSystem(s3.server().hadoopConf())) {
            try (FSDataOutputStream out = fs.create(file, false)) {
                out.write(data);
            }
        }
        int port = s3.server().port();
        s3.server().stop();
        try (FileSystem fs = file.getFileSystem(s3.server().hadoopConf())) {
            assertThrows(IOException.class, () -> fs.getFileStatus(file), "a stopped server answers nothing");
        }
        s3.server().start();
        assertEquals(port, s3.server().port());
        try (FileSystem fs = file.getFileSystem(s3.server().hadoopConf())) {
            byte[] back = new byte[data.length];
            try (FSDataInputStream in = fs.open(file)) {
                in.readFully(back);
            }
            assertArrayEquals(data, back);
        }
    }

    @Test
    void writesListsReadsAndDeletesObjects() throws IOException {
        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("s3a://smoke/a/b/hello.txt");
        byte[] data = "hello over S3A".getBytes(StandardCharsets.UTF_8);
        try (FileSystem fs = file.getFileSystem(s3.server().hadoopConf())) {
            assertEquals("org.apache.hadoop.fs.s3a.S3AFileSystem", fs.getClass().getName());
            try (FSDataOutputStream out = fs.create(file, false)) {
                out.write(data);
            }
            assertTrue(Files.isRegularFile(s3.server().bucketDir().resolve("a/b/hello.txt")), "stored by the server");
            FileStatus[] listed = fs.listStatus(new org.apache.hadoop.fs.Path("s3a://smoke/a/b"));
            assertEquals(1, listed.length);
            assertEquals(data.length, listed[0].getLen());
            byte[] back = new byte[data.length];
            try (FSDataInputStream in = fs.open(file)) {
                in.readFully(back);
            }
            assertArrayEquals(data, back);
            assertTrue(fs.delete(file, false));
            assertFalse(fs.exists(file));
        }
    }
}
