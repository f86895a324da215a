package io.deltasink.table;

import static io.deltasink.table.Fixtures.ENGINE_INFO;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileSystemClient;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.deltasink.testing.DelegatingEngine;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.S3Server;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DeltaTable#latest} after a commit of the same instance: the snapshot Kernel made with that
 * commit, as long as two look-ups say it is still the latest, instead of a listing of the whole log
 * per commit (a local log; on an object store it lists as before). Whatever happened to the table
 * meanwhile, the answer must be what a fresh listing gives.
 */
class LatestAfterCommitTest {
    private static final String BUCKET = "latest-after-commit";

    @RegisterExtension
    static final S3Server s3 = new S3Server(BUCKET);

    @TempDir
    Path dir;

    @Test
    void betweenCheckpointsCommitsListTheLogNoMore() {
        String path = Fixtures.tablePath(dir);
        Fixtures.createTable(Fixtures.engine(), path, Map.of("delta.checkpointInterval", "10"));
        ListingCountingEngine engine = new ListingCountingEngine(Fixtures.engine());
        DeltaTable table = new DeltaTable(engine, path);
        table.commitAppend(table.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, 1)), Map.of("a", 1L),
                ENGINE_INFO);
        int before = engine.listings.get();

        for (long v = 2; v <= 25; v++) {
            assertEquals(v, table.commitAppend(table.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, v)),
                    Map.of("a", v), ENGINE_INFO));
        }

        // one listing after each checkpoint (versions 10 and 20) starts from it; none for the other commits
        assertEquals(2, engine.listings.get() - before);
        TableSnapshot latest = table.latest().orElseThrow();
        assertEquals(25, latest.version());
        assertEquals(Optional.of(25L), latest.txnVersion("a"));
        assertEquals(Optional.of(20L), latest.kernelSnapshot().getLogSegment().getCheckpointVersionOpt());
        assertEquals(25, DeltaTableReader.readAll(path).size());
    }

    @Test
    void anotherWritersCommitIsSeen() {
        String path = Fixtures.tablePath(dir);
        DeltaTable mine = Fixtures.createTable(Fixtures.engine(), path, Map.of());
        mine.commitAppend(mine.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, 1)), Map.of("a", 1L),
                ENGINE_INFO);
        DeltaTable other = new DeltaTable(Fixtures.engine(), path);
        other.commitAppend(other.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, 2)), Map.of("b", 5L),
                ENGINE_INFO);

        TableSnapshot latest = mine.latest().orElseThrow();
        assertEquals(2, latest.version());
        assertEquals(Optional.of(5L), latest.txnVersion("b"));
        assertEquals(3, mine.commitAppend(latest, List.of(Fixtures.oneRowFile(path, 3)), Map.of("a", 2L), ENGINE_INFO));
        assertEquals(3, DeltaTableReader.readAll(path).size());
    }

    @Test
    void aTableDeletedAfterTheCommitIsGone() throws IOException {
        String path = Fixtures.tablePath(dir);
        DeltaTable mine = Fixtures.createTable(Fixtures.engine(), path, Map.of());
        mine.commitAppend(mine.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, 1)), Map.of("a", 1L),
                ENGINE_INFO);

        deleteTable();

        assertEquals(Optional.empty(), mine.latest());
    }

    @Test
    void aTableCreatedAgainUpToTheSameVersionIsReadAnew() throws IOException {
        String path = Fixtures.tablePath(dir);
        DeltaTable mine = Fixtures.createTable(Fixtures.engine(), path, Map.of("made.by", "the first writer"));
        mine.commitAppend(mine.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, 1)), Map.of("a", 1L),
                ENGINE_INFO);

        deleteTable();
        DeltaTable other = Fixtures.createTable(Fixtures.engine(), path, Map.of("made.by", "another writer"));
        other.commitAppend(other.latest().orElseThrow(), List.of(), Map.of("b", 7L), ENGINE_INFO);

        TableSnapshot latest = mine.latest().orElseThrow();
        assertEquals(1, latest.version());
        // the table's metaData, which a snapshot holds in memory, is the new table's
        assertEquals("another writer", latest.properties().get("made.by"));
        assertEquals(Optional.of(7L), latest.txnVersion("b"));
        assertEquals(Optional.empty(), latest.txnVersion("a"));
    }

    @Test
    void whenTheLookUpFailsTheLogIsListed() {
        String path = Fixtures.tablePath(dir);
        Fixtures.createTable(Fixtures.engine(), path, Map.of());
        ListingCountingEngine engine = new ListingCountingEngine(Fixtures.engine());
        DeltaTable mine = new DeltaTable(engine, path);
        mine.commitAppend(mine.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, 1)), Map.of("a", 1L),
                ENGINE_INFO);
        DeltaTable other = new DeltaTable(Fixtures.engine(), path);
        other.commitAppend(other.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, 2)), Map.of("b", 5L),
                ENGINE_INFO);
        int before = engine.listings.get();

        engine.failLookUps.set(true);
        TableSnapshot latest = mine.latest().orElseThrow();

        assertEquals(2, latest.version());
        assertEquals(Optional.of(5L), latest.txnVersion("b"));
        assertTrue(engine.listings.get() > before, "listed the log");
    }

    @Test
    void onAnObjectStoreEverySnapshotIsListedAsBefore() {
        // S3 lists from the start asked for: a look-up of a missing key would cost more than the listing
        ListingCountingEngine engine = new ListingCountingEngine(DefaultEngine.create(s3.server().hadoopConf()));
        String path = "s3a://" + BUCKET + "/delta/latest";
        DeltaTable table = Fixtures.createTable(engine, path, Map.of());
        for (long v = 1; v <= 3; v++) {
            int before = engine.listings.get();
            TableSnapshot latest = table.latest().orElseThrow();
            assertTrue(engine.listings.get() > before, "listed for version " + (v - 1));
            assertEquals(v, table.commitAppend(latest, List.of(), Map.of("a", v), ENGINE_INFO));
        }
        assertEquals(Optional.of(3L), table.latest().orElseThrow().txnVersion("a"));
    }

    private void deleteTable() throws IOException {
        try (Stream<Path> walk = Files.walk(dir.resolve("table"))) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** Counts listings of the log; its look-ups of single files fail while asked to. */
    private static final class ListingCountingEngine extends DelegatingEngine {
        final AtomicInteger listings = new AtomicInteger();
        final AtomicBoolean failLookUps = new AtomicBoolean();

        ListingCountingEngine(Engine delegate) {
            super(delegate);
        }

        @Override
        public FileSystemClient getFileSystemClient() {
            return new FileSystem(delegate.getFileSystemClient()) {
                @Override
                public CloseableIterator<FileStatus> listFrom(String filePath) throws IOException {
                    if (filePath.contains("_delta_log")) {
                        listings.incrementAndGet();
                    }
                    return super.listFrom(filePath);
                }

                @Override
                public FileStatus getFileStatus(String path) throws IOException {
                    if (failLookUps.get()) {
                        throw new IOException("look-up refused by the test");
                    }
                    return super.getFileStatus(path);
                }
            };
        }
    }
}
