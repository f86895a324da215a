package io.deltasink.write;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;

/**
 * A text column whose rows hand over the same String again and again (as the converter does for a
 * column's repeated short text) is encoded once per run of that String, and every row still reads
 * back its own text: runs of one instance, an equal text in another instance, other texts between,
 * across page cuts, a dictionary given up half way (unique texts after), a null, and the next file.
 */
class RepeatedTextTest {
    private static final RowSchema SCHEMA = new RowSchema(List.of(
            Column.of("reading", ColumnType.LONG, false),
            Column.of("state", ColumnType.STRING, true)));
    private static final int ROWS = 50_000;

    @TempDir
    Path dir;

    @Test
    void everyRowReadsBackItsOwnTextWhateverInstanceItCameIn() throws Exception {
        String on = "ON";
        String off = "OFF";
        PartitionedWriter writer = new PartitionedWriter(WriterSettings.defaults(), SCHEMA, List.of(),
                ParquetTestFiles.hadoopPath(dir), new Configuration(), ParquetRoundTripTest.CLOCK);
        List<List<String>> expected = new ArrayList<>();
        List<DataFile> files = new ArrayList<>();
        for (int file = 0; file < 2; file++) {
            List<String> texts = new ArrayList<>();
            for (int i = 0; i < ROWS; i++) {
                String text;
                if (i >= ROWS / 2 && file == 0) {
                    text = "unique-" + i; // the dictionary is given up in the first file
                } else if (i % 1000 == 999) {
                    text = null;
                } else if (i % 300 < 150) {
                    text = on; // the same instance, row after row
                } else if (i % 300 < 200) {
                    text = new String(on.toCharArray()); // equal text, another instance each row
                } else if (i % 300 < 250) {
                    text = i % 2 == 0 ? on : off; // alternating instances
                } else {
                    text = off;
                }
                texts.add(text);
                writer.write(new Object[] {(long) i, text});
            }
            expected.add(texts);
            files.addAll(writer.finish());
        }

        assertEquals(2, files.size());
        for (int file = 0; file < 2; file++) {
            Path path = dir.resolve(files.get(file).path());
            List<Group> rows = ParquetTestFiles.readRows(path);
            assertEquals(ROWS, rows.size());
            for (int i = 0; i < ROWS; i++) {
                Group g = rows.get(i);
                String read = g.getFieldRepetitionCount("state") == 0 ? null : g.getString("state", 0);
                assertEquals(expected.get(file).get(i), read, "file " + file + " row " + i);
            }
        }
    }
}
