package io.deltasink.table;

import io.delta.kernel.DataWriteContext;
import io.delta.kernel.Transaction;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.deltasink.model.DataFile;

/**
 * Turns finished data files into {@code add} action rows through Kernel's public write path:
 * one write context per distinct partition, {@link DataFileStatus} with
 * {@link DataFileStatistics}, and {@link Transaction#generateAppendActions}; files that only
 * rewrite rows (dataChange=false) the same way through {@link KernelInternals#addAction}.
 */
final class AppendActions {

    private AppendActions() {
    }

    /**
     * @param tableRoot the table path of the snapshot the transaction was built on (Kernel makes
     *                  the add paths relative to it again)
     * @param dataChange false for files whose rows are already in the table (a compaction)
     */
    static List<Row> of(Engine engine, Transaction txn, String tableRoot, List<DataFile> files, boolean dataChange) {
        Row state = txn.getTransactionState(engine);
        StructType schema = txn.getSchema(engine);
        List<String> partitionColumns = txn.getPartitionColumns(engine);
        String root = stripTrailingSlash(tableRoot);

        Map<Map<String, String>, List<DataFile>> byPartition = new LinkedHashMap<>();
        for (DataFile file : files) {
            byPartition.computeIfAbsent(file.partitionValues(), k -> new ArrayList<>()).add(file);
        }
        List<Row> actions = new ArrayList<>(files.size());
        for (Map.Entry<Map<String, String>, List<DataFile>> group : byPartition.entrySet()) {
            Map<String, Literal> partition = partitionLiterals(schema, partitionColumns, group.getKey());
            DataWriteContext context = Transaction.getWriteContext(engine, state, partition);
            List<DataFileStatus> statuses = new ArrayList<>();
            for (DataFile file : group.getValue()) {
                statuses.add(new DataFileStatus(root + "/" + relativePath(file), file.size(),
                        file.modificationTime(), Optional.of(statistics(schema, partitionColumns, file))));
            }
            if (!dataChange) {
                statuses.forEach(status -> actions.add(KernelInternals.addAction(state, partition, status, false)));
                continue;
            }
            try (CloseableIterator<Row> rows = Transaction.generateAppendActions(engine, state,
                    new ListCloseableIterator<>(statuses), context)) {
                rows.forEachRemaining(actions::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return actions;
    }

    static Map<String, Literal> partitionLiterals(StructType schema, List<String> partitionColumns,
                                                  Map<String, String> values) {
        if (!new HashSet<>(partitionColumns).equals(values.keySet())) {
            throw new IllegalArgumentException("data file partition values " + values.keySet()
                    + " do not match the table's partition columns " + partitionColumns);
        }
        Map<String, Literal> literals = new HashMap<>();
        for (String column : partitionColumns) {
            literals.put(column, KernelTypes.partitionLiteral(column, schema.get(column).getDataType(), values.get(column)));
        }
        return literals;
    }

    static DataFileStatistics statistics(StructType schema, List<String> partitionColumns, DataFile file) {
        DataFile.FileStats stats = file.stats();
        Set<String> partitions = new HashSet<>(partitionColumns);
        Map<Column, Literal> min = bounds(schema, partitions, stats.minValues(), KernelTypes.Bound.MIN);
        Map<Column, Literal> max = bounds(schema, partitions, stats.maxValues(), KernelTypes.Bound.MAX);
        Map<Column, Long> nullCount = new HashMap<>();
        if (stats.nullCount() != null) {
            for (Map.Entry<String, Long> e : stats.nullCount().entrySet()) {
                checkDataColumn(schema, partitions, e.getKey());
                if (e.getValue() != null) {
                    nullCount.put(new Column(e.getKey()), e.getValue());
                }
            }
        }
        return new DataFileStatistics(stats.numRecords(), min, max, nullCount, Optional.empty());
    }

    private static Map<Column, Literal> bounds(StructType schema, Set<String> partitions, Map<String, Object> values,
                                               KernelTypes.Bound bound) {
        Map<Column, Literal> result = new HashMap<>();
        if (values == null) {
            return result;
        }
        for (Map.Entry<String, Object> e : values.entrySet()) {
            StructField field = checkDataColumn(schema, partitions, e.getKey());
            KernelTypes.statLiteral(e.getKey(), field.getDataType(), e.getValue(), bound)
                    .ifPresent(literal -> result.put(new Column(e.getKey()), literal));
        }
        return result;
    }

    private static StructField checkDataColumn(StructType schema, Set<String> partitions, String name) {
        if (schema.indexOf(name) < 0 || partitions.contains(name)) {
            throw new IllegalArgumentException("statistics name column '" + name
                    + "', which is not a data column of the table");
        }
        return schema.get(name);
    }

    private static String relativePath(DataFile file) {
        String path = file.path();
        if (path.isEmpty() || path.startsWith("/") || path.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*")) {
            throw new IllegalArgumentException("data file path must be relative to the table root: " + path);
        }
        return path;
    }

    private static String stripTrailingSlash(String path) {
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }
}
