package io.deltasink.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;

/**
 * The writer reuses the last partition key (and its partition) while a row's partition values equal
 * the last ones: values that serialize differently must never share a key, the rules on partition
 * values still hold for every row, and a partition written out in between is not reused.
 */
class PartitionKeyReuseTest {
    private static final RowSchema SCHEMA = new RowSchema(List.of(
            Column.of("id", ColumnType.INT, false),
            Column.of("d", ColumnType.DOUBLE, true),
            Column.of("dev", ColumnType.STRING, false)));

    @TempDir
    Path dir;

    @Test
    void valuesThatLookAlikeButSerializeDifferentlyGetFoldersOfTheirOwn() throws Exception {
        PartitionedWriter w = new PartitionedWriter(WriterSettings.defaults(), SCHEMA, List.of("d", "dev"),
                ParquetTestFiles.hadoopPath(dir), new Configuration(), ParquetRoundTripTest.CLOCK);
        // 0.0 and -0.0 are == as doubles but are two partitions ("0.0", "-0.0"); equal Strings of other objects share one
        w.write(new Object[] {1, 0.0, "a"});
        w.write(new Object[] {2, -0.0, "a"});
        w.write(new Object[] {3, -0.0, new String("a")});
        w.write(new Object[] {4, 0.0, "a"});
        w.write(new Object[] {5, Double.NaN, "a"});
        w.write(new Object[] {6, Double.NaN, "a"});
        // the NOT NULL rule holds for a row following a row of the same partition column values but one
        w.write(new Object[] {7, 1.0, "b"});
        assertThrows(RowRejectedException.class, () -> w.write(new Object[] {8, 1.0, ""}));
        w.write(new Object[] {9, 1.0, "b"});

        Map<String, Long> rows = new TreeMap<>();
        for (DataFile f : w.finish()) {
            rows.merge(f.partitionValues().get("d") + "/" + f.partitionValues().get("dev"), f.stats().numRecords(),
                    Long::sum);
        }
        assertEquals(Map.of("0.0/a", 2L, "-0.0/a", 2L, "NaN/a", 2L, "1.0/b", 2L), rows);
    }

    @Test
    void aPartitionWrittenOutBetweenTwoRowsIsStartedAgain() throws Exception {
        PartitionedWriter w = new PartitionedWriter(WriterSettings.defaults(), SCHEMA, List.of("dev"),
                ParquetTestFiles.hadoopPath(dir), new Configuration(), ParquetRoundTripTest.CLOCK);
        w.write(new Object[] {1, 1.0, "a"});
        assertEquals(1, w.finish().size());
        w.write(new Object[] {2, 2.0, "a"});
        w.write(new Object[] {3, 3.0, "a"});
        List<DataFile> files = w.finish();
        assertEquals(1, files.size());
        assertEquals(2, files.get(0).stats().numRecords());
    }
}
