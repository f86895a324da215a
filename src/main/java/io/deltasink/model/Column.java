package io.deltasink.model;

import java.util.Objects;

/**
 * One output column of the table: name, type (with precision and scale for decimals) and
 * whether it may hold null.
 */
public record Column(String name, ColumnType type, int precision, int scale, boolean nullable) {

    public Column {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        if (type == ColumnType.DECIMAL && (precision < 1 || precision > 38 || scale < 0 || scale > precision)) {
            throw new IllegalArgumentException("decimal(" + precision + "," + scale + ") of column '" + name
                    + "' is invalid: precision 1..38, scale 0..precision");
        }
    }

    public static Column of(String name, ColumnType type, boolean nullable) {
        return new Column(name, type, 0, 0, nullable);
    }

    /** The type as Delta writes it in a schema string, e.g. {@code decimal(10,2)}. */
    public String deltaTypeName() {
        return type == ColumnType.DECIMAL ? "decimal(" + precision + "," + scale + ")" : type.deltaName();
    }
}
