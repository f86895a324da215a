package io.deltasink.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The ordered columns of a converted row; {@code Object[] row} holds values at these indexes. */
public final class RowSchema {
    private final List<Column> columns;
    private final Map<String, Integer> index = new HashMap<>();

    public RowSchema(List<Column> columns) {
        this.columns = Collections.unmodifiableList(new ArrayList<>(columns));
        for (int i = 0; i < columns.size(); i++) {
            if (index.put(columns.get(i).name(), i) != null) {
                throw new IllegalArgumentException("column '" + columns.get(i).name() + "' is defined twice");
            }
        }
    }

    public List<Column> columns() {
        return columns;
    }

    public int size() {
        return columns.size();
    }

    public Column column(int i) {
        return columns.get(i);
    }

    /** Index of a column, or -1 when there is none of that name. */
    public int indexOf(String name) {
        Integer i = index.get(name);
        return i == null ? -1 : i;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RowSchema other && columns.equals(other.columns);
    }

    @Override
    public int hashCode() {
        return columns.hashCode();
    }

    @Override
    public String toString() {
        return columns.toString();
    }
}
