package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.connect.errors.RetriableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.convert.ColumnMapping;
import io.deltasink.convert.MappingConverter;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;
import io.deltasink.write.PartitionedWriter;
import io.deltasink.write.WriterSettings;

class TableCommitterTest {
    @TempDir
    Path dir;

    private StorageSettings storage;
    private DeltaTable table;
    private RowSchema schema;
    private MappingConverter converter;

    @BeforeEach
    void createTable() {
        storage = new StorageSettings(dir.resolve("t").toString(), Map.of());
        table = new DeltaTable(storage.createEngine(), storage.tableUri());
        converter = new MappingConverter(ColumnMapping.parse(SinkSessionTest.COLUMNS), Clock.systemUTC());
        schema = converter.schema();
        table.createOrCheck(schema, List.of("device_type"), Map.of(), "test");
    }

    @AfterEach
    void closeStorage() {
        storage.close();
    }

    private List<DataFile> files(int partition, int count) throws Exception {
        PartitionedWriter w = new PartitionedWriter(WriterSettings.defaults(), schema, List.of("device_type"),
                storage.tablePath(), new Configuration(), Clock.systemUTC());
        for (int i = 0; i < count; i++) {
            w.write(converter.convert(SinkRecords.of("t", partition, i, SensorEvents.event(i).json())));
        }
        return w.finish();
    }

    @Test
    void anUnrelatedConcurrentCommitIsRetriedAndBothLand() throws Exception {
        List<DataFile> other = files(1, 7);
        List<Integer> attemptsSeen = new ArrayList<>();
        TableCommitter committer = new TableCommitter(table, "test", 5, 1, ms -> { }, snapshot -> {
            attemptsSeen.add(1);
            if (attemptsSeen.size() == 1) {
                // another writer (other partitions) takes the version we are about to write
                table.commitAppend(snapshot, other, Map.of("c/t/1", 7L), "other");
            }
        });
        TableCommitter.Outcome outcome = committer.commit(files(0, 11), Map.of("c/t/0", Optional.empty()),
                Map.of("c/t/0", 11L));

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
        TableCommitter committer = new TableCommitter(table, "test", 5, 1, ms -> { });
        TableCommitter.Outcome outcome = committer.commit(files(0, 5), Map.of("c/t/0", Optional.empty()),
                Map.of("c/t/0", 5L));
        TableCommitter.Fenced f = assertInstanceOf(TableCommitter.Fenced.class, outcome);
        assertEquals(Map.of("c/t/0", Optional.of(3L)), f.tableVersions());
        assertEquals(3, DeltaTableReader.readAll(storage.tableUri()).size());
    }

    @Test
    void givesUpAfterTheConfiguredRetries() throws Exception {
        List<DataFile> mine = files(0, 2);
        TableCommitter committer = new TableCommitter(table, "test", 2, 1, ms -> { }, snapshot -> {
            try {
                table.commitAppend(snapshot, List.of(), Map.of("other/" + snapshot.version(), 1L), "other");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThrows(RetriableException.class, () -> committer.commit(mine, Map.of("c/t/0", Optional.empty()),
                Map.of("c/t/0", 2L)));
        assertEquals(Optional.empty(), DeltaTableReader.txnVersion(storage.tableUri(), "c/t/0"));
    }
}
