package io.deltasink.maintenance;

import static io.deltasink.maintenance.SmallFileTables.APP_ID;
import static io.deltasink.maintenance.SmallFileTables.append;
import static io.deltasink.maintenance.SmallFileTables.at;
import static io.deltasink.maintenance.SmallFileTables.multiset;
import static io.deltasink.maintenance.SmallFileTables.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
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

import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;
import io.deltasink.table.TableFile;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.FaultyLogStore;

/**
 * Compaction of real local tables written by the connector's own writer, read back by the
 * independent reader: rows, actions, statistics and positions before and after, and races with
 * appends and other compactions made deterministic by running the rival right before the
 * compaction's commit file is written.
 */
class CompactorTest {
    private static final Clock NOW = at("2026-06-23T12:00:00Z");
    private static final CompactionOptions ANY_AGE = CompactionOptions.defaults().withMinAge(Duration.ZERO);
    private static final List<String> TYPES = List.of("plug", "door", "bulb", "sensor");
    private static final int DAY = 20_626; // 2026-06-22

    @TempDir
    Path dir;
    private final List<StorageSettings> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(StorageSettings::close);
    }

    private StorageSettings storage(String name) {
        StorageSettings storage = new StorageSettings(dir.resolve(name).toString(),
                Map.of(FaultyLogStore.KEY, FaultyLogStore.class.getName()));
        opened.add(storage);
        return storage;
    }

    /** {@code commits} appends of one row per type (a file per table partition), offsets 1..commits. */
    private static void appendCommits(StorageSettings storage, DeltaTable table, int commits, List<String> types,
                                      Clock clock) {
        for (int c = 0; c < commits; c++) {
            List<Object[]> rows = new ArrayList<>();
            for (String type : types) {
                rows.add(row(c * 100L + types.indexOf(type), type, DAY));
            }
            append(storage, table, rows, c + 1, clock);
        }
    }

    @Test
    void twoHundredSmallFilesBecomeOneFilePerPartitionWithTheSameRows() {
        StorageSettings storage = storage("t");
        DeltaTable table = SmallFileTables.create(storage);
        appendCommits(storage, table, 50, TYPES, at("2026-06-22T10:00:00Z"));
        String uri = storage.tableUri();
        long before = DeltaTableReader.version(uri);
        List<String> rowsBefore = multiset(DeltaTableReader.readAll(uri));
        List<JsonNode> addsBefore = DeltaTableReader.allActions(uri, "add");
        assertEquals(200, addsBefore.size());

        CompactionResult result = new Compactor(storage, NOW).run(ANY_AGE);

        assertEquals("committed", result.outcome(), result.toText());
        assertEquals(before + 1, result.version());
        assertEquals(new CompactionResult(before + 1, 4, 200, 4, result.bytesRewritten(), 200, "committed"), result);
        assertEquals(rowsBefore, multiset(DeltaTableReader.readAll(uri)), "the same multiset of rows");
        assertEquals(rowsBefore, multiset(DeltaTableReader.readAll(uri, before, new Configuration())),
                "time travel to the version before reads the same rows");
        assertEquals(Long.valueOf(50), DeltaTableReader.txnVersion(uri, APP_ID).orElseThrow(), "txn version untouched");
        assertTrue(DeltaTableReader.actions(uri, result.version(), "txn").isEmpty(), "no txn action");

        List<JsonNode> removes = DeltaTableReader.actions(uri, result.version(), "remove");
        List<JsonNode> adds = DeltaTableReader.actions(uri, result.version(), "add");
        assertEquals(addsBefore.stream().map(a -> a.get("path").asText()).collect(Collectors.toSet()),
                removes.stream().map(r -> r.get("path").asText()).collect(Collectors.toSet()), "every old file removed");
        assertTrue(removes.stream().allMatch(r -> !r.get("dataChange").asBoolean()), "removes: dataChange=false");
        assertTrue(adds.stream().allMatch(a -> !a.get("dataChange").asBoolean()), "adds: dataChange=false");
        assertEquals(4, adds.size());
        assertEquals(partitionValues(addsBefore), partitionValues(adds), "partition values unchanged");
        for (JsonNode add : adds) {
            JsonNode stats = DeltaTableReader.stats(add);
            String type = add.get("partitionValues").get("device_type").asText();
            int t = TYPES.indexOf(type);
            assertEquals(50, stats.get("numRecords").asLong(), add.toString());
            assertEquals(t, stats.get("minValues").get("seq").asLong(), add.toString());
            assertEquals(4900 + t, stats.get("maxValues").get("seq").asLong(), add.toString());
            assertEquals(50, stats.get("nullCount").get("always_null").asLong(), add.toString());
            assertTrue(add.get("path").asText().startsWith("device_type=" + type + "/event_date=2026-06-22/"),
                    "new file in the partition's folder: " + add.get("path"));
        }
        JsonNode info = DeltaTableReader.actions(uri, result.version(), "commitInfo").get(0);
        assertTrue(info.get("engineInfo").asText().contains("compaction"), info.toString());
        assertEquals("nothing to compact", new Compactor(storage, NOW).run(ANY_AGE).outcome(), "a second run");
    }

    @Test
    void anAppendThatCommitsFirstLandsAndSoDoesTheCompaction() {
        StorageSettings storage = storage("t");
        DeltaTable table = SmallFileTables.create(storage);
        appendCommits(storage, table, 5, TYPES, at("2026-06-22T10:00:00Z"));
        String uri = storage.tableUri();
        long before = DeltaTableReader.version(uri);
        List<Map<String, Object>> expected = new ArrayList<>(DeltaTableReader.readAll(uri));
        List<Object[]> late = List.of(row(9001, "plug", DAY), row(9002, "door", DAY + 1));
        FaultyLogStore.beforeNextCommit(uri, () -> append(storage, table, late, 6, NOW));

        CompactionResult result = new Compactor(storage, NOW).run(ANY_AGE);

        assertEquals("committed", result.outcome());
        assertEquals(before + 2, result.version(), "the append took the next version, compaction the one after");
        assertEquals(2, DeltaTableReader.actions(uri, before + 1, "add").size(), "the append landed");
        assertEquals(20, result.filesRemoved());
        List<Map<String, Object>> rows = DeltaTableReader.readAll(uri);
        assertEquals(expected.size() + 2, rows.size());
        assertTrue(rows.stream().anyMatch(r -> Long.valueOf(9001).equals(r.get("seq"))));
        assertTrue(rows.stream().anyMatch(r -> Long.valueOf(9002).equals(r.get("seq"))));
        assertEquals(Long.valueOf(6), DeltaTableReader.txnVersion(uri, APP_ID).orElseThrow());
        assertNoFileRemovedTwice(uri);
    }

    @Test
    void ofTwoCompactionsRacingOneWinsAndTheOtherGivesUpAndDeletesItsFiles() throws IOException {
        StorageSettings storage = storage("t");
        DeltaTable table = SmallFileTables.create(storage);
        appendCommits(storage, table, 6, TYPES, at("2026-06-22T10:00:00Z"));
        String uri = storage.tableUri();
        List<String> rowsBefore = multiset(DeltaTableReader.readAll(uri));
        List<CompactionResult> rival = new ArrayList<>();
        FaultyLogStore.beforeNextCommit(uri, () -> rival.add(new Compactor(storage, NOW).run(ANY_AGE)));

        CompactionResult loser = new Compactor(storage, NOW).run(ANY_AGE);

        assertEquals("committed", rival.get(0).outcome());
        assertTrue(loser.outcome().startsWith("gave up: "), loser.outcome());
        assertEquals(-1, loser.version());
        assertEquals(rowsBefore, multiset(DeltaTableReader.readAll(uri)), "no row lost or doubled");
        assertNoFileRemovedTwice(uri);
        assertEquals(everAdded(uri), dataFilesOnDisk(storage), "the loser's files are deleted; every file on disk was once added");
    }

    @Test
    void anInputRemovedBeforeTheCommitMakesItGiveUp() throws IOException {
        StorageSettings storage = storage("t");
        DeltaTable table = SmallFileTables.create(storage);
        appendCommits(storage, table, 4, TYPES, at("2026-06-22T10:00:00Z"));
        String uri = storage.tableUri();
        TableFile victim = table.latest().orElseThrow().files().get(0);
        FaultyLogStore.beforeNextCommit(uri, () -> table.commitRewrite(table.latest().orElseThrow(),
                Set.of(victim.logPath()), List.of(), "another writer"));
        long before = DeltaTableReader.version(uri);

        CompactionResult result = new Compactor(storage, NOW).run(ANY_AGE);

        assertTrue(result.outcome().startsWith("gave up: 1 input files were removed"), result.outcome());
        assertEquals(before + 1, DeltaTableReader.version(uri), "only the rival's commit");
        assertEquals(15, DeltaTableReader.readAll(uri).size());
        assertEquals(everAdded(uri), dataFilesOnDisk(storage));
    }

    @Test
    void aRunRewritesColdPartitionsFirstWithinItsBound() {
        StorageSettings storage = storage("t");
        DeltaTable table = SmallFileTables.create(storage);
        appendCommits(storage, table, 5, List.of("warm"), at("2026-06-22T11:00:00Z"));
        appendCommits(storage, table, 5, List.of("cold"), at("2026-06-21T11:00:00Z"));
        appendCommits(storage, table, 5, List.of("hot"), at("2026-06-23T11:59:00Z"));
        long partitionBytes = table.latest().orElseThrow().files().stream()
                .filter(f -> f.partitionValues().get("device_type").equals("cold")).mapToLong(TableFile::size).sum();
        CompactionOptions options = CompactionOptions.defaults().withMinAge(Duration.ofMinutes(10))
                .withMaxBytesPerRun(partitionBytes + 1);

        CompactionResult first = new Compactor(storage, NOW).run(options);
        assertEquals(Set.of("cold"), rewrittenTypes(storage.tableUri(), first.version()), "the coldest partition only");
        assertEquals(partitionBytes, first.bytesRewritten());
        CompactionResult second = new Compactor(storage, NOW).run(options);
        assertEquals(Set.of("warm"), rewrittenTypes(storage.tableUri(), second.version()),
                "then the next one; 'hot' was written 1 minute ago");
        assertEquals("nothing to compact", new Compactor(storage, NOW).run(options).outcome());
        assertEquals(15, DeltaTableReader.readAll(storage.tableUri()).size());
    }

    @Test
    void aPartitionWithFewerSmallFilesThanMinFilesAndBigFilesAreLeftAlone() {
        StorageSettings storage = storage("t");
        DeltaTable table = SmallFileTables.create(storage);
        appendCommits(storage, table, 3, List.of("few"), at("2026-06-22T10:00:00Z"));
        List<Object[]> big = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            big.add(row(100_000 + i, "mixed", DAY));
        }
        append(storage, table, big, 4, at("2026-06-22T10:00:00Z"));
        appendCommits(storage, table, 4, List.of("mixed"), at("2026-06-22T10:00:00Z"));
        TableFile bigFile = table.latest().orElseThrow().files().stream().filter(f -> f.size() > 100_000)
                .findFirst().orElseThrow();
        CompactionOptions options = ANY_AGE.withSmallFileBytes(100_000).withMinFiles(4);

        assertEquals("would rewrite 4 files into about 1", new Compactor(storage, NOW).plan(options).outcome());
        CompactionResult result = new Compactor(storage, NOW).run(options);

        assertEquals(4, result.filesRemoved(), result.toText());
        Set<String> removed = DeltaTableReader.actions(storage.tableUri(), result.version(), "remove").stream()
                .map(r -> r.get("path").asText()).collect(Collectors.toSet());
        assertFalse(removed.contains(bigFile.logPath()), "the big file is never rewritten");
        assertEquals(Set.of("mixed"), rewrittenTypes(storage.tableUri(), result.version()), "'few' has 3 < 4 small files");
        assertEquals(3 + 3000 + 4, DeltaTableReader.readAll(storage.tableUri()).size());
    }

    @Test
    void hostileValuesComeOutExactlyAsTheyWentIn() {
        StorageSettings storage = storage("t");
        DeltaTable table = SmallFileTables.create(storage);
        String[] types = {"Küche/Ofen: 東京 %41 \"x\"", "é"};
        double[] doubles = {Double.NaN, -0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE};
        long[] micros = {-62_135_596_800_000_000L, 253_402_300_799_999_999L, 0, -1, 1};
        for (int c = 0; c < 5; c++) {
            List<Object[]> rows = new ArrayList<>();
            for (String type : types) {
                Object[] r = row(c, type, c % 2 == 0 ? -719_162 : 2_932_896);
                r[3] = micros[c];
                r[4] = doubles[c];
                r[5] = c == 0 ? Float.NaN : -0.0f;
                r[8] = c == 0 ? new java.math.BigDecimal("-9999999999999999999999999999.9999999999") : null;
                r[9] = c == 1 ? new byte[0] : new byte[] {0, (byte) 0xff, (byte) 0x80};
                r[10] = "ü€😀".repeat(c == 2 ? 40_000 : 1) + "\u0000";
                r[11] = null;
                rows.add(r);
            }
            append(storage, table, rows, c + 1, at("2026-06-22T10:00:00Z"));
        }
        String uri = storage.tableUri();
        List<String> before = multiset(DeltaTableReader.readAll(uri));

        CompactionResult result = new Compactor(storage, NOW).run(ANY_AGE.withMinFiles(2));

        assertEquals("committed", result.outcome(), result.toText());
        assertEquals(10, result.filesRemoved(), "3 + 2 files for each of 2 types");
        assertEquals(4, result.filesAdded());
        assertEquals(before, multiset(DeltaTableReader.readAll(uri)));
        for (JsonNode add : DeltaTableReader.actions(uri, result.version(), "add")) {
            JsonNode stats = DeltaTableReader.stats(add);
            assertEquals(stats.get("numRecords").asLong(), stats.get("nullCount").get("contact").asLong(), add.toString());
        }
    }

    private static Set<String> rewrittenTypes(String uri, long version) {
        return DeltaTableReader.actions(uri, version, "remove").stream()
                .map(r -> r.get("partitionValues").get("device_type").asText()).collect(Collectors.toSet());
    }

    private static Set<Map<String, String>> partitionValues(List<JsonNode> adds) {
        Set<Map<String, String>> out = new HashSet<>();
        for (JsonNode add : adds) {
            Map<String, String> values = new java.util.TreeMap<>();
            add.get("partitionValues").fields().forEachRemaining(e -> values.put(e.getKey(),
                    e.getValue().isNull() ? null : e.getValue().asText()));
            out.add(values);
        }
        return out;
    }

    static void assertNoFileRemovedTwice(String uri) {
        List<String> removed = DeltaTableReader.allActions(uri, "remove").stream().map(r -> r.get("path").asText())
                .toList();
        assertEquals(removed.size(), new HashSet<>(removed).size(), "a file removed twice: " + removed);
    }

    /** Every file some add action ever named, as a path below the table root (decoded). */
    private static Set<String> everAdded(String uri) {
        return DeltaTableReader.allActions(uri, "add").stream()
                .map(a -> java.net.URI.create(a.get("path").asText()).getPath()).collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> dataFilesOnDisk(StorageSettings storage) throws IOException {
        Path root = Path.of(java.net.URI.create(storage.tableUri()));
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".parquet"))
                    .filter(p -> !root.relativize(p).startsWith("_delta_log"))
                    .map(p -> root.relativize(p).toString()).collect(Collectors.toCollection(TreeSet::new));
        }
    }
}
