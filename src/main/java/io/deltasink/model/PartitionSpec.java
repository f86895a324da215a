package io.deltasink.model;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The partition columns of a table and the rules they follow, in one place for the validation of
 * a configuration, the writer and the table: each is a column of the mapping, none is binary, none
 * is listed twice, and at least one data column is left. Partition columns stay in the order given
 * (the table's partition order); data columns keep the schema's order.
 */
public final class PartitionSpec {
    private final List<Column> partitionColumns;
    private final int[] partitionIndexes;
    private final List<Column> dataColumns;
    private final int[] dataIndexes;

    private PartitionSpec(List<Column> partitionColumns, int[] partitionIndexes, List<Column> dataColumns,
                          int[] dataIndexes) {
        this.partitionColumns = List.copyOf(partitionColumns);
        this.partitionIndexes = partitionIndexes;
        this.dataColumns = List.copyOf(dataColumns);
        this.dataIndexes = dataIndexes;
    }

    /**
     * @throws IllegalArgumentException with every problem {@link #problems} lists, joined by "; "
     */
    public static PartitionSpec of(RowSchema schema, List<String> partitionColumns) {
        List<String> problems = problems(schema, partitionColumns);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        List<Column> parts = new ArrayList<>();
        int[] partIdx = new int[partitionColumns.size()];
        for (int i = 0; i < partIdx.length; i++) {
            partIdx[i] = schema.indexOf(partitionColumns.get(i));
            parts.add(schema.column(partIdx[i]));
        }
        Set<String> names = new HashSet<>(partitionColumns);
        List<Column> data = new ArrayList<>();
        int[] dataIdx = new int[schema.size() - partIdx.length];
        for (int i = 0; i < schema.size(); i++) {
            if (!names.contains(schema.column(i).name())) {
                dataIdx[data.size()] = i;
                data.add(schema.column(i));
            }
        }
        return new PartitionSpec(parts, partIdx, data, dataIdx);
    }

    /** What is wrong with {@code partitionColumns} for {@code schema}, one message per problem; empty when nothing. */
    public static List<String> problems(RowSchema schema, List<String> partitionColumns) {
        List<String> problems = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String name : partitionColumns) {
            int i = schema.indexOf(name);
            if (i < 0) {
                problems.add("partition column '" + name + "' is not a column of the mapping in 'columns' " + names(schema)
                        + "; partition columns must be output columns, e.g. event_date:date=date(event_time)");
            } else if (!seen.add(name)) {
                problems.add("partition column '" + name + "' is listed twice");
            } else if (schema.column(i).type() == ColumnType.BINARY) {
                problems.add("partition column '" + name + "' is binary; a partition column cannot be binary");
            } else if (schema.column(i).type().isNested()) {
                problems.add("partition column '" + name + "' is " + schema.column(i).deltaTypeName()
                        + "; a partition column cannot be a struct, array or map");
            }
        }
        if (!schema.columns().isEmpty() && seen.size() == schema.size()) {
            problems.add("every column is a partition column; keep at least one data column");
        }
        return problems;
    }

    /** The partition columns, in partition order. */
    public List<Column> partitionColumns() {
        return partitionColumns;
    }

    /** The index in the row of each partition column, in partition order. */
    public int[] partitionIndexes() {
        return partitionIndexes.clone();
    }

    /** The other columns, the ones data files hold, in schema order. */
    public List<Column> dataColumns() {
        return dataColumns;
    }

    /** The index in the row of each data column. */
    public int[] dataIndexes() {
        return dataIndexes.clone();
    }

    private static String names(RowSchema schema) {
        return schema.columns().stream().map(Column::name).toList().toString();
    }
}
