package io.deltasink.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;

/**
 * A column whose dictionary a file of a table partition gave up is written without a dictionary
 * in that partition's next files; other columns and other partitions keep theirs, and every value
 * reads back as written (parquet-hadoop's own example reader).
 *
 * <p>Parquet writes a page after at most 20,000 values, so a column of 25,000 repeating values
 * followed by unique ones shows the dictionary being given up in the file itself: a dictionary
 * page, dictionary-encoded pages, then plain pages.
 */
class DictionaryFallbackTest {
    private static final RowSchema SCHEMA = new RowSchema(List.of(
            Column.of("part", ColumnType.STRING, false),
            Column.of("reading", ColumnType.LONG, false),
            Column.of("device", ColumnType.STRING, false),
            Column.of("note", ColumnType.STRING, true)));
    private static final int ROWS = 50_000;

    @TempDir
    Path dir;

    /** Part "busy": readings repeat for the first half of a file, then are unique; part "calm": they repeat throughout. */
    private static Object[] row(String part, int file, int i) {
        long reading = part.equals("busy") && i >= ROWS / 2 ? 1_000_000L * (file + 1) + i : i % 100;
        return new Object[] {part, reading, "device-" + (i % 7), i % 3 == 0 ? null : "n" + (i % 5)};
    }

    @Test
    void aColumnThatOutgrewItsDictionaryIsWrittenPlainInItsPartitionsNextFiles() throws Exception {
        PartitionedWriter writer = new PartitionedWriter(WriterSettings.defaults(), SCHEMA, List.of("part"),
                ParquetTestFiles.hadoopPath(dir), new Configuration(), ParquetRoundTripTest.CLOCK);
        List<Map<String, DataFile>> commits = new ArrayList<>();
        for (int file = 0; file < 3; file++) {
            for (int i = 0; i < ROWS; i++) {
                writer.write(row("busy", file, i));
                writer.write(row("calm", file, i));
            }
            Map<String, DataFile> byPart = new TreeMap<>();
            for (DataFile f : writer.finish()) {
                byPart.put(f.partitionValues().get("part"), f);
            }
            commits.add(byPart);
        }

        EncodingStats first = encodings(commits.get(0).get("busy"), "reading");
        assertTrue(first.hasDictionaryPages() && first.hasNonDictionaryEncodedPages(),
                "the first file gives the dictionary up half way");
        for (int file = 1; file < 3; file++) {
            EncodingStats later = encodings(commits.get(file).get("busy"), "reading");
            assertFalse(later.hasDictionaryPages(), "file " + file + " of busy: no dictionary for reading");
            assertTrue(encodings(commits.get(file).get("busy"), "device").hasDictionaryPages(),
                    "device keeps its dictionary");
            assertTrue(encodings(commits.get(file).get("calm"), "reading").hasDictionaryPages(),
                    "the calm partition keeps its dictionary for reading");
            assertFalse(encodings(commits.get(file).get("calm"), "reading").hasNonDictionaryEncodedPages());
        }

        for (int file = 0; file < 3; file++) {
            for (String part : List.of("busy", "calm")) {
                List<Group> rows = ParquetTestFiles.readRows(dir.resolve(commits.get(file).get(part).path()));
                assertEquals(ROWS, rows.size());
                for (int i = 0; i < ROWS; i++) {
                    Object[] expected = row(part, file, i);
                    Group g = rows.get(i);
                    assertEquals(expected[1], g.getLong("reading", 0), part + " file " + file + " row " + i);
                    assertEquals(expected[2], g.getString("device", 0));
                    assertEquals(expected[3], g.getFieldRepetitionCount("note") == 0 ? null : g.getString("note", 0));
                }
            }
        }
    }

    private EncodingStats encodings(DataFile file, String column) throws Exception {
        EncodingStats found = null;
        for (BlockMetaData block : ParquetTestFiles.footer(dir.resolve(file.path())).getBlocks()) {
            for (ColumnChunkMetaData c : block.getColumns()) {
                if (c.getPath().toDotString().equals(column)) {
                    assertEquals(null, found, "one row group expected");
                    found = c.getEncodingStats();
                }
            }
        }
        return found;
    }
}
