package io.deltasink.table;

import static io.deltasink.table.Fixtures.ENGINE_INFO;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.engine.Engine;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.LogCapture;
import io.deltasink.write.TaskThreads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeltaTableCheckpointTest {
    @TempDir
    Path dir;

    @Test
    void txnVersionsReadBackThroughACheckpointAlsoWhenTheOldCommitsAreGone() throws IOException {
        String path = Fixtures.tablePath(dir);
        Engine engine = Fixtures.engine();
        DeltaTable table = Fixtures.createTable(engine, path, Map.of("delta.checkpointInterval", "3"));

        // version 1: three partitions at once; later commits move only partition 0 (and 1 once)
        table.commitAppend(table.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, 1)),
                Map.of("conn/topic/0", 1L, "conn/topic/1", 100L, "conn/topic/2", 1000L), ENGINE_INFO);
        for (long v = 2; v <= 11; v++) {
            Map<String, Long> txn = v == 5 ? Map.of("conn/topic/0", v, "conn/topic/1", 105L) : Map.of("conn/topic/0", v);
            assertEquals(v, table.commitAppend(table.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, v)),
                    txn, ENGINE_INFO));
        }

        List<String> log = DeltaTableReader.logFileNames(path);
        assertTrue(log.contains("00000000000000000009.checkpoint.parquet"), log.toString());
        assertTrue(log.contains("00000000000000000003.checkpoint.parquet"), log.toString());
        assertTrue(log.contains("_last_checkpoint"), log.toString());
        assertTrue(log.contains("00000000000000000011.crc"), "checksum hook ran: " + log);

        // drop the commits before the checkpoint at 9, as log cleanup would (Kernel wants 9.json kept)
        Path logDir = dir.resolve("table").resolve("_delta_log");
        try (Stream<Path> files = Files.list(logDir)) {
            for (Path f : files.toList()) {
                String name = f.getFileName().toString();
                if (name.matches("\\.?0000000000000000000[0-8]\\.(json|crc)(\\.crc)?")) {
                    Files.delete(f);
                }
            }
        }
        assertFalse(DeltaTableReader.logFileNames(path).contains("00000000000000000001.json"));

        TableSnapshot fresh = new DeltaTable(Fixtures.engine(), path).latest().orElseThrow();
        assertEquals(11, fresh.version());
        assertEquals(Optional.of(11L), fresh.txnVersion("conn/topic/0"));
        assertEquals(Optional.of(105L), fresh.txnVersion("conn/topic/1"));
        assertEquals(Optional.of(1000L), fresh.txnVersion("conn/topic/2"));
        assertEquals(Optional.empty(), fresh.txnVersion("conn/topic/3"));
        assertEquals(Optional.of(1000L), DeltaTableReader.txnVersion(path, "conn/topic/2"));
        assertEquals(11, DeltaTableReader.readAll(path).size());
    }

    @Test
    void aFailingPostCommitHookDoesNotFailTheCommit() {
        String path = Fixtures.tablePath(dir);
        Fixtures.createTable(Fixtures.engine(), path, Map.of("delta.checkpointInterval", "2"));
        DeltaTable failing = new DeltaTable(TestEngine.wrapping(Fixtures.engine()).failingParquetWrites(), path);

        failing.commitAppend(failing.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, 1)),
                Map.of("a", 1L), ENGINE_INFO);
        long version = failing.commitAppend(failing.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, 2)),
                Map.of("a", 2L), ENGINE_INFO);

        assertEquals(2, version);
        assertEquals(2, DeltaTableReader.version(path));
        assertFalse(DeltaTableReader.logFileNames(path).contains("00000000000000000002.checkpoint.parquet"));
        assertEquals(Optional.of(2L), DeltaTableReader.txnVersion(path, "a"));
    }

    @Test
    void logCompactionRunsWhenAsked() {
        String path = Fixtures.tablePath(dir);
        Fixtures.createTable(Fixtures.engine(), path, Map.of());
        DeltaTable table = new DeltaTable(Fixtures.engine(), path, Clock.systemUTC(), 2);
        for (long v = 1; v <= 3; v++) {
            table.commitAppend(table.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, v)),
                    Map.of("a", v), ENGINE_INFO);
        }
        List<String> log = DeltaTableReader.logFileNames(path);
        assertTrue(log.stream().anyMatch(n -> n.endsWith(".compacted.json")), log.toString());
        assertEquals(Optional.of(3L), new DeltaTable(Fixtures.engine(), path).latest().orElseThrow().txnVersion("a"));
    }

    private static CheckpointQueue queue() {
        return new CheckpointQueue(TaskThreads.pool("checkpoint-test", 1), Duration.ofSeconds(60));
    }

    private static List<String> checkpoints(String path) {
        return DeltaTableReader.logFileNames(path).stream().filter(n -> n.endsWith(".checkpoint.parquet")).toList();
    }

    private static long checkpointVersion(TableSnapshot snapshot) {
        return snapshot.kernelSnapshot().getLogSegment().getCheckpointVersionOpt().orElse(-1L);
    }

    @Test
    void aQueuedCheckpointIsWrittenAfterItsCommitReturnedAndOnlyTheNewestOfThoseWaiting() throws Exception {
        String path = Fixtures.tablePath(dir);
        Fixtures.createTable(Fixtures.engine(), path, Map.of("delta.checkpointInterval", "2"));
        CheckpointQueue queue = queue();
        HeldCheckpoint held = HeldCheckpoint.hold(queue, "another table", () -> { });
        DeltaTable table = new DeltaTable(Fixtures.engine(), path, Clock.systemUTC(), 0, queue);
        for (long v = 1; v <= 7; v++) {
            assertEquals(v, table.commitAppend(table.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, v)),
                    Map.of("conn/topic/0", v), ENGINE_INFO));
            assertEquals(List.of(), checkpoints(path), "version " + v + " waited for a checkpoint");
        }
        // the table reads right without the checkpoints asked for at 2, 4 and 6
        TableSnapshot meanwhile = new DeltaTable(Fixtures.engine(), path).latest().orElseThrow();
        assertEquals(7, meanwhile.version());
        assertEquals(Optional.of(7L), meanwhile.txnVersion("conn/topic/0"));

        held.release();
        queue.close();
        // asked for at 2, then 4, then 6 while the thread was busy: 6 took the others' place
        assertEquals(List.of("00000000000000000006.checkpoint.parquet"), checkpoints(path));
        TableSnapshot fresh = new DeltaTable(Fixtures.engine(), path).latest().orElseThrow();
        assertEquals(7, fresh.version());
        assertEquals(6, checkpointVersion(fresh));
        assertEquals(Optional.of(7L), fresh.txnVersion("conn/topic/0"));
        assertEquals(7, DeltaTableReader.readAll(path).size());
        assertEquals(Optional.of(7L), DeltaTableReader.txnVersion(path, "conn/topic/0"));
    }

    @Test
    void checkpointsWrittenWhileCommitsGoOnLoseNoCommitAndNoOffset() {
        String path = Fixtures.tablePath(dir);
        Fixtures.createTable(Fixtures.engine(), path, Map.of("delta.checkpointInterval", "1"));
        CheckpointQueue queue = queue();
        DeltaTable table = new DeltaTable(Fixtures.engine(), path, Clock.systemUTC(), 0, queue);
        try (LogCapture logs = new LogCapture()) {
            for (long v = 1; v <= 40; v++) {
                // each commit asks for a checkpoint; the next commit reads the table while one is written
                assertEquals(v, table.commitAppend(table.latest().orElseThrow(),
                        List.of(Fixtures.oneRowFile(path, v)),
                        Map.of("conn/topic/" + (v % 3), v), ENGINE_INFO));
            }
            queue.close();
            assertEquals(List.of(), logs.linesContaining("failed"), String.join("\n", logs.lines()));
        }
        List<String> written = checkpoints(path);
        assertTrue(written.contains("00000000000000000040.checkpoint.parquet"), written.toString());
        TableSnapshot fresh = new DeltaTable(Fixtures.engine(), path).latest().orElseThrow();
        assertEquals(40, fresh.version());
        assertEquals(40, checkpointVersion(fresh));
        assertEquals(Optional.of(39L), fresh.txnVersion("conn/topic/0"));
        assertEquals(Optional.of(40L), fresh.txnVersion("conn/topic/1"));
        assertEquals(Optional.of(38L), fresh.txnVersion("conn/topic/2"));
        assertEquals(40, DeltaTableReader.readAll(path).size());
        assertEquals(Optional.of(40L), DeltaTableReader.txnVersion(path, "conn/topic/1"));
    }

    @Test
    void aQueuedCheckpointThatFailsLeavesTheCommitAndSaysSo() {
        String path = Fixtures.tablePath(dir);
        Fixtures.createTable(Fixtures.engine(), path, Map.of("delta.checkpointInterval", "2"));
        CheckpointQueue queue = queue();
        DeltaTable failing = new DeltaTable(TestEngine.wrapping(Fixtures.engine()).failingParquetWrites(), path,
                Clock.systemUTC(), 0, queue);
        try (LogCapture logs = new LogCapture()) {
            for (long v = 1; v <= 2; v++) {
                assertEquals(v, failing.commitAppend(failing.latest().orElseThrow(),
                        List.of(Fixtures.oneRowFile(path, v)), Map.of("a", v), ENGINE_INFO));
            }
            queue.close();
            List<String> warned = logs.linesContaining("failed; the commit stands");
            assertEquals(1, warned.size(), String.join("\n", logs.lines()));
            assertTrue(warned.get(0).contains("CHECKPOINT") && warned.get(0).contains("version 2"), warned.get(0));
        }
        assertEquals(List.of(), checkpoints(path));
        assertEquals(2, DeltaTableReader.version(path));
        assertEquals(Optional.of(2L), DeltaTableReader.txnVersion(path, "a"));
    }
}
