package io.deltasink.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.DataFile.FileStats;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;

class FooterStatsTest {
    static final int ROWS = 3000;
    static final String LONG_PREFIX = "this string is longer than 32 characters: ";

    static final RowSchema SCHEMA = new RowSchema(List.of(
            Column.of("p", ColumnType.STRING, true), // partition column, listed first
            Column.of("n", ColumnType.INT, false),
            Column.of("s", ColumnType.STRING, true),
            Column.of("long_s", ColumnType.STRING, true),
            Column.of("all_null", ColumnType.INT, true),
            Column.of("sh", ColumnType.SHORT, true),
            Column.of("by", ColumnType.BYTE, true),
            Column.of("l", ColumnType.LONG, true),
            Column.of("d", ColumnType.DOUBLE, true),
            Column.of("dt", ColumnType.DATE, true),
            Column.of("ts", ColumnType.TIMESTAMP, true),
            Column.of("bin", ColumnType.BINARY, true),
            new Column("dec9", ColumnType.DECIMAL, 9, 3, true),
            new Column("dec18", ColumnType.DECIMAL, 18, 2, true),
            new Column("dec38", ColumnType.DECIMAL, 38, 5, true)));

    @TempDir
    Path dir;

    /** Row i: "n" descends (max in the first row group, min in the last), most others ascend from negative. */
    static Object[] row(int i) {
        int centered = i - ROWS / 2;
        return new Object[] {"p1", ROWS - i, i % 7 == 0 ? null : String.format("s%05d", i),
            i % 5 == 0 ? null : LONG_PREFIX + i, null, (short) centered, (byte) (i % 200 - 100),
            (long) centered * 1_000_000_000_000L, centered / 4.0, 18_000 + i, 1_700_000_000_000_000L + i,
            new byte[] {(byte) i}, BigDecimal.valueOf(centered * 1000L + 1, 3), BigDecimal.valueOf(centered * 7L, 2),
            new BigDecimal(BigInteger.valueOf(centered).multiply(BigInteger.TEN.pow(30)), 5)};
    }

    private List<DataFile> write(WriterSettings settings) throws Exception {
        PartitionedWriter w = new PartitionedWriter(settings, SCHEMA, List.of("p"),
                ParquetTestFiles.hadoopPath(dir), new Configuration(), ParquetRoundTripTest.CLOCK);
        for (int i = 0; i < ROWS; i++) {
            w.write(row(i));
        }
        return w.finish();
    }

    @Test
    void statsAggregateAllRowGroups() throws Exception {
        List<DataFile> files = write(WriterSettings.defaults().withRowGroupSizeBytes(16 * 1024));
        assertEquals(1, files.size());
        DataFile file = files.get(0);

        // independent check that several row groups exist and a single one would give other answers
        ParquetMetadata footer = ParquetTestFiles.footer(dir.resolve(file.path()));
        List<BlockMetaData> blocks = footer.getBlocks();
        assertTrue(blocks.size() >= 3, "expected several row groups, got " + blocks.size());
        assertNotEquals(1, ((Number) blocks.get(0).getColumns().get(0).getStatistics().genericGetMin()).intValue());
        assertNotEquals(ROWS, ((Number) blocks.get(blocks.size() - 1).getColumns().get(0).getStatistics()
                .genericGetMax()).intValue());

        FileStats stats = file.stats();
        assertEquals(ROWS, stats.numRecords());
        int lo = -ROWS / 2;
        int hi = ROWS - 1 - ROWS / 2;
        Map<String, Object> min = stats.minValues();
        Map<String, Object> max = stats.maxValues();
        assertEquals(1, min.get("n"));
        assertEquals(ROWS, max.get("n"));
        assertEquals("s00001", min.get("s"));
        assertEquals(String.format("s%05d", ROWS - 1), max.get("s"));
        assertEquals((short) lo, min.get("sh"));
        assertEquals((short) hi, max.get("sh"));
        assertEquals((byte) -100, min.get("by"));
        assertEquals((byte) 99, max.get("by"));
        assertEquals(lo * 1_000_000_000_000L, min.get("l"));
        assertEquals(hi * 1_000_000_000_000L, max.get("l"));
        assertEquals(lo / 4.0, min.get("d"));
        assertEquals(hi / 4.0, max.get("d"));
        assertEquals(18_000, min.get("dt"));
        assertEquals(18_000 + ROWS - 1, max.get("dt"));
        assertEquals(1_700_000_000_000_000L, min.get("ts"));
        assertEquals(1_700_000_000_000_000L + ROWS - 1, max.get("ts"));
        assertEquals(BigDecimal.valueOf(lo * 1000L + 1, 3), min.get("dec9"));
        assertEquals(BigDecimal.valueOf(hi * 1000L + 1, 3), max.get("dec9"));
        assertEquals(BigDecimal.valueOf(lo * 7L, 2), min.get("dec18"));
        assertEquals(BigDecimal.valueOf(hi * 7L, 2), max.get("dec18"));
        assertEquals(new BigDecimal(BigInteger.valueOf(lo).multiply(BigInteger.TEN.pow(30)), 5), min.get("dec38"));
        assertEquals(new BigDecimal(BigInteger.valueOf(hi).multiply(BigInteger.TEN.pow(30)), 5), max.get("dec38"));

        // long strings whole (the table layer cuts them to a prefix)
        assertEquals(LONG_PREFIX + 1, min.get("long_s"));
        assertEquals(LONG_PREFIX + 999, max.get("long_s"));
        // no bounds: binary, all-null columns; never partition columns
        for (String none : List.of("bin", "all_null", "p")) {
            assertFalse(min.containsKey(none), none);
            assertFalse(max.containsKey(none), none);
        }
        Map<String, Long> nulls = stats.nullCount();
        assertFalse(nulls.containsKey("p"));
        assertEquals(0L, nulls.get("n"));
        assertEquals(countMultiples(7), nulls.get("s"));
        assertEquals(countMultiples(5), nulls.get("long_s"));
        assertEquals((long) ROWS, nulls.get("all_null"));
        assertEquals(0L, nulls.get("bin"));
        assertEquals(14, nulls.size());
    }

    @Test
    void onlyTheFirstDataColumnsGetStats() throws Exception {
        FileStats stats = write(WriterSettings.defaults().withStatsColumns(2)).get(0).stats();
        assertEquals(ROWS, stats.numRecords());
        assertEquals(Set.of("n", "s"), stats.nullCount().keySet());
        assertEquals(Set.of("n", "s"), stats.minValues().keySet());
        assertEquals(Set.of("n", "s"), stats.maxValues().keySet());
    }

    @Test
    void zeroStatsColumnsStillCountRecords() throws Exception {
        FileStats stats = write(WriterSettings.defaults().withStatsColumns(0)).get(0).stats();
        assertEquals(ROWS, stats.numRecords());
        assertTrue(stats.minValues().isEmpty() && stats.maxValues().isEmpty() && stats.nullCount().isEmpty());
    }

    @Test
    void aFileHoldingNaNKeepsItsMinimumAndHasNoMaximum() throws Exception {
        RowSchema schema = new RowSchema(List.of(Column.of("id", ColumnType.INT, false),
                Column.of("d", ColumnType.DOUBLE, true), Column.of("f", ColumnType.FLOAT, true)));
        PartitionedWriter w = new PartitionedWriter(WriterSettings.defaults(), schema, List.of(),
                ParquetTestFiles.hadoopPath(dir), new Configuration(), ParquetRoundTripTest.CLOCK);
        w.write(new Object[] {1, 2.0, 2.0f});
        w.write(new Object[] {2, Double.NaN, Float.NaN});
        w.write(new Object[] {3, -1.0, -1.0f});
        DataFile file = w.finish().get(0);

        // what parquet-java 1.16 does: the writer orders NaN above every number (the chunk's maximum
        // is NaN), and a reader of the footer drops both bounds of such a chunk
        org.apache.parquet.column.statistics.Statistics<?> written = ParquetTestFiles.footer(dir.resolve(file.path()))
                .getBlocks().get(0).getColumns().get(1).getStatistics();
        assertFalse(written.hasNonNullValue(), "read back, a chunk holding NaN has no bounds: " + written);

        assertEquals(Map.of("d", -1.0, "f", -1.0f, "id", 1), file.stats().minValues());
        assertEquals(Map.of("id", 3), file.stats().maxValues(), "no maximum for a column holding NaN");
    }

    @Test
    void aNaNMaximumIsNoBoundAndStringsStayWhole() {
        Column d = Column.of("d", ColumnType.DOUBLE, true);
        assertEquals(null, FooterStats.toRowValue(d, Double.NaN));
        assertEquals(Double.NEGATIVE_INFINITY, FooterStats.toRowValue(d, Double.NEGATIVE_INFINITY));
        assertEquals(null, FooterStats.toRowValue(Column.of("f", ColumnType.FLOAT, true), Float.NaN));
        String longText = "x".repeat(31) + "\u00e9\uD83D\uDE00" + "y".repeat(100);
        assertEquals(longText, FooterStats.toRowValue(Column.of("s", ColumnType.STRING, true),
                org.apache.parquet.io.api.Binary.fromString(longText)));
    }

    private static long countMultiples(int k) {
        List<Integer> hits = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            if (i % k == 0) {
                hits.add(i);
            }
        }
        return hits.size();
    }
}
