package io.deltasink.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;

/**
 * The writer reuses the last partition keys it made (and their partitions) while a row's partition
 * values equal those of one of them: values that serialize differently must never share a key, the
 * rules on partition values still hold for every row, and a partition written out in between is not
 * reused.
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

    @Test
    void partitionsTakingTurnsKeepTheirKeys() throws Exception {
        PartitionedWriter w = new PartitionedWriter(WriterSettings.defaults(), SCHEMA, List.of("dev"),
                ParquetTestFiles.hadoopPath(dir), new Configuration(), ParquetRoundTripTest.CLOCK);
        List<List<String>> first = new ArrayList<>();
        for (int i = 0; i < PartitionedWriter.RECENT_KEYS; i++) {
            first.add(w.check(new Object[] {i, 1.0, "dev" + i}));
        }
        for (int round = 0; round < 3; round++) {
            for (int i = PartitionedWriter.RECENT_KEYS - 1; i >= 0; i--) {
                assertSame(first.get(i), w.check(new Object[] {i, 1.0, new String("dev" + i)}));
            }
        }
        // one more partition pushes the oldest key out; it is made again, equal but a new list
        w.check(new Object[] {99, 1.0, "other"});
        List<String> again = w.check(new Object[] {0, 1.0, "dev0"});
        assertEquals(first.get(0), again);
        assertNotSame(first.get(0), again);
    }

    /**
     * Rows spread at random over more table partitions than the writer remembers keys for, with values
     * that look alike (0.0 and -0.0, NaN, equal strings of other objects, nulls) and rows refused
     * (an empty string in a NOT NULL partition column): every key equals the one made afresh from the
     * row's values, and every partition's files hold exactly its rows.
     */
    @Test
    void keysEqualThoseMadeAfreshOverRandomRows() throws Exception {
        PartitionedWriter w = new PartitionedWriter(WriterSettings.defaults(), SCHEMA, List.of("d", "dev"),
                ParquetTestFiles.hadoopPath(dir), new Configuration(), ParquetRoundTripTest.CLOCK);
        Double[] doubles = {0.0, -0.0, Double.NaN, 1.0, 1.5, null, Double.POSITIVE_INFINITY};
        String[] devs = {"a", "b", "c", "", "x/y", "a b"};
        Random random = new Random(42);
        Map<List<String>, Long> expected = new HashMap<>();
        for (int i = 0; i < 20_000; i++) {
            // mostly a few partitions taking turns, sometimes any of the 42
            int spread = random.nextInt(10) < 8 ? 3 : doubles.length;
            Double d = doubles[random.nextInt(spread)];
            String dev = new String(devs[random.nextInt(random.nextInt(10) < 8 ? 2 : devs.length)]);
            Object[] row = {i, d, dev};
            if (dev.isEmpty()) {
                assertThrows(RowRejectedException.class, () -> w.write(row));
                continue;
            }
            List<String> fresh = Arrays.asList(PartitionFormat.serialize(SCHEMA.column(1), d),
                    PartitionFormat.serialize(SCHEMA.column(2), dev));
            assertEquals(fresh, w.check(row));
            w.write(row);
            expected.merge(fresh, 1L, Long::sum);
        }
        Map<List<String>, Long> written = new HashMap<>();
        for (DataFile f : w.finish()) {
            written.merge(Arrays.asList(f.partitionValues().get("d"), f.partitionValues().get("dev")),
                    f.stats().numRecords(), Long::sum);
        }
        assertEquals(expected, written);
    }
}
