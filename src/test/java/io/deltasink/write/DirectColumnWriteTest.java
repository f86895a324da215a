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
 * The connector writes values straight to Parquet's column writers ({@link RowColumns} in
 * {@link OpenFile}); Parquet's record API ({@link RowWriteSupport}) is the reference. For the same
 * rows and settings both must give the same file, byte for byte: every column type (decimals of
 * each physical width), nulls, NaN and -0.0, empty, non-ASCII and 1 MiB strings, many pages and
 * row groups, a dictionary given up in the middle of the file, columns without a dictionary, each
 * codec. The values read back through Parquet's own reader and through Kernel, and the footer
 * statistics, are checked on their own as well.
 */
class DirectColumnWriteTest {
    private static final RowSchema SCHEMA = ParquetRoundTripTest.ALL_TYPES;
    private static final int ROWS = 20_000;

    @TempDir
    Path dir;

    @Test
    void everyTypeGivesTheRecordApisFileByteForByteAcrossRowGroupsAndPages() throws Exception {
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
    void columnsWithoutDictionaryAndEachCodecGiveTheRecordApisFile() throws Exception {
        List<Object[]> rows = rows(3_000, 2);
        for (String codec : WriterSettings.COMPRESSIONS) {
            WriterSettings settings = WriterSettings.defaults().withCompression(codec)
                    .withRowGroupSizeBytes(256 * 1024).withPageSizeBytes(8192);
            assertSameFile(rows, settings, Set.of("s", "l", "dec38", "bin"));
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
        Path direct = dir.resolve("direct-" + settings.compression() + ".parquet");
        OpenFile file = OpenFile.create(fs, ParquetTestFiles.hadoopPath(direct), direct.getFileName().toString(),
                Map.of(), new RowColumns(spec.columns, spec.indexes), settings, compressor, plain);
        for (Object[] row : rows) {
            file.write(row);
        }
        DataFile described = file.close(spec.columns, 0L);

        Path reference = dir.resolve("record-api-" + settings.compression() + ".parquet");
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
        System.out.println("ROWGROUPS ours " + footerRowCounts(ParquetTestFiles.footer(direct)) + " ref " + footerRowCounts(referenceFooter)
                + " size " + Files.size(direct) + " vs " + Files.size(reference));

        ParquetMetadata footer = ParquetTestFiles.footer(direct);
        // the statistics as the writer holds them at close (what the table gets), not as read back
        assertEquals(FooterStats.of(referenceFooter, spec.columns), described.stats());
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

    static List<Long> footerRowCounts(ParquetMetadata footer) {
        return footer.getBlocks().stream().map(BlockMetaData::getRowCount).toList();
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
