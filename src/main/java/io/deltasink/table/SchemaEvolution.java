package io.deltasink.table;

import java.util.Locale;

/**
 * What the connector may change in an existing table's schema so that it matches the column
 * mapping (the {@code schema.evolution} setting).
 */
public enum SchemaEvolution {
    /** Nothing: a table that differs from the mapping is refused. */
    NONE("none"),
    /**
     * Columns of the mapping that the table lacks are added as nullable columns (files written
     * before read them as null); everything else that differs is refused.
     */
    ADD_COLUMNS("add-columns"),
    /**
     * As {@link #ADD_COLUMNS}, and a column the mapping gives a wider type (byte, short, int to a
     * wider integer; float to double) is widened with Delta's {@code typeWidening} table feature:
     * the protocol moves to table features (3,7), so readers that do not know the feature refuse
     * the table instead of reading it wrong.
     */
    ADD_COLUMNS_WIDEN_TYPES("add-columns,widen-types");

    private final String configValue;

    SchemaEvolution(String configValue) {
        this.configValue = configValue;
    }

    /** The value of the {@code schema.evolution} setting that selects this mode. */
    public String configValue() {
        return configValue;
    }

    /** Whether columns may be widened ({@link #ADD_COLUMNS_WIDEN_TYPES}). */
    public boolean widensTypes() {
        return this == ADD_COLUMNS_WIDEN_TYPES;
    }

    /** The mode of a setting value (case ignored). */
    public static SchemaEvolution of(String configValue) {
        String wanted = configValue.trim().toLowerCase(Locale.ROOT);
        for (SchemaEvolution mode : values()) {
            if (mode.configValue.equals(wanted)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown schema evolution mode '" + configValue + "'; expected none, "
                + "add-columns or add-columns,widen-types");
    }
}
