package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.convert.MappingConverter;
import io.deltasink.maintenance.CompactionOptions;
import io.deltasink.maintenance.CompactionResult;
import io.deltasink.maintenance.Compactor;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.CommitOutcomeUnknownException;
import io.deltasink.table.DeltaTable;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.FaultyLogStore;

/**
 * After a commit of its own, the committer knows the txn versions of that table version without a
 * log replay; once any other commit landed (another writer, a compaction) or the outcome of its own
 * attempt is unknown, it reads them from the log again.
 */
class KnownTxnVersionsTest {
    private static final String P0 = "c/t/0";
    private static final String P1 = "c/t/1";

    @TempDir
    Path dir;

    private StorageSettings storage;
    private TxnLookupCountingEngine engine;
    private DeltaTable table;
    /** Another writer of the same table (a zombie task, offsets set through the REST API). */
    private DeltaTable other;
    private RowSchema schema;
    private MappingConverter converter;

    @BeforeEach
    void createTable() {
        storage = new StorageSettings(dir.resolve("t").toString(), Map.of(FaultyLogStore.KEY, FaultyLogStore.class.getName()));
        engine = new TxnLookupCountingEngine(storage.createEngine());
        table = new DeltaTable(engine, storage.tableUri());
        other = new DeltaTable(storage.createEngine(), storage.tableUri());
        converter = SeedFiles.converter();
        schema = converter.schema();
        table.createOrCheck(schema, List.of("device_type"), Map.of(), "test");
    }

    @AfterEach
    void closeStorage() {
        storage.close();
    }

    private List<DataFile> files(int partition, long from, int count) throws Exception {
        return SeedFiles.write(storage, converter, partition, from, count);
    }

    private TableCommitter.Attempt append(List<DataFile> files, Map<String, Long> versions) {
        return new TableCommitter.Attempt(versions, base -> table.commitAppend(base, files, versions, "test"));
    }

    private TableCommitter committer() {
        return new TableCommitter(table, 5, 1, ms -> { });
    }

    @Test
    void noReplayWhenNothingElseCommittedSinceTheOwnCommit() throws Exception {
        TableCommitter committer = committer();
        assertInstanceOf(TableCommitter.Committed.class, committer.commit(Map.of(P0, Optional.empty(),
                P1, Optional.empty()), append(files(0, 0, 5), Map.of(P0, 5L))));
        assertTrue(engine.takeCount() > 0, "the first commit reads the txn versions from the log");

        TableCommitter.Committed c = assertInstanceOf(TableCommitter.Committed.class, committer.commit(
                Map.of(P0, Optional.of(5L), P1, Optional.empty()), append(files(0, 5, 4), Map.of(P0, 9L))));
        assertEquals(2, c.version());
        assertEquals(0, engine.takeCount(), "the written (c/t/0) and the checked (c/t/1) versions were known");

        // a third one, written and checked entries swapped
        TableCommitter.Committed third = assertInstanceOf(TableCommitter.Committed.class, committer.commit(
                Map.of(P0, Optional.of(9L), P1, Optional.empty()), append(files(1, 0, 2), Map.of(P1, 2L))));
        assertEquals(3, third.version());
        assertEquals(0, engine.takeCount());
        assertEquals(Optional.of(9L), DeltaTableReader.txnVersion(storage.tableUri(), P0));
        assertEquals(Optional.of(2L), DeltaTableReader.txnVersion(storage.tableUri(), P1));
        assertEquals(11, DeltaTableReader.readAll(storage.tableUri()).size());
    }

    @Test
    void anAppIdNotCheckedBeforeIsReadFromTheLog() throws Exception {
        other.commitPositions(other.latest().orElseThrow(), Map.of(P1, 4L), "other");
        TableCommitter committer = committer();
        committer.commit(Map.of(P0, Optional.empty()), append(files(0, 0, 3), Map.of(P0, 3L)));
        engine.takeCount();
        // c/t/1 newly assigned: its version (4) is in the log, not in what the own commit knew
        TableCommitter.Fenced f = assertInstanceOf(TableCommitter.Fenced.class, committer.commit(
                Map.of(P0, Optional.of(3L), P1, Optional.empty()), append(files(1, 0, 2), Map.of(P1, 2L))));
        assertEquals(Set.of(P1), f.moved());
        assertEquals(Optional.of(4L), f.tableVersions().get(P1));
        assertTrue(engine.takeCount() > 0, "c/t/1 was read from the log");
    }

    @Test
    void anotherWriterMovingAWrittenVersionRightAfterTheOwnCommitFences() throws Exception {
        TableCommitter committer = committer();
        committer.commit(Map.of(P0, Optional.empty()), append(files(0, 0, 5), Map.of(P0, 5L)));
        // a zombie task commits version 2 with its own position of c/t/0
        other.commitPositions(other.latest().orElseThrow(), Map.of(P0, 3L), "zombie");

        TableCommitter.Fenced f = assertInstanceOf(TableCommitter.Fenced.class, committer.commit(
                Map.of(P0, Optional.of(5L)), append(files(0, 5, 4), Map.of(P0, 9L))));
        assertEquals(Map.of(P0, Optional.of(3L)), f.tableVersions());
        assertEquals(2, f.tableVersion());
        assertEquals(5, DeltaTableReader.readAll(storage.tableUri()).size(), "nothing of the fenced batch landed");
    }

    @Test
    void anotherWriterMovingACheckedVersionRightAfterTheOwnCommitFences() throws Exception {
        TableCommitter committer = committer();
        committer.commit(Map.of(P0, Optional.empty(), P1, Optional.empty()),
                append(files(0, 0, 5), Map.of(P0, 5L)));
        // offsets of c/t/1 reset through the REST API while the task still runs
        other.commitPositions(other.latest().orElseThrow(), Map.of(P1, -1L), "rest");

        TableCommitter.Fenced f = assertInstanceOf(TableCommitter.Fenced.class, committer.commit(
                Map.of(P0, Optional.of(5L), P1, Optional.empty()), append(files(0, 5, 4), Map.of(P0, 9L))));
        assertEquals(Set.of(P1), f.moved());
        assertEquals(Optional.of(-1L), f.tableVersions().get(P1));
    }

    @Test
    void aCompactionInBetweenIsReplayedPastAndDoesNotFence() throws Exception {
        TableCommitter committer = committer();
        committer.commit(Map.of(P0, Optional.empty(), P1, Optional.empty()),
                append(files(0, 0, 5), Map.of(P0, 5L)));
        committer.commit(Map.of(P0, Optional.of(5L), P1, Optional.empty()),
                append(files(0, 5, 5), Map.of(P0, 10L)));
        CompactionResult compaction = new Compactor(storage, Clock.systemUTC())
                .run(CompactionOptions.defaults().withMinAge(Duration.ZERO).withMinFiles(2));
        assertEquals("committed", compaction.outcome(), compaction.toText());
        assertEquals(3, compaction.version());
        engine.takeCount();

        TableCommitter.Committed c = assertInstanceOf(TableCommitter.Committed.class, committer.commit(
                Map.of(P0, Optional.of(10L), P1, Optional.empty()), append(files(0, 10, 3), Map.of(P0, 13L))));
        assertEquals(4, c.version());
        assertTrue(engine.takeCount() > 0, "version 3 is not the own commit: read from the log");
        assertEquals(Optional.of(13L), DeltaTableReader.txnVersion(storage.tableUri(), P0));
        assertEquals(13, DeltaTableReader.readAll(storage.tableUri()).size());
    }

    @Test
    void afterAnUnknownOutcomeAnotherWriterAtThatVersionFences() throws Exception {
        TableCommitter committer = committer();
        committer.commit(Map.of(P0, Optional.empty()), append(files(0, 0, 5), Map.of(P0, 5L)));
        FaultyLogStore.arm(storage.tableUri(), FaultyLogStore.Fault.LOST_BEFORE_WRITE);
        assertThrows(CommitOutcomeUnknownException.class, () -> committer.commit(Map.of(P0, Optional.of(5L)),
                append(files(0, 5, 4), Map.of(P0, 9L))));
        // the attempt did not land; a zombie takes version 2 and moves c/t/0 back
        other.commitPositions(other.latest().orElseThrow(), Map.of(P0, 3L), "zombie");

        TableCommitter.Fenced f = assertInstanceOf(TableCommitter.Fenced.class, committer.commit(
                Map.of(P0, Optional.of(9L)), append(files(0, 5, 4), Map.of(P0, 9L))));
        assertEquals(Map.of(P0, Optional.of(3L)), f.tableVersions());
        assertTrue(engine.takeCount() > 0, "read from the log");
    }

    @Test
    void afterAFencedResultTheVersionsAreReadFromTheLog() throws Exception {
        TableCommitter committer = committer();
        committer.commit(Map.of(P0, Optional.empty()), append(files(0, 0, 5), Map.of(P0, 5L)));
        // a stale expectation (as after a rewind the session did not see): fenced at version 1
        assertInstanceOf(TableCommitter.Fenced.class, committer.commit(Map.of(P0, Optional.of(4L)),
                append(files(0, 5, 1), Map.of(P0, 6L))));
        engine.takeCount();
        assertInstanceOf(TableCommitter.Committed.class, committer.commit(Map.of(P0, Optional.of(5L)),
                append(files(0, 5, 1), Map.of(P0, 6L))));
        assertTrue(engine.takeCount() > 0, "nothing is known after a call that did not land");
    }
}
