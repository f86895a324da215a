package io.deltasink.convert;


import io.deltasink.model.Column;
/** One parsed mapping entry: the output column and where its value comes from. */
record ColumnSpec(Column column, Source source) {

    String name() {
        return column.name();
    }

    /** The entry in the mapping grammar, e.g. {@code power:double=payload.power}. */
    String text() {
        return column.name() + ":" + column.deltaTypeName() + "=" + source.text();
    }
}
