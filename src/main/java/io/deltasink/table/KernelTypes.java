package io.deltasink.table;

import io.delta.kernel.expressions.Literal;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BasePrimitiveType;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.ByteType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.ShortType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampType;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.NestedType;
import io.deltasink.model.RowSchema;

/**
 * Conversions between the project's row model and Kernel types and literals: the schema of a
 * new table, type names for messages, partition values (Delta's string form -> literal) and
 * statistics values (the {@link io.deltasink.model.ColumnType} value forms -> literal).
 */
final class KernelTypes {

    /** Which side of a statistics range a value bounds; decides the rounding direction. */
    enum Bound { MIN, MAX }

    /** Longest string bound kept in the log, in code points (Delta's default prefix length). */
    static final int STRING_STATS_PREFIX = 32;

    /** The protocol's range of dates and timestamps: years 0001 to 9999. */
    private static final int FIRST_DAY = (int) LocalDate.of(1, 1, 1).toEpochDay();
    private static final int LAST_DAY = (int) LocalDate.of(9999, 12, 31).toEpochDay();
    private static final long FIRST_MICROS = FIRST_DAY * 86_400_000_000L;
    /** 9999-12-31T23:59:59.999Z, the last timestamp the log's millisecond form can hold. */
    private static final long LAST_MILLIS_MICROS = (LAST_DAY + 1L) * 86_400_000_000L - 1000L;
    private static final long NEGATIVE_ZERO_BITS = Double.doubleToRawLongBits(-0.0);

    /** {@code yyyy-MM-dd HH:mm:ss[.f{1,6}]}, the Delta/Hive partition form, read as UTC. */
    private static final DateTimeFormatter SPACE_TIMESTAMP = new DateTimeFormatterBuilder()
            .appendPattern("yyyy-MM-dd HH:mm:ss")
            .optionalStart().appendFraction(ChronoField.MICRO_OF_SECOND, 0, 6, true).optionalEnd()
            .toFormatter(Locale.ROOT);

    private KernelTypes() {
    }

    /** The Kernel schema of a new table for the given columns (order, types, nullability kept). */
    static StructType schemaOf(RowSchema schema) {
        StructType struct = new StructType();
        for (Column column : schema.columns()) {
            struct = struct.add(column.name(), dataTypeOf(column), column.nullable());
        }
        return struct;
    }

    static DataType dataTypeOf(Column column) {
        if (column.nested() != null) {
            return dataTypeOf(column.nested());
        }
        return switch (column.type()) {
            case DECIMAL -> new DecimalType(column.precision(), column.scale());
            default -> BasePrimitiveType.createPrimitive(column.type().deltaName());
        };
    }

    /**
     * The Delta type of a nested type: struct fields nullable, arrays with {@code containsNull},
     * maps of string keys with {@code valueContainsNull}, as the protocol spells them.
     */
    static DataType dataTypeOf(NestedType type) {
        if (type instanceof NestedType.Leaf l) {
            return l.type() == ColumnType.DECIMAL ? new DecimalType(l.precision(), l.scale())
                    : BasePrimitiveType.createPrimitive(l.type().deltaName());
        }
        if (type instanceof NestedType.Struct s) {
            StructType struct = new StructType();
            for (NestedType.Field f : s.fields()) {
                struct = struct.add(f.name(), dataTypeOf(f.type()), true);
            }
            return struct;
        }
        if (type instanceof NestedType.Array a) {
            return new ArrayType(dataTypeOf(a.element()), true);
        }
        return new MapType(StringType.STRING, dataTypeOf(((NestedType.MapOf) type).value()), true);
    }

    /** The nested type of the model for a Delta struct, array or map type, or null when the connector cannot write it. */
    private static NestedType nestedOf(DataType type) {
        if (type instanceof StructType s) {
            List<NestedType.Field> fields = new ArrayList<>();
            for (StructField f : s.fields()) {
                NestedType t = nestedOf(f.getDataType());
                if (t == null || !f.isNullable()) {
                    return null;
                }
                fields.add(new NestedType.Field(f.getName(), t));
            }
            return fields.isEmpty() ? null : new NestedType.Struct(fields);
        }
        if (type instanceof ArrayType a) {
            NestedType e = nestedOf(a.getElementType());
            return e == null || !a.containsNull() ? null : new NestedType.Array(e);
        }
        if (type instanceof MapType m) {
            NestedType v = nestedOf(m.getValueType());
            return v == null || !(m.getKeyType() instanceof StringType) || !m.isValueContainsNull() ? null
                    : new NestedType.MapOf(v);
        }
        if (type instanceof DecimalType d) {
            return new NestedType.Leaf(ColumnType.DECIMAL, d.getPrecision(), d.getScale());
        }
        for (ColumnType t : ColumnType.values()) {
            if (!t.isNested() && t != ColumnType.DECIMAL && type.equivalent(BasePrimitiveType.createPrimitive(t.deltaName()))) {
                return new NestedType.Leaf(t, 0, 0);
            }
        }
        return null;
    }

    /** The column of the project's model for a table field, or null for a type the connector cannot write. */
    static Column columnOf(StructField field) {
        DataType dataType = field.getDataType();
        if (dataType instanceof StructType || dataType instanceof ArrayType || dataType instanceof MapType) {
            NestedType nested = nestedOf(dataType);
            return nested == null ? null : Column.nested(field.getName(), nested, field.isNullable());
        }
        if (field.getDataType() instanceof DecimalType d) {
            return new Column(field.getName(), ColumnType.DECIMAL, d.getPrecision(), d.getScale(), field.isNullable());
        }
        for (ColumnType type : ColumnType.values()) {
            if (type != ColumnType.DECIMAL && !type.isNested()) {
                Column column = Column.of(field.getName(), type, field.isNullable());
                if (sameType(field, column)) {
                    return column;
                }
            }
        }
        return null;
    }

    /** The type as a Delta schema string names it, e.g. {@code integer} or {@code decimal(10,2)}. */
    static String typeName(DataType type) {
        if (type instanceof DecimalType d) {
            return "decimal(" + d.getPrecision() + "," + d.getScale() + ")";
        }
        if (type instanceof BasePrimitiveType) {
            return type.toString();
        }
        NestedType nested = nestedOf(type);
        if (nested != null && !(nested instanceof NestedType.Leaf)) {
            return nested.ddl();
        }
        if (type instanceof StructType) {
            return "struct";
        }
        return type.toString().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a partition value serialized as the Delta protocol specifies into a literal of the
     * column's type; {@code null} gives a null literal.
     */
    static Literal partitionLiteral(String column, DataType type, String value) {
        if (value == null) {
            return Literal.ofNull(type);
        }
        try {
            if (type instanceof StringType) {
                return Literal.ofString(value);
            } else if (type instanceof IntegerType) {
                return Literal.ofInt(Integer.parseInt(value));
            } else if (type instanceof LongType) {
                return Literal.ofLong(Long.parseLong(value));
            } else if (type instanceof ShortType) {
                return Literal.ofShort(Short.parseShort(value));
            } else if (type instanceof ByteType) {
                return Literal.ofByte(Byte.parseByte(value));
            } else if (type instanceof DoubleType) {
                return Literal.ofDouble(Double.parseDouble(value));
            } else if (type instanceof FloatType) {
                return Literal.ofFloat(Float.parseFloat(value));
            } else if (type instanceof BooleanType) {
                return Literal.ofBoolean(parseBoolean(value));
            } else if (type instanceof DateType) {
                return Literal.ofDate((int) LocalDate.parse(value).toEpochDay());
            } else if (type instanceof TimestampType) {
                return Literal.ofTimestamp(parseTimestampMicros(value));
            } else if (type instanceof DecimalType d) {
                BigDecimal decimal = new BigDecimal(value).setScale(d.getScale(), RoundingMode.UNNECESSARY);
                return Literal.ofDecimal(decimal, d.getPrecision(), d.getScale());
            } else if (type instanceof BinaryType) {
                return Literal.ofBinary(value.getBytes(StandardCharsets.UTF_8));
            }
        } catch (NumberFormatException | DateTimeParseException | ArithmeticException e) {
            throw new IllegalArgumentException("partition value '" + value + "' of column '" + column
                    + "' is not a valid " + typeName(type) + ": " + e.getMessage(), e);
        }
        throw new IllegalArgumentException("column '" + column + "' of type " + typeName(type)
                + " cannot be a partition column");
    }

    /**
     * A statistics value as a literal of the column's type, or empty when no bound can be recorded
     * that every reader reads back as a valid bound:
     * <ul>
     *   <li>binary columns: none;
     *   <li>float and double: none for NaN and the infinities (JSON has no literal for them; Kernel
     *       writes them as strings, which the protocol does not define), and no minimum of -0.0
     *       (readers that parse the JSON number as a decimal read it as +0.0, above a -0.0 row);
     *   <li>timestamps: the log keeps milliseconds, so a minimum is floored and a maximum ceiled to
     *       a whole millisecond (before 1970 too); none when that leaves years 0001-9999, as for
     *       dates;
     *   <li>decimals: rounded outward to the column's scale;
     *   <li>strings: cut to a prefix, see {@link #stringBound}.
     * </ul>
     */
    static Optional<Literal> statLiteral(String column, DataType type, Object value, Bound bound) {
        if (value == null || type instanceof BinaryType) {
            return Optional.empty();
        }
        try {
            if (type instanceof StringType) {
                return stringBound((String) value, bound).map(Literal::ofString);
            } else if (type instanceof IntegerType) {
                return Optional.of(Literal.ofInt(Math.toIntExact(((Number) integral(value)).longValue())));
            } else if (type instanceof LongType) {
                return Optional.of(Literal.ofLong(((Number) integral(value)).longValue()));
            } else if (type instanceof ShortType) {
                return Optional.of(Literal.ofShort(((Number) integral(value)).shortValue()));
            } else if (type instanceof ByteType) {
                return Optional.of(Literal.ofByte(((Number) integral(value)).byteValue()));
            } else if (type instanceof DoubleType) {
                double d = ((Number) value).doubleValue();
                return floatingBound(d, bound) ? Optional.of(Literal.ofDouble(d)) : Optional.empty();
            } else if (type instanceof FloatType) {
                float f = ((Number) value).floatValue();
                return floatingBound(f, bound) ? Optional.of(Literal.ofFloat(f)) : Optional.empty();
            } else if (type instanceof BooleanType) {
                return Optional.of(Literal.ofBoolean((Boolean) value));
            } else if (type instanceof DateType) {
                int days = Math.toIntExact(((Number) integral(value)).longValue());
                return days >= FIRST_DAY && days <= LAST_DAY ? Optional.of(Literal.ofDate(days)) : Optional.empty();
            } else if (type instanceof TimestampType) {
                long micros = ((Number) integral(value)).longValue();
                long millis = bound == Bound.MAX ? ceilToMillis(micros) : floorToMillis(micros);
                return millis >= FIRST_MICROS && millis <= LAST_MILLIS_MICROS
                        ? Optional.of(Literal.ofTimestamp(millis)) : Optional.empty();
            } else if (type instanceof DecimalType d) {
                BigDecimal decimal = ((BigDecimal) value).setScale(d.getScale(),
                        bound == Bound.MAX ? RoundingMode.CEILING : RoundingMode.FLOOR);
                return Optional.of(Literal.ofDecimal(decimal, d.getPrecision(), d.getScale()));
            }
        } catch (ClassCastException | ArithmeticException e) {
            throw new IllegalArgumentException("statistics value " + value + " (" + value.getClass().getSimpleName()
                    + ") of column '" + column + "' does not fit its type " + typeName(type), e);
        }
        return Optional.empty();
    }

    /**
     * A string bound of at most {@link #STRING_STATS_PREFIX} code points (plus one for a maximum),
     * so long text columns do not bloat the log. A minimum is cut to its prefix (still a lower
     * bound); a maximum is cut and followed by U+10FFFF, the highest code point, which keeps it an
     * upper bound for every string with that prefix; if the cut-off point itself is U+10FFFF no
     * safe short maximum exists and none is recorded.
     */
    static Optional<String> stringBound(String value, Bound bound) {
        if (value.codePointCount(0, value.length()) <= STRING_STATS_PREFIX) {
            return Optional.of(value);
        }
        int end = value.offsetByCodePoints(0, STRING_STATS_PREFIX);
        String prefix = value.substring(0, end);
        if (bound == Bound.MIN) {
            return Optional.of(prefix);
        }
        if (value.codePointAt(end) == Character.MAX_CODE_POINT) {
            return Optional.empty();
        }
        return Optional.of(prefix + new String(Character.toChars(Character.MAX_CODE_POINT)));
    }

    /** Rounds epoch microseconds up to a whole millisecond (unchanged when already whole). */
    static long ceilToMillis(long micros) {
        long rest = Math.floorMod(micros, 1000L);
        return rest == 0 ? micros : Math.addExact(micros - rest, 1000L);
    }

    /** Rounds epoch microseconds down to a whole millisecond, toward the past also before 1970. */
    static long floorToMillis(long micros) {
        return micros - Math.floorMod(micros, 1000L);
    }

    /** Whether a float or double can be a bound: finite, and not -0.0 as a minimum. */
    private static boolean floatingBound(double value, Bound bound) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return false;
        }
        return bound == Bound.MAX || Double.doubleToRawLongBits(value) != NEGATIVE_ZERO_BITS;
    }

    /** Whether a table field and a mapping column have the same Delta type. */
    static boolean sameType(StructField field, Column column) {
        return field.getDataType().equivalent(dataTypeOf(column));
    }

    private static Object integral(Object value) {
        if (value instanceof Byte || value instanceof Short || value instanceof Integer || value instanceof Long) {
            return value;
        }
        throw new ClassCastException("not an integral number");
    }

    private static boolean parseBoolean(String value) {
        if (value.equalsIgnoreCase("true")) {
            return true;
        }
        if (value.equalsIgnoreCase("false")) {
            return false;
        }
        throw new NumberFormatException("expected true or false");
    }

    /** Epoch micros of {@code 2026-06-22 08:16:00[.123456]} (UTC) or ISO-8601 with an offset. */
    static long parseTimestampMicros(String value) {
        Instant instant;
        if (value.indexOf('T') > 0) {
            instant = OffsetDateTime.parse(value).toInstant();
        } else {
            instant = LocalDateTime.parse(value, SPACE_TIMESTAMP).toInstant(ZoneOffset.UTC);
        }
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000L);
    }
}
