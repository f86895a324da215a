package io.deltasink.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.delta.storage.LocalLogStore;

/**
 * Listing the log from a version (what Kernel does for every snapshot) gives what Hadoop's store
 * gives, and looks at the files it lists, not at every file of a long log.
 */
class ExclusiveLocalLogStoreListingTest {
    private static final int VERSIONS = 120;

    @TempDir
    java.nio.file.Path root;

    /** The local file system, counting the statuses its raw layer builds (one lstat each). */
    public static final class CountingLocalFileSystem extends LocalFileSystem {
        static final AtomicInteger STATUSES = new AtomicInteger();

        public CountingLocalFileSystem() {
            super(new RawLocalFileSystem() {
                @Override
                public FileStatus getFileStatus(Path f) throws IOException {
                    STATUSES.incrementAndGet();
                    return super.getFileStatus(f);
                }
            });
        }
    }

    private static Configuration countingConf() {
        Configuration conf = new Configuration(false);
        conf.set("fs.file.impl", CountingLocalFileSystem.class.getName());
        conf.setBoolean("fs.file.impl.disable.cache", true);
        return conf;
    }

    /** A log as the connector leaves it: commits, checkpoints and _last_checkpoint with checksum files, temporary files. */
    private Path log(Configuration conf) throws IOException {
        java.nio.file.Path dir = Files.createDirectories(root.resolve("t/_delta_log"));
        ExclusiveLocalLogStore store = new ExclusiveLocalLogStore(conf);
        for (int v = 0; v < VERSIONS; v++) {
            store.write(new Path(dir.resolve(String.format("%020d.json", v)).toUri()),
                    List.of("{\"commitInfo\":{\"v\":" + v + "}}").iterator(), false, conf);
        }
        FileSystem fs = FileSystem.get(dir.toUri(), conf);
        for (int v = 10; v < VERSIONS; v += 10) {
            try (FSDataOutputStream out = fs.create(new Path(dir.resolve(String.format("%020d.checkpoint.parquet", v))
                    .toUri()))) {
                out.write(new byte[v]);
            }
        }
        store.write(new Path(dir.resolve("_last_checkpoint").toUri()), List.of("{\"version\":110}").iterator(), true,
                conf);
        Files.writeString(dir.resolve(".00000000000000000120.json.5f1c.tmp"), "half");
        return new Path(dir.toUri());
    }

    private static List<String> describe(Iterator<FileStatus> files) {
        List<String> out = new ArrayList<>();
        files.forEachRemaining(f -> out.add(f.getPath() + " " + f.getLen() + " " + f.getModificationTime() + " "
                + f.isDirectory()));
        return out;
    }

    @Test
    void listsWhatHadoopsStoreListsInNameOrder() throws IOException {
        Configuration conf = new Configuration();
        Path log = log(conf);
        for (String from : List.of(String.format("%020d.", 0), String.format("%020d.", 110),
                String.format("%020d.", 115), String.format("%020d.", 500), "_last_checkpoint")) {
            Path start = new Path(log, from);
            List<String> ours = describe(new ExclusiveLocalLogStore(conf).listFrom(start, conf));
            List<String> hadoops = describe(new LocalLogStore(conf).listFrom(start, conf));
            assertEquals(hadoops, ours, "from " + from);
        }
        List<String> fromCheckpoint = describe(new ExclusiveLocalLogStore(conf)
                .listFrom(new Path(log, String.format("%020d.", 110)), conf));
        // 110.checkpoint.parquet, 110.json .. 119.json, _last_checkpoint; no .crc file, no temporary file
        assertEquals(12, fromCheckpoint.size(), String.join("\n", fromCheckpoint));
        assertTrue(fromCheckpoint.get(0).contains("00000000000000000110.checkpoint.parquet "), fromCheckpoint.get(0));
        assertTrue(fromCheckpoint.get(11).contains("/_last_checkpoint "), fromCheckpoint.get(11));
    }

    @Test
    void looksOnlyAtTheFilesItLists() throws IOException {
        Configuration conf = countingConf();
        Path log = log(conf);
        CountingLocalFileSystem.STATUSES.set(0);
        List<String> listed = describe(new ExclusiveLocalLogStore(conf)
                .listFrom(new Path(log, String.format("%020d.", 110)), conf));
        assertEquals(12, listed.size());
        // Hadoop's listStatus reads a status for each of the ~260 files of the folder
        assertTrue(CountingLocalFileSystem.STATUSES.get() <= 2 * listed.size() + 2,
                CountingLocalFileSystem.STATUSES.get() + " statuses read to list " + listed.size() + " files");
    }

    @Test
    void aMissingLogIsNotFound() {
        Configuration conf = new Configuration();
        Path missing = new Path(root.resolve("none/_delta_log").toUri());
        FileNotFoundException e = assertThrows(FileNotFoundException.class,
                () -> new ExclusiveLocalLogStore(conf).listFrom(new Path(missing, String.format("%020d.", 0)), conf));
        assertTrue(e.getMessage().contains("none/_delta_log"), e.getMessage());
    }
}
