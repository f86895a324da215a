package io.deltasink.write;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveComparator;

import io.deltasink.model.Column;
import io.deltasink.model.DataFile.FileStats;

/**
 * Delta file statistics from a written file's footer: row count, and per column the min, max and
 * null count aggregated over all row groups, converted back to the row value forms.
 */
final class FooterStats {
    private FooterStats() {
    }

    /**
     * @param footer       the footer of the closed file
     * @param statsColumns the leading data columns to collect stats for; they are the first
     *                     columns of the file schema, in the same order
     */
    static FileStats of(ParquetMetadata footer, List<Column> statsColumns) {
        long numRecords = 0;
        for (BlockMetaData block : footer.getBlocks()) {
            numRecords += block.getRowCount();
        }
        Map<String, Object> min = new LinkedHashMap<>();
        Map<String, Object> max = new LinkedHashMap<>();
        Map<String, Long> nullCount = new LinkedHashMap<>();
        for (int i = 0; i < statsColumns.size(); i++) {
            Column column = statsColumns.get(i);
            Aggregate agg = new Aggregate();
            for (BlockMetaData block : footer.getBlocks()) {
                agg.add(chunk(block, i, column), block.getRowCount());
            }
            if (agg.nullsKnown) {
                nullCount.put(column.name(), agg.nulls);
            }
            if (agg.boundsKnown && agg.min != null) {
                putBound(min, column, agg.min);
                putBound(max, column, agg.max);
            }
        }
        return new FileStats(numRecords, Collections.unmodifiableMap(min), Collections.unmodifiableMap(max),
                Collections.unmodifiableMap(nullCount));
    }

    private static ColumnChunkMetaData chunk(BlockMetaData block, int i, Column column) {
        ColumnChunkMetaData chunk = block.getColumns().get(i);
        String[] path = chunk.getPath().toArray();
        if (path.length != 1 || !path[0].equals(column.name())) {
            throw new IllegalStateException("column chunk " + i + " is " + chunk.getPath().toDotString()
                    + ", expected " + column.name());
        }
        return chunk;
    }

    private static void putBound(Map<String, Object> target, Column column, Object parquetValue) {
        Object value = toRowValue(column, parquetValue);
        if (value != null) {
            target.put(column.name(), value);
        }
    }

    /**
     * The row form of a Parquet statistics value, or null when the chunk's value is no bound: a NaN
     * (Parquet orders NaN above every number, so a chunk holding one has NaN as its maximum, and its
     * minimum is still right). Strings are handed on whole; the table layer cuts them to a prefix.
     */
    static Object toRowValue(Column column, Object v) {
        return switch (column.type()) {
            case STRING -> ((Binary) v).toStringUsingUTF8();
            case BINARY -> null;
            case INT, DATE, LONG, TIMESTAMP, BOOLEAN -> v;
            case SHORT -> ((Integer) v).shortValue();
            case BYTE -> ((Integer) v).byteValue();
            case FLOAT -> ((Float) v).isNaN() ? null : v;
            case DOUBLE -> ((Double) v).isNaN() ? null : v;
            case DECIMAL -> decimal(column, v);
            case STRUCT, ARRAY, MAP -> null;
        };
    }

    private static BigDecimal decimal(Column column, Object v) {
        if (v instanceof Integer i) {
            return BigDecimal.valueOf(i, column.scale());
        }
        if (v instanceof Long l) {
            return BigDecimal.valueOf(l, column.scale());
        }
        return new BigDecimal(new BigInteger(((Binary) v).getBytes()), column.scale());
    }

    /** Min, max and null count of one column over the row groups seen so far. */
    private static final class Aggregate {
        long nulls;
        boolean nullsKnown = true;
        boolean boundsKnown = true;
        Object min;
        Object max;

        @SuppressWarnings("unchecked")
        void add(ColumnChunkMetaData chunk, long rowCount) {
            if (rowCount == 0) {
                return;
            }
            Statistics<?> s = chunk.getStatistics();
            if (s == null || s.isEmpty()) {
                nullsKnown = false;
                boundsKnown = false;
                return;
            }
            if (s.isNumNullsSet()) {
                nulls += s.getNumNulls();
            } else {
                nullsKnown = false;
            }
            if (!s.hasNonNullValue()) {
                // no bounds: fine only when the row group holds nulls alone
                if (!s.isNumNullsSet() || s.getNumNulls() < rowCount) {
                    boundsKnown = false;
                }
                return;
            }
            PrimitiveComparator<Object> cmp = (PrimitiveComparator<Object>) s.comparator();
            Object groupMin = s.genericGetMin();
            Object groupMax = s.genericGetMax();
            if (min == null || cmp.compare(groupMin, min) < 0) {
                min = groupMin;
            }
            if (max == null || cmp.compare(groupMax, max) > 0) {
                max = groupMax;
            }
        }
    }
}
