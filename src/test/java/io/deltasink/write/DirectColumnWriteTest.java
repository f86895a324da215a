package io.deltasink.write;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.model.Column;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;
import io.deltasink.table.DeltaTable;
import io.deltasink.table.TableSnapshot;
import io.deltasink.testing.DeltaTableReader;
import io.delta.kernel.defaults.engine.DefaultEngine;

/**
 * The connector encodes values into column buffers of its own ({@link RowColumns},
 * {@link ColumnChunkBuffer} in {@link OpenFile}); Parquet's record API ({@link RowWriteSupport}) is
 * the reference. The bytes differ (page boundaries, run encodings), so for the same rows and
 * settings both files must read back the same values (Parquet's reader, Kernel), give the table
 * the same statistics, have the same chunk statistics, value counts and rows, and start the same
 * columns with a dictionary: every column type (decimals of each physical width), nulls, NaN,
 * -0.0 and infinities, empty, non-ASCII and 1 MiB strings, many pages and row groups, a dictionary
 * given up in the middle of the file, columns without a dictionary, each codec.
 */
class DirectColumnWriteTest {
    private static final RowSchema SCHEMA = ParquetRoundTripTest.ALL_TYPES;
    private static final int ROWS = 20_000;

    @TempDir
    Path dir;
    private int filesWritten;

    @Test
    void everyTypeGivesTheRecordApisValuesAndStatisticsAcrossRowGroupsAndPages() throws Exception {
        List<Object[]> rows = rows(ROWS, 1);
        // 64 KiB row groups and 4 KiB pages: many of both; column s gives its dictionary up mid-file
        WriterSettings settings = WriterSettings.defaults().withRowGroupSizeBytes(64 * 1024).withPageSizeBytes(4096);
        ParquetMetadata footer = assertSameFile(rows, settings, Set.of());

        assertTrue(footer.getBlocks().size() > 5, footer.getBlocks().size() + " row groups");
        List<BlockMetaData> blocks = footer.getBlocks();
        assertTrue(column(blocks.get(0), "s").getEncodingStats().hasDictionaryPages()
                && !column(blocks.get(0), "s").getEncodingStats().hasNonDictionaryEncodedPages(), "s starts with a dictionary");
        assertTrue(blocks.stream().map(b -> column(b, "s").getEncodingStats())
                .anyMatch(e -> e.hasDictionaryPages() && e.hasNonDictionaryEncodedPages()),
                "s gives its dictionary up after pages were written with it");
        assertTrue(!column(blocks.get(blocks.size() - 1), "s").getEncodingStats().hasDictionaryPages(),
                "s has no dictionary at the end");
        Set<String> fallbacks = OpenFile.dictionaryFallbacks(footer);
        assertTrue(fallbacks.contains("s") && !fallbacks.contains("b"), fallbacks.toString());
    }

    @Test
    void columnsWithoutDictionaryAndEachCodecGiveTheRecordApisValuesAndStatistics() throws Exception {
        List<Object[]> rows = rows(3_000, 2);
        for (String codec : WriterSettings.COMPRESSIONS) {
            WriterSettings settings = WriterSettings.defaults().withCompression(codec)
                    .withRowGroupSizeBytes(256 * 1024).withPageSizeBytes(8192);
            assertSameFile(rows, settings, Set.of("s", "l", "dec38", "bin"));
        }
    }

    @Test
    void randomRowsMatchTheRecordApiAcrossSeedsPageSizesAndCodecs() throws Exception {
        int[] pageSizes = {1024, 4096, 64 * 1024};
        for (int seed = 10; seed < 16; seed++) {
            String codec = WriterSettings.COMPRESSIONS.get(seed % WriterSettings.COMPRESSIONS.size());
            WriterSettings settings = WriterSettings.defaults().withCompression(codec)
                    .withRowGroupSizeBytes(seed % 2 == 0 ? 32 * 1024 : 1024 * 1024)
                    .withPageSizeBytes(pageSizes[seed % pageSizes.length]);
            assertSameFile(rows(seed == 10 ? 5_000 : 1_500, seed), settings, seed % 3 == 0 ? Set.of("i", "bin") : Set.of());
        }
    }

    @Test
    void nullsFirstMetLateInAPageGiveTheRecordApisValues() throws Exception {
        // a page keeps no definition bits until its first null: nulls first met at and beside the
        // 64-value words' edges and late in pages, pages without a null, a stretch of nulls only
        List<Object[]> rows = rows(6_000, 30);
        for (int id = 0; id < rows.size(); id++) {
            Object[] row = rows.get(id);
            row[2] = id % 1_000 == 999 ? null : id;
            row[5] = id % 64 == 63 ? null : (long) id;
            row[6] = id % 129 == 64 ? null : id / 3.0;
            row[8] = id >= 3_000 && id < 3_500 ? null : id % 3 == 0;
            row[10] = id % 700 == 0 ? null : 19_000 + id % 50;
        }
        for (int pageBytes : new int[] {1024, 64 * 1024}) {
            assertSameFile(rows, WriterSettings.defaults().withRowGroupSizeBytes(64 * 1024).withPageSizeBytes(pageBytes),
                    Set.of());
        }
    }

    @Test
    void floatingPointEdgesGiveTheRecordApisStatistics() throws Exception {
        WriterSettings settings = WriterSettings.defaults().withRowGroupSizeBytes(16 * 1024).withPageSizeBytes(1024);
        double[][] doubles = {{Double.NaN}, {-0.0, 0.0}, {0.0, -0.0}, {0.0}, {-0.0}, {Double.NaN, 1.5, -2.5},
                {Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN}, {Double.MIN_VALUE, -Double.MIN_VALUE}};
        for (double[] values : doubles) {
            List<Object[]> rows = rows(600, 20);
            for (int r = 0; r < rows.size(); r++) {
                double d = values[r % values.length];
                rows.get(r)[6] = d;
                rows.get(r)[7] = (float) d;
            }
            assertSameFile(rows, settings, Set.of());
        }
    }

    @Test
    void filesRolledAtTheTargetSizeReadBackThroughKernel() throws Exception {
        List<Object[]> rows = rows(ROWS, 3);
        WriterSettings settings = WriterSettings.defaults().withRowGroupSizeBytes(128 * 1024).withPageSizeBytes(8192)
                .withTargetFileSizeBytes(512 * 1024);
        Path table = dir.resolve("table");
        PartitionedWriter writer = new PartitionedWriter(settings, SCHEMA, List.of(),
                ParquetTestFiles.hadoopPath(table), new Configuration(), ParquetRoundTripTest.CLOCK);
        for (Object[] row : rows) {
            writer.write(row);
        }
        List<DataFile> files = writer.finish();
        assertTrue(files.size() >= 3, files.size() + " files");
        // rolled when written plus buffered (uncompressed) bytes reach the target: a file ends at the
        // row that passes it, so a 1 MiB string of one letter (a few KiB compressed) ends one early
        assertTrue(files.stream().allMatch(f -> f.size() < 2 * 512 * 1024), files.toString());
        assertTrue(files.stream().filter(f -> f.size() >= 512 * 1024 / 2).count() >= 2, files.toString());
        assertEquals(ROWS, files.stream().mapToLong(f -> f.stats().numRecords()).sum());

        DeltaTable delta = new DeltaTable(DefaultEngine.create(new Configuration()), table.toUri().toString());
        TableSnapshot base = delta.createOrCheck(SCHEMA, List.of(), Map.of(), "test");
        delta.commitAppend(base, files, Map.of("app", 1L), "test");
        List<Map<String, Object>> read = DeltaTableReader.readAll(table.toUri().toString());
        assertEquals(ROWS, read.size());
        Map<Integer, Map<String, Object>> byId = new HashMap<>();
        read.forEach(r -> byId.put((Integer) r.get("id"), r));
        for (Object[] row : rows) {
            Map<String, Object> got = byId.get((Integer) row[0]);
            for (int c = 0; c < SCHEMA.size(); c++) {
                Column column = SCHEMA.column(c);
                Object expected = kernelForm(column, row[c]);
                if (expected instanceof byte[] bytes) {
                    assertArrayEquals(bytes, (byte[]) got.get(column.name()), column.name());
                } else {
                    assertEquals(expected, got.get(column.name()), column.name() + " of row " + row[0]);
                }
            }
        }
    }

    @Test
    void aLargeValueCountsAgainstTheBoundAtOnceBetweenMeasurements() throws Exception {
        Configuration conf = new Configuration();
        WriterSettings settings = WriterSettings.defaults();
        PartitionSpecColumns spec = PartitionSpecColumns.of(SCHEMA);
        OpenFile file = OpenFile.create(FileSystem.getLocal(conf), ParquetTestFiles.hadoopPath(dir.resolve("f.parquet")),
                "f.parquet", Map.of(), new RowColumns(spec.columns, spec.indexes), settings,
                new SharedCompressor(conf, settings.codec()), Set.of());
        List<Object[]> rows = rows(4, 4);
        file.write(rows.get(0)); // the first row is measured
        file.write(rows.get(1)); // the second is not
        long before = file.bufferedBytes();
        Object[] large = rows.get(2).clone();
        large[1] = "y".repeat(100_000);
        file.write(large);
        assertTrue(file.bufferedBytes() >= before + 100_000, before + " -> " + file.bufferedBytes());
        file.closeForAbort();
    }

    /**
     * Writes the rows with the direct path (an {@link OpenFile}) and with Parquet's record API under
     * the same settings, asserts the files are equal, the rows read back, and the statistics the
     * table gets equal the record API file's; returns the footer.
     */
    private ParquetMetadata assertSameFile(List<Object[]> rows, WriterSettings settings, Set<String> plain)
            throws Exception {
        Configuration conf = new Configuration();
        FileSystem fs = FileSystem.getLocal(conf);
        PartitionSpecColumns spec = PartitionSpecColumns.of(SCHEMA);
        SharedCompressor compressor = new SharedCompressor(conf, settings.codec());
        int n = ++filesWritten;
        Path direct = dir.resolve("direct-" + n + "-" + settings.compression() + ".parquet");
        OpenFile file = OpenFile.create(fs, ParquetTestFiles.hadoopPath(direct), direct.getFileName().toString(),
                Map.of(), new RowColumns(spec.columns, spec.indexes), settings, compressor, plain);
        for (Object[] row : rows) {
            file.write(row);
        }
        DataFile described = file.close(spec.columns, 0L);

        Path reference = dir.resolve("record-api-" + n + "-" + settings.compression() + ".parquet");
        RowParquetWriterBuilder builder = new RowParquetWriterBuilder(
                new CountingOutputFile(fs, ParquetTestFiles.hadoopPath(reference)),
                new RowWriteSupport(spec.columns, spec.indexes));
        plain.forEach(c -> builder.withDictionaryEncoding(c, false));
        ParquetMetadata referenceFooter;
        try (ParquetWriter<Object[]> writer = settings.configure(builder, compressor, conf).build()) {
            for (Object[] row : rows) {
                writer.write(row);
            }
            writer.close();
            referenceFooter = writer.getFooter();
        }

        assertEquals(Files.size(direct), described.size());

        ParquetMetadata footer = ParquetTestFiles.footer(direct);
        // the statistics as the writer holds them at close (what the table gets), not as read back
        assertEquals(FooterStats.of(referenceFooter, spec.columns), described.stats());
        // as read back: every column's chunk statistics and value counts over the file, and which
        // columns start with a dictionary
        ParquetMetadata referenceRead = ParquetTestFiles.footer(reference);
        assertEquals(fileColumns(referenceRead), fileColumns(footer), settings.compression() + ", plain " + plain);
        assertEquals(referenceRead.getBlocks().stream().mapToLong(BlockMetaData::getRowCount).sum(),
                footer.getBlocks().stream().mapToLong(BlockMetaData::getRowCount).sum());
        assertEquals(dictionaryColumns(referenceRead.getBlocks().get(0)), dictionaryColumns(footer.getBlocks().get(0)));
        assertPageIndexes(direct, footer);
        List<Group> read = ParquetTestFiles.readRows(direct);
        assertEquals(rows.size(), read.size());
        for (int r = 0; r < rows.size(); r++) {
            ParquetRoundTripTest.assertRow(rows.get(r), read.get(r));
        }
        for (String column : plain) {
            for (BlockMetaData block : footer.getBlocks()) {
                assertTrue(!column(block, column).getEncodingStats().hasDictionaryPages(), column);
            }
        }
        return footer;
    }

    /**
     * Per column over all row groups: values, nulls, and min and max by the column's comparator, as
     * strings. Not the bounds of floats and doubles: Parquet's reader drops those of a chunk holding a
     * NaN, so they depend on where row groups end (the writer's own, compared through
     * {@link FooterStats}, do not).
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static List<String> fileColumns(ParquetMetadata footer) {
        List<String> out = new ArrayList<>();
        int columns = footer.getBlocks().get(0).getColumns().size();
        for (int c = 0; c < columns; c++) {
            long values = 0;
            long nulls = 0;
            Comparable min = null;
            Comparable max = null;
            boolean allBounds = true;
            org.apache.parquet.column.statistics.Statistics<?> first = null;
            for (BlockMetaData block : footer.getBlocks()) {
                ColumnChunkMetaData chunk = block.getColumns().get(c);
                values += chunk.getValueCount();
                var s = chunk.getStatistics();
                nulls += s.getNumNulls();
                if (!s.hasNonNullValue()) {
                    allBounds &= s.getNumNulls() == chunk.getValueCount();
                    continue;
                }
                first = s;
                var cmp = (org.apache.parquet.schema.PrimitiveComparator) s.comparator();
                if (min == null || cmp.compare(s.genericGetMin(), min) < 0) {
                    min = s.genericGetMin();
                }
                if (max == null || cmp.compare(s.genericGetMax(), max) > 0) {
                    max = s.genericGetMax();
                }
            }
            ColumnChunkMetaData firstChunk = footer.getBlocks().get(0).getColumns().get(c);
            String name = firstChunk.getPath().toDotString();
            var physical = firstChunk.getPrimitiveType().getPrimitiveTypeName();
            if (physical == org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.FLOAT
                    || physical == org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.DOUBLE) {
                out.add(name + ": values " + values + ", nulls " + nulls);
                continue;
            }
            out.add(name + ": values " + values + ", nulls " + nulls + ", bounds " + allBounds + ", min "
                    + (first == null ? "-" : bound(min)) + ", max "
                    + (first == null ? "-" : bound(max)));
        }
        return out;
    }

    private static String bound(Object value) {
        return value instanceof org.apache.parquet.io.api.Binary b ? Arrays.toString(b.getBytes()) : String.valueOf(value);
    }

    private static List<String> dictionaryColumns(BlockMetaData block) {
        return block.getColumns().stream().filter(c -> c.getEncodingStats().hasDictionaryPages())
                .map(c -> c.getPath().toDotString()).toList();
    }

    /**
     * Every chunk has an offset index whose pages cover the row group's rows, and a column index with
     * one entry per page (Parquet's file writer builds both from the pages' statistics and row counts).
     */
    private static void assertPageIndexes(Path file, ParquetMetadata footer) throws Exception {
        try (var reader = org.apache.parquet.hadoop.ParquetFileReader.open(
                org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(ParquetTestFiles.hadoopPath(file),
                        new Configuration()))) {
            for (BlockMetaData block : footer.getBlocks()) {
                for (ColumnChunkMetaData chunk : block.getColumns()) {
                    var offsets = reader.readOffsetIndex(chunk);
                    int pages = offsets.getPageCount();
                    assertEquals(block.getRowCount() - 1, offsets.getLastRowIndex(pages - 1, block.getRowCount()),
                            chunk.getPath().toDotString());
                    assertEquals(0, offsets.getFirstRowIndex(0));
                    var index = reader.readColumnIndex(chunk);
                    if (index != null) {
                        assertEquals(pages, index.getNullCounts().size(), chunk.getPath().toDotString());
                        long nulls = index.getNullCounts().stream().mapToLong(Long::longValue).sum();
                        assertEquals(chunk.getStatistics().getNumNulls(), nulls, chunk.getPath().toDotString());
                    }
                }
            }
        }
    }

    private static ColumnChunkMetaData column(BlockMetaData block, String name) {
        return block.getColumns().stream().filter(c -> c.getPath().toDotString().equals(name)).findFirst()
                .orElseThrow();
    }

    /** Rows of every type: nulls, extremes, NaN and -0.0, empty, non-ASCII and a few 1 MiB strings. */
    static List<Object[]> rows(int count, long seed) {
        Random random = new Random(seed);
        String big = "x".repeat(1024 * 1024 - 1) + "é";
        List<Object[]> rows = new ArrayList<>(count);
        for (int id = 0; id < count; id++) {
            int variant = random.nextInt(10);
            Object[] row = new Object[SCHEMA.size()];
            row[0] = id;
            // repeated values in the first half (a dictionary), unique ones after (given up mid-file)
            row[1] = id % 5_000 == 4_003 ? big : switch (variant) {
                case 0 -> null;
                case 1 -> "";
                case 2 -> "ünïcødé ✓ 日本 " + random.nextInt(50);
                default -> id < count / 2 ? "repeated " + (id % 7) : "unique " + id + " " + random.nextLong();
            };
            row[2] = variant == 0 ? null : random.nextInt();
            row[3] = variant == 1 ? null : (short) random.nextInt(1 << 16);
            row[4] = variant == 2 ? null : (byte) random.nextInt(256);
            row[5] = variant == 3 ? null : random.nextLong();
            row[6] = switch (variant) {
                case 4 -> null;
                case 5 -> Double.NaN;
                case 6 -> -0.0d;
                case 7 -> 0.0d;
                default -> random.nextGaussian() * 1e6;
            };
            row[7] = switch (variant) {
                case 4 -> Float.NaN;
                case 5 -> -0.0f;
                case 6 -> null;
                default -> random.nextFloat() * 100 - 50;
            };
            row[8] = variant == 7 ? null : random.nextBoolean();
            byte[] bytes = new byte[variant * 3];
            random.nextBytes(bytes);
            row[9] = variant == 8 ? null : bytes;
            row[10] = variant == 9 ? null : 19_000 + random.nextInt(2_000);
            row[11] = variant == 0 ? null : 1_700_000_000_000_000L + random.nextInt(1_000_000_000);
            row[12] = variant == 1 ? null : BigDecimal.valueOf(random.nextInt(2_000_000_000) - 1_000_000_000, 2)
                    .remainder(BigDecimal.valueOf(10_000_000, 0)).setScale(2);
            row[13] = variant == 2 ? null : BigDecimal.valueOf(random.nextLong() % 999_999_999_999_999_999L, 4);
            row[14] = variant == 3 ? null : new BigDecimal(new BigInteger(120, random)
                    .multiply(BigInteger.valueOf(variant % 2 == 0 ? 1 : -1)), 10);
            row[15] = new BigDecimal(new BigInteger(64, random).subtract(BigInteger.ONE.shiftLeft(63)), 0);
            if (id == 1) {
                row = ParquetRoundTripTest.full(id, false);
            } else if (id == 2) {
                row = ParquetRoundTripTest.full(id, true);
            } else if (id == 4) {
                row = ParquetRoundTripTest.nulls(id);
            }
            rows.add(row);
        }
        return rows;
    }

    private static Object kernelForm(Column column, Object value) {
        if (value == null) {
            return null;
        }
        return switch (column.type()) {
            case DATE -> LocalDate.ofEpochDay((Integer) value);
            case TIMESTAMP -> Instant.ofEpochSecond(Math.floorDiv((Long) value, 1_000_000L),
                    Math.floorMod((Long) value, 1_000_000L) * 1000L);
            default -> value;
        };
    }

    /** All columns of the schema are data columns here (no partitions): file order = row order. */
    private record PartitionSpecColumns(List<Column> columns, int[] indexes) {
        static PartitionSpecColumns of(RowSchema schema) {
            List<Column> columns = new ArrayList<>();
            for (int i = 0; i < schema.size(); i++) {
                columns.add(schema.column(i));
            }
            int[] indexes = new int[columns.size()];
            Arrays.setAll(indexes, i -> i);
            return new PartitionSpecColumns(columns, indexes);
        }
    }
}
