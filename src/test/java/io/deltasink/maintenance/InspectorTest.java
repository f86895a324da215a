package io.deltasink.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;
import io.deltasink.testing.DeltaTableReader;

/** Inspect on a table written by the connector's writer and commit path, compared with the raw log. */
class InspectorTest {
    @TempDir
    Path dir;

    @Test
    void reportsVersionPartitionsSmallFilesPositionsAndCommitsAndSerializesToJson() throws Exception {
        try (StorageSettings storage = new StorageSettings(dir.resolve("t").toString(), Map.of())) {
            DeltaTable table = SmallFileTables.create(storage);
            for (int c = 0; c < 3; c++) {
                List<Object[]> rows = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    rows.add(SmallFileTables.row(c * 10L + i, i % 2 == 0 ? "smart_plug" : "door", 20_000 + c % 2));
                }
                SmallFileTables.append(storage, table, rows, (c + 1) * 10L, Clock.systemUTC());
            }
            table.commitPositions(table.latest().orElseThrow(), Map.of("other/events/1", 7L), SmallFileTables.ENGINE_INFO);
            new Compactor(storage, Clock.systemUTC()).run(CompactionOptions.defaults().withMinFiles(2).withMinAge(Duration.ZERO));

            TableReport report = new Inspector(storage, Clock.systemUTC()).inspect(InspectOptions.defaults().withLastCommits(3));
            assertEquals(DeltaTableReader.version(storage.tableUri()), report.version());
            assertEquals(SmallFileTables.PARTITIONS, report.partitionColumns());
            assertEquals(SmallFileTables.SCHEMA.size(), report.columns().size());
            long activeFiles = DeltaTableReader.load(storage.tableUri()).filesKept(io.delta.kernel.expressions.AlwaysTrue.ALWAYS_TRUE).size();
            assertEquals(activeFiles, report.files());
            assertEquals(report.files(), report.smallFiles(), "every file is below 8 MiB");
            assertEquals(List.of("device_type=door/event_date=2024-10-04", "device_type=door/event_date=2024-10-05",
                            "device_type=smart_plug/event_date=2024-10-04", "device_type=smart_plug/event_date=2024-10-05"),
                    report.partitions().stream().map(TableReport.Partition::partition).toList());
            assertEquals(report.files(), report.partitions().stream().mapToLong(TableReport.Partition::files).sum());
            assertEquals(List.of("other/events/1", SmallFileTables.APP_ID),
                    report.positions().stream().map(TableReport.Position::appId).toList());
            assertEquals(30L, report.positions().get(1).tableOffset());
            assertNull(report.positions().get(1).lag(), "no Kafka asked, no lag");

            assertEquals(3, report.commits().size());
            assertEquals(report.version(), report.commits().get(0).version(), "newest first");
            assertTrue(report.commits().get(0).filesRemoved() > 0, "the compaction removed files: " + report.commits());
            assertEquals(1, report.commits().get(1).txnActions(), "the positions commit");
            assertEquals(10, report.commits().get(2).rowsAdded(), "the last append");
            assertEquals(DeltaTableReader.commitOperations(storage.tableUri()).get(report.version() - 2),
                    report.commits().get(2).operation());

            JsonNode json = new ObjectMapper().readTree(new ObjectMapper().writeValueAsString(report));
            assertEquals(report.version(), json.get("version").asLong());
            assertEquals(4, json.get("partitions").size());
            assertTrue(report.toText().contains("device_type=door/event_date=2024-10-04"), report.toText());
        }
    }
}
