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
    ADD_COLUMNS("add-columns");

    private final String configValue;

    SchemaEvolution(String configValue) {
        this.configValue = configValue;
    }

    /** The value of the {@code schema.evolution} setting that selects this mode. */
    public String configValue() {
        return configValue;
    }

    /** The mode of a setting value (case ignored). */
    public static SchemaEvolution of(String configValue) {
        String wanted = configValue.trim().toLowerCase(Locale.ROOT);
        for (SchemaEvolution mode : values()) {
            if (mode.configValue.equals(wanted)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown schema evolution mode '" + configValue + "'; expected none or "
                + "add-columns");
    }
}
