package io.deltasink.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.DataFile;
import io.deltasink.model.PartitionSpec;
import io.deltasink.model.RowSchema;

class PartitionLayoutTest {
    static final RowSchema SCHEMA = new RowSchema(List.of(
            Column.of("id", ColumnType.INT, false),
            Column.of("dev", ColumnType.STRING, true),
            Column.of("name", ColumnType.STRING, true),
            Column.of("day", ColumnType.DATE, true),
            Column.of("ts", ColumnType.TIMESTAMP, true)));
    static final String FILE_NAME = "part-\\d{5}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
            + "\\.c000\\.snappy\\.parquet";

    @TempDir
    Path dir;

    PartitionedWriter writer(RowSchema schema, List<String> partitions) throws Exception {
        return new PartitionedWriter(WriterSettings.defaults(), schema, partitions,
                ParquetTestFiles.hadoopPath(dir), new Configuration(), ParquetRoundTripTest.CLOCK);
    }

    @Test
    void partitionFoldersAreEscapedAndPartitionColumnsStayOutOfTheFiles() throws Exception {
        PartitionedWriter w = writer(SCHEMA, List.of("dev", "day", "ts"));
        // 2024-01-01 = day 19723; 2024-01-01T00:00:00.123456Z in micros
        w.write(new Object[] {1, "a/b:c=d%e#f?g", "x", 19723, 1_704_067_200_123_456L});
        w.write(new Object[] {2, null, "y", null, null});
        w.write(new Object[] {3, "", "z", null, null}); // empty string partition value = null, as in Spark
        w.write(new Object[] {4, "a/b:c=d%e#f?g", "x2", 19723, 1_704_067_200_123_456L});
        List<DataFile> files = w.finish();
        assertEquals(2, files.size());
        DataFile escaped = files.stream().filter(f -> f.partitionValues().get("dev") != null).findFirst().orElseThrow();
        DataFile nulls = files.stream().filter(f -> f.partitionValues().get("dev") == null).findFirst().orElseThrow();
        String escapedDir = "dev=a%2Fb%3Ac%3Dd%25e%23f%3Fg/day=2024-01-01/ts=2024-01-01 00%3A00%3A00.123456/";
        assertTrue(escaped.path().startsWith(escapedDir), escaped.path());
        assertTrue(escaped.path().substring(escapedDir.length()).matches(FILE_NAME), escaped.path());
        Map<String, String> expectedValues = new HashMap<>();
        expectedValues.put("dev", "a/b:c=d%e#f?g");
        expectedValues.put("day", "2024-01-01");
        expectedValues.put("ts", "2024-01-01 00:00:00.123456");
        assertEquals(expectedValues, escaped.partitionValues());
        assertEquals(List.of("dev", "day", "ts"), List.copyOf(escaped.partitionValues().keySet()));

        String nullDir = "dev=__HIVE_DEFAULT_PARTITION__/day=__HIVE_DEFAULT_PARTITION__/ts=__HIVE_DEFAULT_PARTITION__/";
        assertTrue(nulls.path().startsWith(nullDir), nulls.path());
        assertEquals(Set.of("dev", "day", "ts"), nulls.partitionValues().keySet());
        assertTrue(nulls.partitionValues().values().stream().allMatch(v -> v == null), nulls.toString());

        // the folders really exist with these literal names, and hold only the data columns
        Path escapedFile = dir.resolve(escaped.path());
        assertTrue(Files.isRegularFile(escapedFile));
        List<String> fileColumns = ParquetTestFiles.footer(escapedFile).getFileMetaData().getSchema().getFields()
                .stream().map(Type::getName).toList();
        assertEquals(List.of("id", "name"), fileColumns);
        List<Group> rows = ParquetTestFiles.readRows(escapedFile);
        assertEquals(List.of(1, 4), rows.stream().map(g -> g.getInteger("id", 0)).toList());
        assertEquals(List.of(2, 3), ParquetTestFiles.readRows(dir.resolve(nulls.path())).stream()
                .map(g -> g.getInteger("id", 0)).toList());
        // the partition stats never name partition columns
        assertEquals(Set.of("id", "name"), escaped.stats().nullCount().keySet());
    }

    @Test
    void fileNamesAreAsciiWhateverTheDefaultLocale() throws Exception {
        Locale before = Locale.getDefault(Locale.Category.FORMAT);
        Locale.setDefault(Locale.Category.FORMAT, Locale.forLanguageTag("ar-SA")); // Arabic-Indic digits
        try {
            PartitionedWriter w = writer(SCHEMA, List.of("day"));
            w.write(new Object[] {1, "d", "n", 19723, 2L});
            String path = w.finish().get(0).path();
            assertTrue(path.matches("day=2024-01-01/" + FILE_NAME), path);
        } finally {
            Locale.setDefault(Locale.Category.FORMAT, before);
        }
    }

    @Test
    void withoutPartitionColumnsFilesLandAtTheRoot() throws Exception {
        PartitionedWriter w = writer(SCHEMA, List.of());
        w.write(new Object[] {1, "d", "n", 1, 2L});
        DataFile file = w.finish().get(0);
        assertTrue(file.path().matches(FILE_NAME), file.path());
        assertTrue(file.partitionValues().isEmpty());
        assertTrue(Files.isRegularFile(dir.resolve(file.path())));
        assertEquals(5, ParquetTestFiles.footer(dir.resolve(file.path())).getFileMetaData().getSchema().getFieldCount());
    }

    @Test
    void partitionValuesFollowTheDeltaProtocol() {
        assertEquals("2024-02-29", PartitionFormat.serialize(Column.of("d", ColumnType.DATE, true), 19782));
        assertEquals("1969-12-31", PartitionFormat.serialize(Column.of("d", ColumnType.DATE, true), -1));
        Column ts = Column.of("t", ColumnType.TIMESTAMP, true);
        assertEquals("1970-01-01 00:00:00.000000", PartitionFormat.serialize(ts, 0L));
        assertEquals("1969-12-31 23:59:59.999999", PartitionFormat.serialize(ts, -1L));
        assertEquals("2026-06-22 10:11:12.000007", PartitionFormat.serialize(ts, 1_782_123_072_000_007L));
        assertEquals("1.50", PartitionFormat.serialize(new Column("x", ColumnType.DECIMAL, 5, 2, true),
                new BigDecimal("1.50")));
        assertEquals("10000000000000000000", PartitionFormat.serialize(new Column("x", ColumnType.DECIMAL, 20, 0, true),
                new BigDecimal("1E+19").setScale(0)));
        assertEquals("-7", PartitionFormat.serialize(Column.of("x", ColumnType.BYTE, true), (byte) -7));
        assertEquals("123456789012", PartitionFormat.serialize(Column.of("x", ColumnType.LONG, true), 123456789012L));
        assertEquals("true", PartitionFormat.serialize(Column.of("x", ColumnType.BOOLEAN, true), true));
        assertEquals("plain", PartitionFormat.serialize(Column.of("x", ColumnType.STRING, true), "plain"));
        assertNull(PartitionFormat.serialize(Column.of("x", ColumnType.INT, true), null));
    }

    @Test
    void escapingMatchesHiveAndKeepsFolderNamesAscii() {
        assertEquals("a%01b%7F%5Bc%5D%7Bd%5E%27%22%2A%5C", PartitionFormat.escapePathName("a\u0001b\u007F[c]{d^'\"*\\"));
        assertEquals("%00%0A%09 x .. . -_.~+,;!$&()@", PartitionFormat.escapePathName("\u0000\n\t x .. . -_.~+,;!$&()@"));
        // non-ASCII as UTF-8 bytes: one, two, three and four bytes per character
        assertEquals("h%C3%A9llo %E6%97%A5%F0%9F%98%80", PartitionFormat.escapePathName("h\u00e9llo \u65e5\uD83D\uDE00"));
        // what looks like an escape is escaped again, so distinct values give distinct folders
        assertEquals("%252F %25C3%25BC", PartitionFormat.escapePathName("%2F %C3%BC"));
        assertEquals("a%3Fb", PartitionFormat.escapePathName("a\uD800b")); // a lone surrogate
        assertEquals("plain", PartitionFormat.escapePathName("plain"));
    }

    @Test
    void aPartitionValueTooLongForAFolderNameIsRejectedNamingTheColumn() throws Exception {
        PartitionedWriter w = writer(SCHEMA, List.of("dev"));
        String fits = "x".repeat(PartitionFormat.MAX_FOLDER_NAME_BYTES - "dev=".length());
        w.write(new Object[] {1, fits, "n", null, null});
        // 63 emoji: 252 characters as UTF-16, 756 bytes once escaped
        String emoji = "\uD83D\uDE00".repeat(63);
        for (String tooLong : List.of(fits + "y", emoji, "/".repeat(90))) {
            RowRejectedException e = assertThrows(RowRejectedException.class,
                    () -> w.write(new Object[] {2, tooLong, "n", null, null}));
            assertEquals("dev", e.column());
            assertEquals(tooLong, e.value());
            assertTrue(e.getMessage().contains("255"), e.getMessage());
        }
        // nothing of the rejected rows was written; the writer goes on
        w.write(new Object[] {3, "ok", "n", null, null});
        List<DataFile> files = w.finish();
        assertEquals(2, files.size());
        assertEquals(2L, files.stream().mapToLong(f -> f.stats().numRecords()).sum());
        try (Stream<Path> all = Files.list(dir)) {
            assertEquals(Set.of("dev=" + fits, "dev=ok"), all.map(p -> p.getFileName().toString())
                    .collect(Collectors.toSet()));
        }
    }

    @Test
    void partitionFoldersTooLongTogetherForAnObjectKeyAreRejectedNamingTheLongestColumn() throws Exception {
        RowSchema wide = new RowSchema(List.of(Column.of("id", ColumnType.INT, false),
                Column.of("a", ColumnType.STRING, true), Column.of("b", ColumnType.STRING, true),
                Column.of("c", ColumnType.STRING, true), Column.of("d", ColumnType.STRING, true),
                Column.of("e", ColumnType.STRING, true)));
        PartitionedWriter w = writer(wide, List.of("a", "b", "c", "d", "e"));
        String v = "v".repeat(200); // each folder name fits in 255 bytes, all five do not fit in a 1024-byte key
        RowRejectedException e = assertThrows(RowRejectedException.class,
                () -> w.write(new Object[] {1, v, v, v + "w", v, v}));
        assertEquals("c", e.column());
        assertTrue(e.getMessage().contains("1024"), e.getMessage());
        w.write(new Object[] {2, "x", "x", "x", "x", "x"});
        assertEquals(1, w.finish().size());
    }

    @Test
    void badPartitionColumnsAreRejectedAtConstructionByTheSharedRules() {
        RowSchema withBinary = new RowSchema(List.of(Column.of("id", ColumnType.INT, false),
                Column.of("raw", ColumnType.BINARY, true)));
        Map<RowSchema, List<List<String>>> cases = Map.of(withBinary, List.of(List.of("raw")),
                SCHEMA, List.of(List.of("nope"), List.of("dev", "dev"), List.of("id", "dev", "name", "day", "ts")));
        cases.forEach((schema, specs) -> specs.forEach(partitions -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> writer(schema, partitions));
            assertEquals(String.join("; ", PartitionSpec.problems(schema, partitions)), e.getMessage());
        }));
    }

    @Test
    void oneOpenFilePerPartitionTuple() throws Exception {
        PartitionedWriter w = writer(SCHEMA, List.of("dev", "day"));
        for (int i = 0; i < 30; i++) {
            w.write(new Object[] {i, "d" + (i % 3), "n", i % 2, 0L});
        }
        List<DataFile> files = w.finish();
        assertEquals(0, w.openFiles());
        assertEquals(6, files.size());
        Map<String, Long> perFolder = files.stream().collect(Collectors.toMap(
                f -> f.path().substring(0, f.path().lastIndexOf('/')), f -> f.stats().numRecords()));
        assertEquals(5L, perFolder.get("dev=d1/day=1970-01-02"));
        assertFalse(perFolder.containsKey("dev=d1"));
        assertEquals(30L, perFolder.values().stream().mapToLong(Long::longValue).sum());
    }
}
