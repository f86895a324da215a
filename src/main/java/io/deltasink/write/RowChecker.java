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
    /** Per column, the class its values must have (looked up once, not per value). */
    private final Class<?>[] expected;
    /** Per column, whether it takes nulls and whether its values are nested (looked up once, not per value). */
    private final boolean[] nullable;
    private final boolean[] nested;

    RowChecker(RowSchema schema) {
        this.schema = schema;
        int n = schema.size();
        this.expected = new Class<?>[n];
        this.nullable = new boolean[n];
        this.nested = new boolean[n];
        for (int i = 0; i < n; i++) {
            Column c = schema.column(i);
            expected[i] = expectedClass(c);
            nullable[i] = c.nullable();
            nested[i] = c.nested() != null;
        }
    }

    /**
     * @throws RowRejectedException     naming the column when a value does not fit its column
     * @throws IllegalArgumentException when the row is null or has the wrong number of values
     */
    void check(Object[] row) {
        if (row == null) {
            throw new IllegalArgumentException("row is null");
        }
        if (row.length != expected.length) {
            throw new IllegalArgumentException("row has " + row.length + " values but the schema has "
                    + schema.size() + " columns");
        }
        for (int i = 0; i < row.length; i++) {
            Object v = row[i];
            if (v == null) {
                if (!nullable[i]) {
                    throw new RowRejectedException(schema.column(i).name(), null, "null in a column that is not nullable");
                }
                continue;
            }
            // the exact class first (the usual case, cheap), isInstance for a subclass (of BigDecimal)
            if (v.getClass() != expected[i] && !expected[i].isInstance(v)) {
                Column c = schema.column(i);
                throw new RowRejectedException(c.name(), v, "type " + c.deltaTypeName() + " expects "
                        + expected[i].getSimpleName() + ", got " + v.getClass().getName());
            }
            if (v instanceof BigDecimal d) {
                checkDecimal(schema.column(i), d);
            } else if (nested[i]) {
                NestedRecords.check(schema.column(i), v);
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
            case STRUCT -> Object[].class;
            case ARRAY -> java.util.List.class;
            case MAP -> java.util.Map.class;
        };
    }
}
