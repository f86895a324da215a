package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.connect.errors.RetriableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.convert.MappingConverter;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.CommitOutcomeUnknownException;
import io.deltasink.table.DeltaTable;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.FaultyLogStore;

class TableCommitterTest {
    @TempDir
    Path dir;

    private StorageSettings storage;
    private DeltaTable table;
    private RowSchema schema;
    private MappingConverter converter;

    @BeforeEach
    void createTable() {
        // Kernel's local log store, with faults that can be armed per test
        storage = new StorageSettings(dir.resolve("t").toString(), Map.of(FaultyLogStore.KEY, FaultyLogStore.class.getName()));
        table = new DeltaTable(storage.createEngine(), storage.tableUri());
        converter = SeedFiles.converter();
        schema = converter.schema();
        table.createOrCheck(schema, List.of("device_type"), Map.of(), "test");
    }

    @AfterEach
    void closeStorage() {
        storage.close();
    }

    private List<DataFile> files(int partition, int count) throws Exception {
        return SeedFiles.write(storage, converter, partition, 0, count);
    }

    @Test
    void anUnrelatedConcurrentCommitIsRetriedAndBothLand() throws Exception {
        List<DataFile> other = files(1, 7);
        List<Integer> attemptsSeen = new ArrayList<>();
        TableCommitter committer = new TableCommitter(table, 5, 1, ms -> { }, snapshot -> {
            attemptsSeen.add(1);
            if (attemptsSeen.size() == 1) {
                // another writer (other partitions) takes the version we are about to write
                table.commitAppend(snapshot, other, Map.of("c/t/1", 7L), "other");
            }
        });
        TableCommitter.Outcome outcome = committer.commit(Map.of("c/t/0", Optional.empty()),
                append(files(0, 11), Map.of("c/t/0", 11L)));

        TableCommitter.Committed c = assertInstanceOf(TableCommitter.Committed.class, outcome);
        assertEquals(2, c.attempts());
        assertEquals(2, c.version());
        assertEquals(Optional.of(11L), DeltaTableReader.txnVersion(storage.tableUri(), "c/t/0"));
        assertEquals(Optional.of(7L), DeltaTableReader.txnVersion(storage.tableUri(), "c/t/1"));
        assertEquals(18, DeltaTableReader.readAll(storage.tableUri()).size());
    }

    @Test
    void aMovedPartitionFencesTheCommit() throws Exception {
        table.commitAppend(table.latest().orElseThrow(), files(0, 3), Map.of("c/t/0", 3L), "zombie-killer");
        TableCommitter committer = new TableCommitter(table, 5, 1, ms -> { });
        TableCommitter.Outcome outcome = committer.commit(Map.of("c/t/0", Optional.empty()),
                append(files(0, 5), Map.of("c/t/0", 5L)));
        TableCommitter.Fenced f = assertInstanceOf(TableCommitter.Fenced.class, outcome);
        assertEquals(Map.of("c/t/0", Optional.of(3L)), f.tableVersions());
        assertEquals(Set.of("c/t/0"), f.moved());
        assertEquals(3, DeltaTableReader.readAll(storage.tableUri()).size());
    }

    @Test
    void givesUpAfterTheConfiguredRetries() throws Exception {
        List<DataFile> mine = files(0, 2);
        TableCommitter committer = new TableCommitter(table, 2, 1, ms -> { }, snapshot -> {
            try {
                table.commitAppend(snapshot, List.of(), Map.of("other/" + snapshot.version(), 1L), "other");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        RetriableException e = assertThrows(TableCommitter.RacesLost.class, () -> committer.commit(
                Map.of("c/t/0", Optional.empty()), append(mine, Map.of("c/t/0", 2L))));
        assertTrue(e.getMessage().contains("3 times in a row") && e.getMessage().contains("commit.max.retries=2"),
                e.getMessage());
        assertEquals(Optional.empty(), DeltaTableReader.txnVersion(storage.tableUri(), "c/t/0"));
    }

    private TableCommitter.Attempt append(List<DataFile> files, Map<String, Long> versions) {
        return new TableCommitter.Attempt(versions, base -> table.commitAppend(base, files, versions, "test"));
    }

    /** Every add action of the table names a file that exists, and the rows are exactly those expected. */
    private void assertCompleteTable(int rows) {
        for (JsonNode add : DeltaTableReader.allActions(storage.tableUri(), "add")) {
            String path = java.net.URLDecoder.decode(add.get("path").asText(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(Files.exists(dir.resolve("t").resolve(path)), "the log names a missing file: " + path);
        }
        assertEquals(rows, DeltaTableReader.readAll(storage.tableUri()).size());
    }

    @ParameterizedTest
    @EnumSource(value = FaultyLogStore.Fault.class, names = {"LANDED_THEN_EXISTS", "LANDED_THEN_IO_ERROR"})
    void aCommitThatLandedAlthoughStorageReportedAFailureIsRecognisedAsOurs(FaultyLogStore.Fault fault)
            throws Exception {
        FaultyLogStore.arm(storage.tableUri(), fault);
        TableCommitter committer = new TableCommitter(table, 5, 1, ms -> { });
        TableCommitter.Outcome outcome = committer.commit(Map.of("c/t/0", Optional.empty()),
                append(files(0, 11), Map.of("c/t/0", 11L)));

        assertEquals(0, FaultyLogStore.pending(storage.tableUri()), "the fault was injected");
        TableCommitter.Committed c = assertInstanceOf(TableCommitter.Committed.class, outcome);
        assertEquals(1, c.version());
        assertEquals(1, c.attempts(), "no second attempt: the first one is in the log");
        assertEquals(1, DeltaTableReader.version(storage.tableUri()));
        assertEquals(Optional.of(11L), DeltaTableReader.txnVersion(storage.tableUri(), "c/t/0"));
        assertCompleteTable(11);
    }

    @Test
    void aCommitLostBeforeItWasStoredHasAnUnknownOutcomeAndLeavesTheTableAsItWas() throws Exception {
        FaultyLogStore.arm(storage.tableUri(), FaultyLogStore.Fault.LOST_BEFORE_WRITE);
        List<DataFile> mine = files(0, 4);
        TableCommitter committer = new TableCommitter(table, 5, 1, ms -> { });
        CommitOutcomeUnknownException e = assertThrows(CommitOutcomeUnknownException.class, () ->
                committer.commit(Map.of("c/t/0", Optional.empty()), append(mine, Map.of("c/t/0", 4L))));
        assertEquals(1, e.version());
        assertEquals(0, DeltaTableReader.version(storage.tableUri()));
        // the same batch committed again lands once
        TableCommitter.Outcome again = committer.commit(Map.of("c/t/0", Optional.empty()),
                append(mine, Map.of("c/t/0", 4L)));
        assertInstanceOf(TableCommitter.Committed.class, again);
        assertCompleteTable(4);
    }

    @Test
    void aFailureAtAVersionAnotherWriterTookIsAConflictAndTheCommitIsRetried() throws Exception {
        List<DataFile> other = files(1, 2);
        List<Integer> attempts = new ArrayList<>();
        TableCommitter committer = new TableCommitter(table, 5, 1, ms -> { }, snapshot -> {
            attempts.add(1);
            if (attempts.size() == 1) {
                // another writer lands first, and our write of the same version fails with an I/O error
                table.commitAppend(snapshot, other, Map.of("c/t/1", 2L), "other");
                FaultyLogStore.arm(storage.tableUri(), FaultyLogStore.Fault.LOST_BEFORE_WRITE);
            }
        });
        // version 1 holds the other writer's commit, so the failed write of ours certainly did not land
        // there: a conflict like any lost race, retried on the new snapshot
        TableCommitter.Outcome outcome = committer.commit(Map.of("c/t/0", Optional.empty()),
                append(files(0, 3), Map.of("c/t/0", 3L)));
        TableCommitter.Committed c = assertInstanceOf(TableCommitter.Committed.class, outcome);
        assertEquals(2, c.attempts());
        assertCompleteTable(5);
    }

    @Test
    void everyCommitCarriesAnIdentityOfItsOwn() throws Exception {
        TableCommitter committer = new TableCommitter(table, 5, 1, ms -> { });
        committer.commit(Map.of("c/t/0", Optional.empty()), append(files(0, 1), Map.of("c/t/0", 1L)));
        committer.commit(Map.of("c/t/0", Optional.of(1L)), append(files(0, 1), Map.of("c/t/0", 2L)));
        Set<String> ids = new java.util.HashSet<>();
        for (long v = 1; v <= 2; v++) {
            JsonNode info = DeltaTableReader.actions(storage.tableUri(), v, "commitInfo").get(0);
            assertTrue(info.hasNonNull("txnId"), "commitInfo of version " + v + " has a txnId: " + info);
            ids.add(info.get("txnId").asText());
        }
        assertEquals(2, ids.size(), "two commits, two identities");
    }
}
