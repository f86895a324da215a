package io.deltasink.table;

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
            if (mapping.indexOf(field.getName()) < 0) {
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

    private static String caseHint(String name, List<String> tableNames) {
        for (String tableName : tableNames) {
            if (tableName.toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
                return " (the table has '" + tableName + "'; names must match exactly)";
            }
        }
        return "";
    }
}
