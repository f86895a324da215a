package io.deltasink.write;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;

/**
 * Min and max of every page of a string column, as the file's column index holds them, equal the
 * unsigned lexicographic min and max of the UTF-8 values of that page's rows as read back (the
 * offset index says which rows): dictionary-encoded pages (whose bounds come from their distinct ids
 * when the page is cut), a dictionary given up in the middle of a page and at the first page, and
 * plain pages; values beyond ASCII (bytes above 0x7F order after ASCII), prefixes of each other,
 * empty, the bound of a page given by one row only. Values stay under the column index's truncation
 * length (64 bytes), so its bounds are exact.
 */
class PageStatisticsTest {
    private static final List<Column> COLUMNS = List.of(
            Column.of("few", ColumnType.STRING, true),       // a handful of values: keeps its dictionary
            Column.of("many", ColumnType.STRING, true),      // distinct values: gives its dictionary up mid-file
            Column.of("unique", ColumnType.STRING, false));  // every value new: gives it up at the first page

    @TempDir
    Path dir;

    @Test
    void everyPagesBoundsAreItsRowsMinAndMax() throws Exception {
        for (long seed = 1; seed <= 4; seed++) {
            assertPageBounds(rows(6_000, seed), WriterSettings.defaults().withPageSizeBytes(seed % 2 == 0 ? 1024 : 4096)
                    .withRowGroupSizeBytes(256 * 1024));
        }
    }

    @Test
    void aBoundHeldByOneRowOfAPageIsKept() throws Exception {
        List<Object[]> rows = new ArrayList<>();
        for (int r = 0; r < 3_000; r++) {
            // the smallest and the largest value once every 500 rows, in the middle of a page
            String few = r % 500 == 250 ? "" : r % 500 == 251 ? "\u00ff\u00ff" : r % 3 == 0 ? "b" : r % 3 == 1 ? "ba" : "c\u00e9";
            rows.add(new Object[] {few, r % 7 == 0 ? null : "m" + r % 40, "u" + r});
        }
        assertPageBounds(rows, WriterSettings.defaults().withPageSizeBytes(1024).withRowGroupSizeBytes(64 * 1024));
    }

    @Test
    void byteComparisonAgreesWithTheJdksUnsignedOrder() {
        Random random = new Random(7);
        byte[] alphabet = {0, 1, 0x7F, (byte) 0x80, (byte) 0xC3, (byte) 0xFF, 'a', 'b'};
        for (int t = 0; t < 200_000; t++) {
            byte[] a = randomBytes(random, alphabet);
            // often a prefix of a, or a with one byte changed, so that long common starts are compared
            byte[] b = switch (random.nextInt(3)) {
                case 0 -> Arrays.copyOf(a, random.nextInt(a.length + 1));
                case 1 -> {
                    byte[] x = a.clone();
                    if (x.length > 0) {
                        x[random.nextInt(x.length)] = alphabet[random.nextInt(alphabet.length)];
                    }
                    yield x;
                }
                default -> randomBytes(random, alphabet);
            };
            assertEquals(Integer.signum(Arrays.compareUnsigned(a, b)), Integer.signum(ColumnChunkBuffer.compareUnsigned(a, b)),
                    Arrays.toString(a) + " " + Arrays.toString(b));
            assertEquals(Integer.signum(Arrays.compareUnsigned(b, a)), Integer.signum(ColumnChunkBuffer.compareUnsigned(b, a)));
        }
    }

    private static byte[] randomBytes(Random random, byte[] alphabet) {
        byte[] out = new byte[random.nextInt(40)];
        for (int k = 0; k < out.length; k++) {
            out[k] = random.nextInt(4) == 0 ? (byte) random.nextInt(256) : alphabet[random.nextInt(alphabet.length)];
        }
        return out;
    }

    private static List<Object[]> rows(int count, long seed) {
        Random random = new Random(seed);
        String[] few = {"smart_plug", "door_window", "smart_plug\u00e9", "", "s", "\u00ff", "\ud83d\ude00", "smart"};
        List<Object[]> rows = new ArrayList<>(count);
        for (int r = 0; r < count; r++) {
            String a = random.nextInt(10) == 0 ? null : few[random.nextInt(few.length)];
            String b = random.nextInt(20) == 0 ? null : "v" + (r < count / 2 ? random.nextInt(30) : random.nextInt(5_000))
                    + (random.nextBoolean() ? "\u00e9" : "");
            String c = "{\"power\":" + random.nextInt(1000) + "." + r + ",\"state\":\"" + (r % 2 == 0 ? "ON" : "OFF")
                    + "\"}";
            rows.add(new Object[] {a, b, c});
        }
        return rows;
    }

    private void assertPageBounds(List<Object[]> rows, WriterSettings settings) throws Exception {
        Configuration conf = new Configuration();
        FileSystem fs = FileSystem.getLocal(conf);
        Path file = dir.resolve("pages-" + System.nanoTime() + ".parquet");
        SharedCompressor compressor = new SharedCompressor(conf, settings.codec());
        OpenFile open = OpenFile.create(fs, ParquetTestFiles.hadoopPath(file), file.getFileName().toString(), Map.of(),
                new RowColumns(COLUMNS, new int[] {0, 1, 2}), settings, compressor, Set.of());
        for (Object[] row : rows) {
            open.write(row);
        }
        open.close(COLUMNS, 0L);

        List<Group> read = ParquetTestFiles.readRows(file);
        assertEquals(rows.size(), read.size());
        int pagesChecked = 0;
        boolean sawDictionary = false;
        boolean sawPlain = false;
        try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(
                ParquetTestFiles.hadoopPath(file), conf))) {
            long firstRowOfBlock = 0;
            for (BlockMetaData block : reader.getFooter().getBlocks()) {
                for (int c = 0; c < COLUMNS.size(); c++) {
                    ColumnChunkMetaData chunk = block.getColumns().get(c);
                    sawDictionary |= chunk.getEncodingStats().hasDictionaryEncodedPages();
                    sawPlain |= chunk.getEncodingStats().hasNonDictionaryEncodedPages();
                    OffsetIndex offsets = reader.readOffsetIndex(chunk);
                    ColumnIndex index = reader.readColumnIndex(chunk);
                    for (int p = 0; p < offsets.getPageCount(); p++) {
                        byte[] min = null;
                        byte[] max = null;
                        long last = offsets.getLastRowIndex(p, block.getRowCount());
                        for (long r = offsets.getFirstRowIndex(p); r <= last; r++) {
                            Object v = rows.get((int) (firstRowOfBlock + r))[c];
                            assertEquals(v, value(read.get((int) (firstRowOfBlock + r)), COLUMNS.get(c).name()));
                            if (v == null) {
                                continue;
                            }
                            byte[] utf8 = ((String) v).getBytes(StandardCharsets.UTF_8);
                            if (min == null || Arrays.compareUnsigned(utf8, min) < 0) {
                                min = utf8;
                            }
                            if (max == null || Arrays.compareUnsigned(utf8, max) > 0) {
                                max = utf8;
                            }
                        }
                        String where = COLUMNS.get(c).name() + " page " + p;
                        if (min == null) {
                            assertTrue(index.getNullPages().get(p), where);
                            continue;
                        }
                        assertArrayEquals(min, bytes(index.getMinValues().get(p)), where + " min");
                        assertArrayEquals(max, bytes(index.getMaxValues().get(p)), where + " max");
                        pagesChecked++;
                    }
                }
                firstRowOfBlock += block.getRowCount();
            }
        }
        assertTrue(pagesChecked > 20 && sawDictionary && sawPlain, pagesChecked + " pages");
    }

    private static String value(Group row, String field) {
        return row.getFieldRepetitionCount(field) == 0 ? null : row.getString(field, 0);
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
