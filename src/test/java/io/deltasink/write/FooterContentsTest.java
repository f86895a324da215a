package io.deltasink.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.statistics.SizeStatistics;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;

/**
 * What a data file's footer carries per column chunk: min, max and null count (readers skip files and
 * row groups by them; Delta's stats come from them), a column index and an offset index per chunk, and
 * no size statistics (Parquet's optional level histograms and unencoded byte counts, which no Delta
 * reader uses and which cost about 3% of the writer to count).
 */
class FooterContentsTest {
    private static final RowSchema SCHEMA = new RowSchema(List.of(
            Column.of("id", ColumnType.LONG, false),
            Column.of("name", ColumnType.STRING, true),
            Column.of("reading", ColumnType.DOUBLE, true)));
    private static final int ROWS = 50_000;

    @TempDir
    Path dir;

    @Test
    void minMaxNullsAndIndexesButNoSizeStatistics() throws Exception {
        PartitionedWriter writer = new PartitionedWriter(WriterSettings.defaults(), SCHEMA, List.of(),
                ParquetTestFiles.hadoopPath(dir), new Configuration(), ParquetRoundTripTest.CLOCK);
        for (int i = 0; i < ROWS; i++) {
            writer.write(new Object[] {(long) i, i % 4 == 0 ? null : "name-" + (i % 1000), i % 10 == 0 ? null : i / 8.0});
        }
        List<DataFile> files = writer.finish();
        assertEquals(1, files.size());
        int chunks = 0;
        for (BlockMetaData block : ParquetTestFiles.footer(dir.resolve(files.get(0).path())).getBlocks()) {
            for (ColumnChunkMetaData c : block.getColumns()) {
                chunks++;
                String column = c.getPath().toDotString();
                Statistics<?> stats = c.getStatistics();
                assertTrue(stats.hasNonNullValue(), column + ": min and max");
                SizeStatistics size = c.getSizeStatistics();
                assertTrue(size == null || !size.isValid(), column + ": no size statistics");
                assertNotNull(c.getColumnIndexReference(), column + ": a column index");
                assertNotNull(c.getOffsetIndexReference(), column + ": an offset index");
                switch (column) {
                    case "id" -> {
                        assertEquals(0L, stats.genericGetMin());
                        assertEquals(ROWS - 1L, stats.genericGetMax());
                        assertEquals(0, stats.getNumNulls());
                    }
                    case "name" -> {
                        assertEquals(Binary.fromString("name-1"), stats.genericGetMin());
                        assertEquals(Binary.fromString("name-999"), stats.genericGetMax());
                        assertEquals(ROWS / 4, stats.getNumNulls());
                    }
                    default -> {
                        assertEquals(1 / 8.0, stats.genericGetMin());
                        assertEquals((ROWS - 1) / 8.0, stats.genericGetMax());
                        assertEquals(ROWS / 10, stats.getNumNulls());
                    }
                }
            }
        }
        assertEquals(3, chunks);
        assertEquals(ROWS, files.get(0).stats().numRecords());
    }
}
