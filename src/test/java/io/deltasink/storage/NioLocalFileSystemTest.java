package io.deltasink.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.testing.RefusingLocalFileSystem;

/**
 * The local file system of a table sets permissions as Hadoop's does (folders, files and their
 * checksum files get the same modes), without a child process (see commit.LocalTableProcessesTest).
 */
class NioLocalFileSystemTest {
    @TempDir
    Path dir;

    private FileSystem fileSystem(Map<String, String> hadoop) throws IOException {
        Map<String, String> p = new HashMap<>();
        p.put("name", "sensors");
        p.put(DeltaSinkConfig.TABLE_LOCATION, dir.resolve("table").toString());
        hadoop.forEach((k, v) -> p.put("delta.hadoop." + k, v));
        StorageSettings storage = StorageSettings.from(new DeltaSinkConfig(p));
        return storage.tablePath().getFileSystem(storage.hadoopConf());
    }

    private static String mode(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    @Test
    void aTableOnLocalFilesGetsItUnlessTheUserNamesAnother() throws IOException {
        assertEquals(NioLocalFileSystem.class, fileSystem(Map.of()).getClass());
        assertInstanceOf(RefusingLocalFileSystem.class,
                fileSystem(Map.of("fs.file.impl", RefusingLocalFileSystem.class.getName())));
    }

    @Test
    void foldersFilesAndChecksumFilesGetHadoopsModes() throws IOException {
        FileSystem fs = fileSystem(Map.of("fs.permissions.umask-mode", "027"));
        org.apache.hadoop.fs.Path folder = new org.apache.hadoop.fs.Path(dir.resolve("table/a/b").toUri());
        assertTrue(fs.mkdirs(folder));
        assertEquals("rwxr-x---", mode(dir.resolve("table/a/b")));
        assertEquals("rwxr-x---", mode(dir.resolve("table/a")));

        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(folder, "f.json");
        try (FSDataOutputStream out = fs.create(file, false)) {
            out.write("{}".getBytes(StandardCharsets.UTF_8));
        }
        assertEquals("rw-r-----", mode(dir.resolve("table/a/b/f.json")));
        assertEquals("rw-r-----", mode(dir.resolve("table/a/b/.f.json.crc")));
        assertArrayEquals("{}".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(dir.resolve("table/a/b/f.json")));

        fs.setPermission(file, new FsPermission((short) 0604));
        assertEquals("rw----r--", mode(dir.resolve("table/a/b/f.json")));
        fs.setPermission(folder, new FsPermission((short) 0711));
        assertEquals("rwx--x--x", mode(dir.resolve("table/a/b")));
        assertThrows(NoSuchFileException.class,
                () -> fs.setPermission(new org.apache.hadoop.fs.Path(folder, "missing"), new FsPermission((short) 0644)));
    }
}
