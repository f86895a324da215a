package io.deltasink.table;

import io.delta.kernel.types.ByteType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.ShortType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.deltasink.model.Column;
import io.deltasink.model.RowSchema;

/**
 * Compares an existing table with a column mapping and lists every difference that stops the
 * connector from writing into it. Column order does not matter (Parquet columns are read by
 * name); a mapping column that is NOT NULL where the table allows null is fine.
 */
final class SchemaCheck {
    static final String COLUMN_MAPPING_MODE = "delta.columnMapping.mode";

    private SchemaCheck() {
    }

    static List<String> differences(StructType table, List<String> tablePartitions, Map<String, String> tableProperties,
                                    RowSchema mapping, List<String> mappingPartitions) {
        return differences(table, tablePartitions, tableProperties, mapping, mappingPartitions, Set.of());
    }

    /**
     * As {@link #differences(StructType, List, Map, RowSchema, List)}, but the nullable table columns
     * named in {@code othersAdded} (added by another writer while this one evolved the table) may be
     * missing from the mapping: rows of this writer hold null there.
     */
    static List<String> differences(StructType table, List<String> tablePartitions, Map<String, String> tableProperties,
                                    RowSchema mapping, List<String> mappingPartitions, Set<String> othersAdded) {
        List<String> diffs = new ArrayList<>();
        String mappingMode = tableProperties.getOrDefault(COLUMN_MAPPING_MODE, "none");
        if (!mappingMode.equalsIgnoreCase("none")) {
            diffs.add("the table uses column mapping (" + COLUMN_MAPPING_MODE + "=" + mappingMode
                    + "), which this connector does not write yet");
        }
        Set<String> tableNames = new HashSet<>(table.fieldNames());
        for (Column column : mapping.columns()) {
            if (!tableNames.contains(column.name())) {
                diffs.add("column '" + column.name() + "' (" + column.deltaTypeName()
                        + ") is in the mapping but not in the table" + caseHint(column.name(), table.fieldNames()));
                continue;
            }
            StructField field = table.get(column.name());
            if (!KernelTypes.sameType(field, column)) {
                diffs.add("column '" + column.name() + "' type differs: table says "
                        + KernelTypes.typeName(field.getDataType()) + ", mapping says " + column.deltaTypeName());
            }
            if (!field.isNullable() && column.nullable()) {
                diffs.add("column '" + column.name() + "' is NOT NULL in the table but nullable in the mapping");
            }
        }
        for (StructField field : table.fields()) {
            if (mapping.indexOf(field.getName()) < 0
                    && !(field.isNullable() && othersAdded.contains(field.getName()))) {
                diffs.add("column '" + field.getName() + "' (" + KernelTypes.typeName(field.getDataType())
                        + (field.isNullable() ? "" : ", NOT NULL")
                        + ") is in the table but not in the mapping; add it to the mapping");
            }
        }
        if (!tablePartitions.equals(mappingPartitions)) {
            diffs.add("partition columns differ: table says " + tablePartitions + ", mapping says " + mappingPartitions);
        }
        return diffs;
    }

    /**
     * The columns of the mapping that {@code table} lacks and that can be added to it: no column of
     * the table has the name in another case, the name is one a table without column mapping may
     * hold, and the column is not a partition column (a table's partition columns never change).
     * Each is returned nullable: files written before have no value for it.
     */
    static List<Column> addable(StructType table, RowSchema mapping, List<String> mappingPartitions) {
        Set<String> lowerNames = new HashSet<>();
        for (String name : table.fieldNames()) {
            lowerNames.add(name.toLowerCase(Locale.ROOT));
        }
        List<Column> added = new ArrayList<>();
        for (Column column : mapping.columns()) {
            String lower = column.name().toLowerCase(Locale.ROOT);
            if (lowerNames.contains(lower) || mappingPartitions.contains(column.name()) || !plainName(column.name())) {
                continue;
            }
            lowerNames.add(lower);
            added.add(new Column(column.name(), column.type(), column.precision(), column.scale(), true, column.nested()));
        }
        return added;
    }

    /**
     * Whether a column of type {@code from} may be widened to {@code to} (schema.evolution with
     * widen-types): byte, short and int to a wider integer, float to double. Delta's typeWidening
     * feature allows more (integers to double or decimal, date to timestamp_ntz); only these were
     * read back right by the readers the connector is tested with.
     */
    static boolean widening(DataType from, DataType to) {
        int f = integerRank(from);
        int t = integerRank(to);
        if (f > 0 && t > 0) {
            return f < t;
        }
        return from instanceof FloatType && to instanceof DoubleType;
    }

    private static int integerRank(DataType type) {
        return type instanceof ByteType ? 1 : type instanceof ShortType ? 2 : type instanceof IntegerType ? 3
                : type instanceof LongType ? 4 : 0;
    }

    /** Characters a column name may not hold in a table without column mapping (the Delta protocol's list). */
    private static final String NAME_FORBIDDEN = " ,;{}()\n\t=";

    private static boolean plainName(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            if (NAME_FORBIDDEN.indexOf(name.charAt(i)) >= 0) {
                return false;
            }
        }
        return true;
    }

    private static String caseHint(String name, List<String> tableNames) {
        for (String tableName : tableNames) {
            if (tableName.toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
                return " (the table has '" + tableName + "'; names must match exactly)";
            }
        }
        return "";
    }
}
