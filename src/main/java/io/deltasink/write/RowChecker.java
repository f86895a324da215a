package io.deltasink.write;

import java.math.BigDecimal;

import io.deltasink.model.Column;
import io.deltasink.model.RowSchema;

/**
 * Checks a row against its schema before any Parquet writer sees it: a Parquet writer that fails
 * in the middle of a record is unusable afterwards, so bad rows must be refused up front.
 */
final class RowChecker {
    private final RowSchema schema;

    RowChecker(RowSchema schema) {
        this.schema = schema;
    }

    /**
     * @throws RowRejectedException     naming the column when a value does not fit its column
     * @throws IllegalArgumentException when the row is null or has the wrong number of values
     */
    void check(Object[] row) {
        if (row == null) {
            throw new IllegalArgumentException("row is null");
        }
        if (row.length != schema.size()) {
            throw new IllegalArgumentException("row has " + row.length + " values but the schema has "
                    + schema.size() + " columns");
        }
        for (int i = 0; i < row.length; i++) {
            Column c = schema.column(i);
            Object v = row[i];
            if (v == null) {
                if (!c.nullable()) {
                    throw new RowRejectedException(c.name(), null, "null in a column that is not nullable");
                }
                continue;
            }
            if (!expectedClass(c).isInstance(v)) {
                throw new RowRejectedException(c.name(), v, "type " + c.deltaTypeName() + " expects "
                        + expectedClass(c).getSimpleName() + ", got " + v.getClass().getName());
            }
            if (v instanceof BigDecimal d) {
                checkDecimal(c, d);
            }
        }
    }

    private static void checkDecimal(Column c, BigDecimal d) {
        if (d.scale() != c.scale()) {
            throw new RowRejectedException(c.name(), d, "type " + c.deltaTypeName() + " needs scale " + c.scale()
                    + ", got " + d.toPlainString());
        }
        if (d.precision() > c.precision()) {
            throw new RowRejectedException(c.name(), d, "type " + c.deltaTypeName() + " cannot hold "
                    + d.toPlainString() + ": more than " + c.precision() + " digits");
        }
    }

    static Class<?> expectedClass(Column c) {
        return switch (c.type()) {
            case STRING -> String.class;
            case INT, DATE -> Integer.class;
            case LONG, TIMESTAMP -> Long.class;
            case SHORT -> Short.class;
            case BYTE -> Byte.class;
            case DOUBLE -> Double.class;
            case FLOAT -> Float.class;
            case BOOLEAN -> Boolean.class;
            case BINARY -> byte[].class;
            case DECIMAL -> BigDecimal.class;
        };
    }
}
