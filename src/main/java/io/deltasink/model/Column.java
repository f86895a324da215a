package io.deltasink.model;

import java.util.Objects;

/**
 * One output column of the table: name, type (with precision and scale for decimals) and
 * whether it may hold null. A struct, array or map column also carries its full type in
 * {@code nested}; null for every flat column.
 */
public record Column(String name, ColumnType type, int precision, int scale, boolean nullable, NestedType nested) {

    public Column {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        if (type.isNested() != (nested != null) || nested != null && NestedType.columnType(nested) != type) {
            throw new IllegalArgumentException("column '" + name + "' of type " + type + " needs a matching nested type, has "
                    + nested);
        }
        if (type == ColumnType.DECIMAL && (precision < 1 || precision > 38 || scale < 0 || scale > precision)) {
            throw new IllegalArgumentException("decimal(" + precision + "," + scale + ") of column '" + name
                    + "' is invalid: precision 1..38, scale 0..precision");
        }
    }

    public Column(String name, ColumnType type, int precision, int scale, boolean nullable) {
        this(name, type, precision, scale, nullable, null);
    }

    /** A struct, array or map column. */
    public static Column nested(String name, NestedType type, boolean nullable) {
        return new Column(name, NestedType.columnType(type), 0, 0, nullable, type);
    }

    public static Column of(String name, ColumnType type, boolean nullable) {
        return new Column(name, type, 0, 0, nullable);
    }

    /** The type as Delta writes it in a schema string, e.g. {@code decimal(10,2)}. */
    public String deltaTypeName() {
        if (nested != null) {
            return nested.ddl();
        }
        return type == ColumnType.DECIMAL ? "decimal(" + precision + "," + scale + ")" : type.deltaName();
    }
}
