package io.deltasink.model;

import java.util.Locale;

/**
 * The column types a mapping can name. Each converted value is held in one Java form, the same
 * form the Parquet writer and the statistics use:
 *
 * <pre>
 * STRING    -> String          INT     -> Integer         LONG   -> Long
 * SHORT     -> Short           BYTE    -> Byte            DOUBLE -> Double
 * FLOAT     -> Float           BOOLEAN -> Boolean         BINARY -> byte[]
 * DATE      -> Integer (days since 1970-01-01)
 * TIMESTAMP -> Long (microseconds since 1970-01-01T00:00Z, UTC-adjusted)
 * DECIMAL   -> java.math.BigDecimal, already at the column's scale
 * STRUCT, ARRAY, MAP -> see {@link NestedType}; the column's {@link Column#nested()} holds the full type
 * </pre>
 */
public enum ColumnType {
    STRING("string"),
    INT("integer"),
    LONG("long"),
    SHORT("short"),
    BYTE("byte"),
    DOUBLE("double"),
    FLOAT("float"),
    BOOLEAN("boolean"),
    BINARY("binary"),
    DATE("date"),
    TIMESTAMP("timestamp"),
    DECIMAL("decimal"),
    STRUCT("struct"),
    ARRAY("array"),
    MAP("map");

    private final String deltaName;

    ColumnType(String deltaName) {
        this.deltaName = deltaName;
    }

    /** The type's name in a Delta schema string (decimal without precision/scale). */
    public String deltaName() {
        return deltaName;
    }

    /** True for STRUCT, ARRAY and MAP, whose full type a {@link NestedType} holds. */
    public boolean isNested() {
        return this == STRUCT || this == ARRAY || this == MAP;
    }

    /** Parses a mapping type name: the Delta names plus a few common aliases (int, bigint, bool, ...). */
    public static ColumnType parse(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        switch (n) {
            case "string": case "str": case "text": return STRING;
            case "int": case "integer": case "int32": return INT;
            case "long": case "bigint": case "int64": return LONG;
            case "short": case "smallint": case "int16": return SHORT;
            case "byte": case "tinyint": case "int8": return BYTE;
            case "double": case "float64": return DOUBLE;
            case "float": case "float32": case "real": return FLOAT;
            case "boolean": case "bool": return BOOLEAN;
            case "binary": case "bytes": return BINARY;
            case "date": return DATE;
            case "timestamp": return TIMESTAMP;
            case "decimal": return DECIMAL;
            default: throw new IllegalArgumentException("unknown column type '" + name.trim()
                    + "'; valid types: string, int, long, short, byte, double, float, boolean, binary, date, timestamp, decimal(p,s)");
        }
    }
}
