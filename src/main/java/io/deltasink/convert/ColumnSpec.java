package io.deltasink.convert;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;

/**
 * One parsed mapping entry: the output column, where its value comes from and, for a timestamp
 * column whose type names it ({@code timestamp(seconds)}), the unit of numbers; null otherwise.
 */
record ColumnSpec(Column column, Source source, EpochUnit unit) {

    ColumnSpec {
        if (unit != null && (column.type() != ColumnType.TIMESTAMP || unit == EpochUnit.NONE)) {
            throw new IllegalArgumentException("unit " + unit + " on column " + column);
        }
    }

    ColumnSpec(Column column, Source source) {
        this(column, source, null);
    }

    String name() {
        return column.name();
    }

    /** The entry in the mapping grammar, e.g. {@code power:double=payload.power}. */
    String text() {
        String type = unit == null ? column.deltaTypeName() : column.deltaTypeName() + "(" + unit + ")";
        return column.name() + ":" + type + "=" + source.text();
    }
}
