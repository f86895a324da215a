package io.deltasink.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.model.DataFile;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.RefusingLocalFileSystem;

/** Vacuum and log upkeep on real local tables written by the connector's writer, files aged on disk. */
class VacuumTest {
    static final int DAY = 20_000;
    /** Device types whose folders a path mix-up would miss: escaped, spaced, non-ASCII, dotted, underscored. */
    static final List<String> TYPES = List.of("smart_plug", "50% a b", "日本", "..", "_under");

    @TempDir
    Path dir;
    private final List<StorageSettings> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(StorageSettings::close);
    }

    private StorageSettings storage() {
        StorageSettings s = new StorageSettings(dir.resolve("t").toString(), Map.of());
        opened.add(s);
        return s;
    }

    private DeltaTable table(StorageSettings storage, Map<String, String> properties) {
        DeltaTable table = new DeltaTable(storage.createEngine(), storage.tableUri());
        table.createOrCheck(SmallFileTables.SCHEMA, SmallFileTables.PARTITIONS, properties, SmallFileTables.ENGINE_INFO);
        return table;
    }

    private static List<DataFile> append(StorageSettings storage, DeltaTable table, int commit) {
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < TYPES.size() * 3; i++) {
            rows.add(SmallFileTables.row(commit * 100L + i, TYPES.get(i % TYPES.size()), DAY));
        }
        return SmallFileTables.append(storage, table, rows, commit + 1, Clock.systemUTC());
    }

    private Path root() {
        return dir.resolve("t");
    }

    /** Every regular file below the table, relative, '/'-separated. */
    private Set<String> filesOnDisk() throws IOException {
        try (Stream<Path> files = Files.walk(root())) {
            return files.filter(Files::isRegularFile).map(p -> root().relativize(p).toString().replace('\\', '/'))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    private static void age(Path file, Duration by) throws IOException {
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(by)));
    }

    private void ageAll(Duration by) throws IOException {
        for (String f : filesOnDisk()) {
            age(root().resolve(f), by);
        }
    }

    private Path orphan(String relative) throws IOException {
        Path p = root().resolve(relative);
        Files.createDirectories(p.getParent());
        Files.write(p, new byte[] {1, 2, 3, 4, 5});
        return p;
    }

    private static Set<String> paths(VacuumResult result) {
        return result.files().stream().map(VacuumResult.File::path).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void referencedFilesStayAndOrphansOlderThanTheRetentionGoAndADryRunListsExactlyThem() throws IOException {
        StorageSettings storage = storage();
        DeltaTable table = table(storage, Map.of());
        Set<String> referenced = new TreeSet<>();
        for (int c = 0; c < 3; c++) {
            append(storage, table, c).forEach(f -> referenced.add(f.path()));
        }
        List<String> rows = SmallFileTables.multiset(DeltaTableReader.readAll(storage.tableUri()));
        Set<String> folders = filesOnDisk().stream().filter(f -> f.endsWith(".parquet"))
                .map(f -> f.substring(0, f.lastIndexOf('/'))).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(TYPES.size(), folders.size(), folders.toString());
        Set<String> oldOrphans = new TreeSet<>(Set.of("orphan-at-root.parquet"));
        folders.forEach(f -> oldOrphans.add(f + "/part-orphan-of-a-killed-batch.parquet"));
        for (String o : oldOrphans) {
            orphan(o);
        }
        ageAll(Duration.ofDays(8));
        String young = folders.iterator().next() + "/part-being-written.parquet";
        orphan(young);
        age(root().resolve(young), Duration.ofDays(6));
        Set<String> before = filesOnDisk();

        VacuumResult dry = new Vacuum(storage, Clock.systemUTC()).run(VacuumOptions.defaults().withDryRun(true));
        assertTrue(dry.dryRun());
        assertEquals(oldOrphans, paths(dry));
        assertEquals(oldOrphans.size(), dry.deletedFiles());
        assertEquals(5L * oldOrphans.size(), dry.deletedBytes());
        assertEquals(before, filesOnDisk(), "a dry run deletes nothing");

        VacuumResult real = new Vacuum(storage, Clock.systemUTC()).run(VacuumOptions.defaults());
        assertEquals(paths(dry), paths(real), "the real run deletes exactly what the dry run listed");
        assertEquals("7d", real.retention());
        assertTrue(real.files().stream().allMatch(f -> f.reason().equals("orphan")), real.toText());
        Set<String> after = filesOnDisk();
        for (String o : oldOrphans) {
            assertFalse(after.contains(o), o);
        }
        assertTrue(after.contains(young), "an orphan younger than the retention stays");
        Set<String> expected = new TreeSet<>(before);
        expected.removeAll(oldOrphans);
        assertEquals(expected, after, "nothing else was deleted");
        assertEquals(rows, SmallFileTables.multiset(DeltaTableReader.readAll(storage.tableUri())));

        VacuumResult again = new Vacuum(storage, Clock.systemUTC()).run(VacuumOptions.defaults());
        assertEquals(0, again.deletedFiles(), again.toText());
    }

    /**
     * Storage refuses two deletes, one by answering false (as the local file system does when the OS
     * refuses), one by throwing: both are the result's failures, neither is counted or listed as
     * deleted, and every other old orphan is still deleted; the table keeps its rows.
     */
    @Test
    void aDeleteThatFailsIsAFailureAndTheOtherFilesAreStillDeleted() throws IOException {
        StorageSettings storage = new StorageSettings(root().toString(), Map.of(
                "fs.file.impl", RefusingLocalFileSystem.class.getName(),
                RefusingLocalFileSystem.REFUSED, "b-refused.parquet",
                RefusingLocalFileSystem.FAILING, "c-failing.parquet"));
        opened.add(storage);
        DeltaTable table = table(storage, Map.of());
        append(storage, table, 0);
        append(storage, table, 1);
        List<String> rows = SmallFileTables.multiset(DeltaTableReader.readAll(storage.tableUri()));
        List<String> orphans = List.of("a.parquet", "b-refused.parquet", "c-failing.parquet", "d.parquet");
        for (String o : orphans) {
            orphan(o);
        }
        ageAll(Duration.ofDays(8));
        Set<String> before = filesOnDisk();

        VacuumResult result = new Vacuum(storage, Clock.systemUTC()).run(VacuumOptions.defaults());
        assertEquals(Set.of("a.parquet", "d.parquet"), paths(result), result.toText());
        assertEquals(2, result.deletedFiles());
        assertEquals(10, result.deletedBytes());
        assertEquals(List.of("b-refused.parquet", "c-failing.parquet"),
                result.failures().stream().map(f -> f.substring(0, f.indexOf(':'))).sorted().toList(), result.toText());
        Set<String> expected = new TreeSet<>(before);
        expected.removeAll(Set.of("a.parquet", "d.parquet"));
        assertEquals(expected, filesOnDisk());
        assertEquals(rows, SmallFileTables.multiset(DeltaTableReader.readAll(storage.tableUri())));
    }

    @Test
    void removedFilesGoOnlyOnceTheirRemovalIsOlderThanTheRetentionAndTimeTravelEndsThere() throws IOException {
        StorageSettings storage = storage();
        DeltaTable table = table(storage, Map.of());
        for (int c = 0; c < 4; c++) {
            append(storage, table, c);
        }
        long beforeCompaction = table.latest().orElseThrow().version();
        Configuration conf = new Configuration();
        List<String> oldRows = SmallFileTables.multiset(DeltaTableReader.readAll(storage.tableUri(), beforeCompaction, conf));
        CompactionResult compaction = new Compactor(storage, Clock.systemUTC())
                .run(CompactionOptions.defaults().withMinFiles(2).withMinAge(Duration.ZERO));
        assertTrue(compaction.filesRemoved() > 0, compaction.toString());
        List<String> rows = SmallFileTables.multiset(DeltaTableReader.readAll(storage.tableUri()));
        assertEquals(oldRows, rows);

        Clock sixDaysOn = Clock.offset(Clock.systemUTC(), Duration.ofDays(6));
        VacuumResult early = new Vacuum(storage, sixDaysOn).run(VacuumOptions.defaults());
        assertEquals(0, early.deletedFiles(), early.toText());
        assertEquals(oldRows, SmallFileTables.multiset(DeltaTableReader.readAll(storage.tableUri(), beforeCompaction, conf)),
                "time travel within the retention still reads");

        Clock eightDaysOn = Clock.offset(Clock.systemUTC(), Duration.ofDays(8));
        VacuumResult late = new Vacuum(storage, eightDaysOn).run(VacuumOptions.defaults());
        assertEquals(compaction.filesRemoved(), late.deletedFiles(), late.toText());
        assertTrue(late.files().stream().allMatch(f -> f.reason().equals("removed")), late.toText());
        assertEquals(rows, SmallFileTables.multiset(DeltaTableReader.readAll(storage.tableUri())));
        assertThrows(RuntimeException.class, () -> DeltaTableReader.readAll(storage.tableUri(), beforeCompaction, conf),
                "time travel to a version older than the retention stops working after a vacuum");
    }

    @Test
    void retentionShorterThanTheTablesNeedsForceAndNothingGoesBelowTheFloor() throws IOException {
        StorageSettings storage = storage();
        DeltaTable table = table(storage, Map.of("delta.deletedFileRetentionDuration", "interval 2 days"));
        append(storage, table, 0);
        orphan("orphan.parquet");
        age(root().resolve("orphan.parquet"), Duration.ofHours(30));
        Vacuum vacuum = new Vacuum(storage, Clock.systemUTC());

        assertEquals(0, vacuum.run(VacuumOptions.defaults()).deletedFiles(), "the table's 2 days apply");
        IllegalArgumentException shorter = assertThrows(IllegalArgumentException.class,
                () -> vacuum.run(VacuumOptions.defaults().withRetention(Duration.ofDays(1))));
        assertTrue(shorter.getMessage().contains("1d") && shorter.getMessage().contains("2d")
                && shorter.getMessage().contains("force"), shorter.getMessage());
        IllegalArgumentException floor = assertThrows(IllegalArgumentException.class,
                () -> vacuum.run(VacuumOptions.defaults().withRetention(Duration.ofMinutes(59)).withForce(true)));
        assertTrue(floor.getMessage().contains("59m") && floor.getMessage().contains("1h"), floor.getMessage());
        assertTrue(Files.exists(root().resolve("orphan.parquet")), "a refused run deletes nothing");

        VacuumResult forced = vacuum.run(VacuumOptions.defaults().withRetention(Duration.ofDays(1)).withForce(true));
        assertEquals(Set.of("orphan.parquet"), paths(forced));
        assertEquals("1d", forced.retention());
    }

    @Test
    void hiddenPathsAndTheLogAreNeverTouched() throws IOException {
        StorageSettings storage = storage();
        DeltaTable table = table(storage, Map.of());
        append(storage, table, 0);
        String folder = filesOnDisk().stream().filter(f -> f.endsWith(".parquet") && f.contains("smart_plug"))
                .findFirst().map(f -> f.substring(0, f.lastIndexOf('/'))).orElseThrow();
        List<String> hidden = List.of("_staging/a.parquet", ".tmp/b.parquet", folder + "/_SUCCESS",
                folder + "/.c.parquet", folder + "/_tmp/d.parquet", "_delta_log/leftover.json.tmp",
                "_change_data/cdc-1.parquet");
        for (String h : hidden) {
            orphan(h);
        }
        orphan(folder + "/visible-orphan.parquet");
        ageAll(Duration.ofDays(8));
        Set<String> before = filesOnDisk();

        VacuumResult result = new Vacuum(storage, Clock.systemUTC()).run(VacuumOptions.defaults());
        assertEquals(Set.of(folder + "/visible-orphan.parquet"), paths(result));
        Set<String> expected = new TreeSet<>(before);
        expected.remove(folder + "/visible-orphan.parquet");
        assertEquals(expected, filesOnDisk());
    }

    @Test
    void kernelLeavesExpiredLogFilesAndVacuumDeletesThemByDeltasRules() throws IOException {
        StorageSettings storage = storage();
        DeltaTable table = table(storage, Map.of("delta.checkpointInterval", "2",
                "delta.logRetentionDuration", "interval 1 days"));
        for (int c = 0; c < 6; c++) {
            append(storage, table, c);
        }
        try (Stream<Path> log = Files.list(root().resolve("_delta_log"))) {
            for (Path f : log.toList()) {
                age(f, Duration.ofDays(3));
            }
        }
        for (int c = 6; c < 8; c++) {
            append(storage, table, c); // versions 7 and 8, a checkpoint at 8: Kernel's hook runs
        }
        List<String> log = DeltaTableReader.logFileNames(storage.tableUri());
        assertTrue(log.contains(String.format("%020d.json", 0)), "Kernel 4.4's checkpoint deletes no expired log file: " + log);
        List<String> rows = SmallFileTables.multiset(DeltaTableReader.readAll(storage.tableUri()));

        VacuumResult dry = new Vacuum(storage, Clock.systemUTC()).run(VacuumOptions.defaults().withDryRun(true));
        assertEquals(0, dry.logFilesDeleted());
        assertEquals(log, DeltaTableReader.logFileNames(storage.tableUri()));

        VacuumResult result = new Vacuum(storage, Clock.systemUTC()).run(VacuumOptions.defaults());
        List<String> after = DeltaTableReader.logFileNames(storage.tableUri());
        assertTrue(result.logFilesDeleted() > 0, result.toText());
        // the aged files end at version 6 (checkpoint): everything below it goes, the checkpoint at 6 stays
        for (long v = 0; v < 6; v++) {
            assertFalse(after.contains(String.format("%020d.json", v)), v + " in " + after);
            assertFalse(after.contains(String.format("%020d.crc", v)), v + " in " + after);
        }
        assertTrue(after.contains(String.format("%020d.checkpoint.parquet", 6)), after.toString());
        for (long v = 6; v <= 8; v++) {
            assertTrue(after.contains(String.format("%020d.json", v)), v + " in " + after);
        }
        assertEquals(8, DeltaTableReader.version(storage.tableUri()));
        assertEquals(rows, SmallFileTables.multiset(DeltaTableReader.readAll(storage.tableUri())));
        assertEquals(Long.valueOf(8), DeltaTableReader.txnVersion(storage.tableUri(), SmallFileTables.APP_ID).orElseThrow());
    }
}
