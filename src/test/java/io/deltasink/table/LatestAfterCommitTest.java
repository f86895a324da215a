package io.deltasink.table;

import static io.deltasink.table.Fixtures.ENGINE_INFO;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
    void theTableItCreatedIsNotListedAgain() {
        String path = Fixtures.tablePath(dir);
        ListingCountingEngine engine = new ListingCountingEngine(Fixtures.engine());
        DeltaTable table = new DeltaTable(engine, path);

        TableSnapshot created = table.createOrRead(Fixtures.SCHEMA, Fixtures.PARTITIONS, Map.of("made.by", "this test"),
                ENGINE_INFO);
        int afterCreation = engine.listings.get();
        TableSnapshot latest = table.latest().orElseThrow();
        long version = table.commitAppend(latest, List.of(Fixtures.oneRowFile(path, 1)), Map.of("a", 1L), ENGINE_INFO);

        // the table's creation lists (is there a table?); the snapshot it returns, the next latest()
        // and the first commit on it take the creation's own snapshot
        assertEquals(afterCreation, engine.listings.get());
        assertEquals(0, created.version());
        assertEquals(0, latest.version());
        assertEquals(Fixtures.PARTITIONS, latest.partitionColumns());
        assertEquals("this test", latest.properties().get("made.by"));
        assertEquals(Optional.empty(), latest.txnVersion("a"));
        assertEquals(1, version);
        assertEquals(Optional.of(1L), table.latest().orElseThrow().txnVersion("a"));
        assertEquals(1, DeltaTableReader.readAll(path).size());
    }

    @Test
    void aCommitOnTheCreationsSnapshotAfterAnotherWritersIsAConflict() {
        // the creation's snapshot commits through this table's committer, which tells the other
        // writer's commit at that version from this one's
        String path = Fixtures.tablePath(dir);
        DeltaTable mine = new DeltaTable(Fixtures.engine(), path);
        TableSnapshot created = mine.createOrRead(Fixtures.SCHEMA, Fixtures.PARTITIONS, Map.of(), ENGINE_INFO);
        DeltaTable other = new DeltaTable(Fixtures.engine(), path);
        other.commitAppend(other.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, 1)), Map.of("b", 5L),
                ENGINE_INFO);

        assertThrows(CommitConflictException.class, () -> mine.commitAppend(created,
                List.of(Fixtures.oneRowFile(path, 2)), Map.of("a", 1L), ENGINE_INFO));
        assertEquals(Optional.of(5L), mine.latest().orElseThrow().txnVersion("b"));
        assertEquals(1, DeltaTableReader.readAll(path).size());
    }

    /** With {@code ownCommits} 0 the table's creation is this instance's last commit. */
    @ParameterizedTest(name = "after {0} commit(s) of its own")
    @ValueSource(ints = {0, 1})
    void anotherWritersCommitIsSeen(int ownCommits) {
        String path = Fixtures.tablePath(dir);
        DeltaTable mine = Fixtures.createTable(Fixtures.engine(), path, Map.of());
        commitRows(mine, path, ownCommits);
        DeltaTable other = new DeltaTable(Fixtures.engine(), path);
        other.commitAppend(other.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, 10)), Map.of("b", 5L),
                ENGINE_INFO);

        TableSnapshot latest = mine.latest().orElseThrow();
        assertEquals(ownCommits + 1, latest.version());
        assertEquals(Optional.of(5L), latest.txnVersion("b"));
        assertEquals(ownCommits + 2, mine.commitAppend(latest, List.of(Fixtures.oneRowFile(path, 11)),
                Map.of("a", 7L), ENGINE_INFO));
        assertEquals(ownCommits + 2, DeltaTableReader.readAll(path).size());
    }

    @ParameterizedTest(name = "after {0} commit(s) of its own")
    @ValueSource(ints = {0, 1})
    void aTableDeletedAfterTheCommitIsGone(int ownCommits) throws IOException {
        String path = Fixtures.tablePath(dir);
        DeltaTable mine = Fixtures.createTable(Fixtures.engine(), path, Map.of());
        commitRows(mine, path, ownCommits);

        deleteTable();

        assertEquals(Optional.empty(), mine.latest());
    }

    @ParameterizedTest(name = "after {0} commit(s) of its own")
    @ValueSource(ints = {0, 1})
    void aTableCreatedAgainUpToTheSameVersionIsReadAnew(int ownCommits) throws IOException {
        String path = Fixtures.tablePath(dir);
        DeltaTable mine = Fixtures.createTable(Fixtures.engine(), path, Map.of("made.by", "the first writer"));
        commitRows(mine, path, ownCommits);

        deleteTable();
        DeltaTable other = Fixtures.createTable(Fixtures.engine(), path, Map.of("made.by", "another writer"));
        for (int v = 1; v <= ownCommits; v++) {
            other.commitAppend(other.latest().orElseThrow(), List.of(), Map.of("b", 7L), ENGINE_INFO);
        }

        TableSnapshot latest = mine.latest().orElseThrow();
        assertEquals(ownCommits, latest.version());
        // the table's metaData, which a snapshot holds in memory, is the new table's
        assertEquals("another writer", latest.properties().get("made.by"));
        assertEquals(ownCommits == 0 ? Optional.empty() : Optional.of(7L), latest.txnVersion("b"));
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

    /** Commits {@code commits} one-row files, txn "a" at 1, 2, ... */
    private static void commitRows(DeltaTable table, String path, int commits) {
        for (long v = 1; v <= commits; v++) {
            table.commitAppend(table.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, v)), Map.of("a", v),
                    ENGINE_INFO);
        }
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
