package io.deltasink.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;

import io.deltasink.model.Column;
import io.deltasink.model.RowSchema;

/**
 * A column's open page is cut at the first value after which it holds the page row count limit or
 * its size reaches the page size, although {@link ColumnChunkBuffer} looks at the size only when
 * the values since its last look may have added enough: after every value, every column's open
 * page is empty (just cut) or under both limits. A page is only ever cut on those two conditions,
 * so a page under both limits after every value is one cut exactly where a look after every value
 * would cut it. Every column type, nulls, dictionaries given up, values of up to 1 MiB, page sizes
 * from a few bytes up and row limits that cut pages before their size does.
 */
class PageCutTest {
    private static final RowSchema SCHEMA = ParquetRoundTripTest.ALL_TYPES;

    @Test
    void everyOpenPageStaysUnderItsLimitsAfterEveryValue() throws Exception {
        List<Column> columns = new ArrayList<>();
        for (int i = 0; i < SCHEMA.size(); i++) {
            columns.add(SCHEMA.column(i));
        }
        int[] indexes = new int[columns.size()];
        Arrays.setAll(indexes, i -> i);
        SharedCompressor compressor = new SharedCompressor(new Configuration(), CompressionCodecName.UNCOMPRESSED);
        int[][] limits = {{1, 20_000}, {7, 20_000}, {64, 20_000}, {1000, 20_000}, {4096, 20_000}, {1 << 20, 20_000},
            {1 << 20, 1}, {1 << 20, 3}, {4096, 50}, {1 << 20, 333}, {100_000, 1_000}};
        for (long seed = 1; seed <= 3; seed++) {
            List<Object[]> rows = DirectColumnWriteTest.rows(seed == 1 ? 12_000 : 3_000, seed);
            for (int[] limit : limits) {
                int pageSize = limit[0];
                int rowLimit = limit[1];
                RowColumns rowColumns = new RowColumns(columns, indexes);
                List<ColumnDescriptor> descriptors = rowColumns.schema().getColumns();
                ColumnChunkBuffer[] buffers = new ColumnChunkBuffer[descriptors.size()];
                for (int c = 0; c < buffers.length; c++) {
                    // small dictionaries: given up mid-chunk in several columns
                    buffers[c] = new ColumnChunkBuffer(descriptors.get(c), c % 4 != 3, pageSize, rowLimit,
                            Math.max(pageSize, 2048), compressor.getCompressor(CompressionCodecName.UNCOMPRESSED),
                            rowColumns.scratch());
                }
                int cuts = 0;
                for (int r = 0; r < rows.size(); r++) {
                    rowColumns.write(rows.get(r), buffers);
                    for (int c = 0; c < buffers.length; c++) {
                        ColumnChunkBuffer b = buffers[c];
                        int values = b.openPageValues();
                        String what = "seed " + seed + ", page size " + pageSize + ", row limit " + rowLimit + ", row "
                                + r + ", column " + descriptors.get(c) + ": " + values + " values, "
                                + b.pageBufferedSize() + " bytes";
                        if (values == 0) {
                            cuts++;
                        } else {
                            assertTrue(values < rowLimit && b.pageBufferedSize() < pageSize, what);
                        }
                    }
                }
                if (rowLimit == 1) {
                    assertEquals(rows.size() * buffers.length, cuts, "one value a page");
                }
                if (seed == 1 || pageSize < (1 << 20) || rowLimit < rows.size()) {
                    assertTrue(cuts > 0, "pages cut with page size " + pageSize + " and row limit " + rowLimit);
                }
            }
        }
    }
}
