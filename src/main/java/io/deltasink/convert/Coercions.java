package io.deltasink.convert;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

import org.apache.kafka.connect.data.Struct;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;

/**
 * Turns a source value into a column's Java form (see {@link ColumnType}). Each function takes a
 * non-null value and throws {@link BadValueException} saying why it does not fit.
 */
final class Coercions {
    private static final Pattern NUMBER = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");
    /** {@link #common}'s answer for a type {@link #applyCommon} does not take. */
    static final int OTHER = 0;
    private static final int TEXT = 1;
    private static final int INT = 2;
    private static final int LONG = 3;
    private static final int DOUBLE = 4;
    private static final int BOOLEAN = 5;

    private Coercions() {
    }

    /** One column's coercion. */
    @FunctionalInterface
    interface Coercion {
        Object apply(Object value) throws BadValueException;
    }

    /**
     * @param numericUnit the unit of numbers in a timestamp column (the column's own, else the
     *                    connector's {@code timestamp.numeric.unit})
     */
    static Coercion of(ColumnSpec spec, EpochUnit numericUnit, Json json) {
        Column column = spec.column();
        EpochUnit unit = spec.unit() != null ? spec.unit() : numericUnit;
        String noUnit = "a number in a timestamp column needs its unit: set " + DeltaSinkConfig.TIMESTAMP_NUMERIC_UNIT
                + " (" + EpochUnit.COLUMN_NAMES + ") for the connector, or give the column its unit, e.g. "
                + column.name() + ":timestamp(millis)=" + spec.source().text();
        int common = common(column.type());
        return switch (column.type()) {
            case STRING, INT, LONG, DOUBLE, BOOLEAN -> v -> applyCommon(common, v, json);
            case SHORT -> v -> (short) integral(v, Short.MIN_VALUE, Short.MAX_VALUE, "short");
            case BYTE -> v -> (byte) integral(v, Byte.MIN_VALUE, Byte.MAX_VALUE, "byte");
            case FLOAT -> Coercions::toFloat;
            case BINARY -> Coercions::binary;
            case DATE -> Timestamps::epochDays;
            case TIMESTAMP -> v -> Timestamps.epochMicros(v, unit, noUnit);
            case DECIMAL -> v -> decimal(v, column.precision(), column.scale());
            case STRUCT, ARRAY, MAP -> NestedCoercion.of(spec, numericUnit, json);
        };
    }

    /** The code {@link #applyCommon} takes for the column type, or {@link #OTHER}. */
    static int common(ColumnType type) {
        return switch (type) {
            case STRING -> TEXT;
            case INT -> INT;
            case LONG -> LONG;
            case DOUBLE -> DOUBLE;
            case BOOLEAN -> BOOLEAN;
            default -> OTHER;
        };
    }

    /**
     * The coercion of the most common column types, by their {@link #common} code. A converter calls
     * it directly: a call through the one interface all columns' coercions share reaches many
     * classes, so the JIT can inline none of them.
     */
    static Object applyCommon(int common, Object v, Json json) throws BadValueException {
        return switch (common) {
            case TEXT -> text(v, json);
            // an Integer or Long as it came, not boxed again
            case INT -> v instanceof Integer ? v : (Object) (int) integral(v, Integer.MIN_VALUE, Integer.MAX_VALUE, "int");
            case LONG -> v instanceof Long ? v : (Object) integral(v, Long.MIN_VALUE, Long.MAX_VALUE, "long");
            case DOUBLE -> toDouble(v);
            case BOOLEAN -> toBoolean(v);
            default -> throw new IllegalArgumentException("not a common column type's code: " + common);
        };
    }

    /**
     * Text of a value: text as is, numbers and booleans as JSON prints them, bytes as UTF-8,
     * containers as JSON. The text is always valid Unicode; anything else is a bad value.
     */
    static String text(Object v, Json json) throws BadValueException {
        if (v instanceof String s) {
            return Unicode.valid(s);
        }
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        if (v instanceof byte[] b) {
            return Unicode.utf8(b);
        }
        if (v instanceof ByteBuffer bb) {
            return Unicode.utf8(bytes(bb));
        }
        if (v instanceof java.util.Date d) {
            return Instant.ofEpochMilli(d.getTime()).toString();
        }
        if (v instanceof Struct || v instanceof Map || v instanceof Collection || v instanceof JsonNode
                || v instanceof Object[]) {
            return Unicode.valid(json.write(v, null));
        }
        return Unicode.valid(v.toString());
    }

    static long integral(Object v, long min, long max, String type) throws BadValueException {
        long result;
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            result = ((Number) v).longValue();
        } else if (v instanceof String s) {
            String t = s.trim();
            try {
                result = Long.parseLong(t);
            } catch (NumberFormatException e) {
                if (!NUMBER.matcher(t).matches()) {
                    throw new BadValueException("cannot convert text to " + type + ": not a number");
                }
                result = wholeDecimal(new BigDecimal(t), type);
            }
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (!Double.isFinite(d)) {
                throw new BadValueException("cannot convert " + d + " to " + type);
            }
            result = wholeDecimal(BigDecimal.valueOf(d), type);
        } else if (v instanceof BigDecimal bd) {
            result = wholeDecimal(bd, type);
        } else if (v instanceof BigInteger bi) {
            if (bi.bitLength() > 63) {
                throw outOfRange(type);
            }
            result = bi.longValue();
        } else if (v instanceof java.util.Date d) {
            result = d.getTime();
        } else if (v instanceof Instant i) {
            try {
                result = i.toEpochMilli();
            } catch (ArithmeticException e) {
                throw outOfRange(type);
            }
        } else {
            throw cannot(v, type);
        }
        if (result < min || result > max) {
            throw outOfRange(type);
        }
        return result;
    }

    /** True for text that is a plain decimal number: optional sign, digits, optional fraction and exponent. */
    static boolean isNumber(String trimmed) {
        return NUMBER.matcher(trimmed).matches();
    }

    /**
     * {@code bd} when its magnitude is one a column could hold; a tiny fraction (below 10^-60) is
     * replaced by one that rounds the same at every scale a column has. Arithmetic on a number like
     * 1e-99999999 or 1e99999999 would otherwise take minutes and gigabytes.
     */
    static BigDecimal bounded(BigDecimal bd, String type) throws BadValueException {
        if (bd.signum() == 0) {
            return bd;
        }
        long magnitude = (long) bd.precision() - bd.scale();
        if (magnitude > 60) {
            throw outOfRange(type);
        }
        return magnitude < -60 ? BigDecimal.valueOf(bd.signum(), 61) : bd;
    }

    private static long wholeDecimal(BigDecimal input, String type) throws BadValueException {
        BigDecimal bd = bounded(input, type);
        if (bd.signum() != 0 && bd.scale() > 0 && bd.stripTrailingZeros().scale() > 0) {
            throw new BadValueException("cannot convert " + bd.toPlainString() + " to " + type + ": it has a fraction");
        }
        try {
            return bd.toBigIntegerExact().longValueExact();
        } catch (ArithmeticException e) {
            throw outOfRange(type);
        }
    }

    static Double toDouble(Object v) throws BadValueException {
        if (v instanceof Double d) {
            return d;
        }
        if (v instanceof Number n) {
            double d = n.doubleValue();
            if (Double.isInfinite(d)) {
                throw outOfRange("double");
            }
            return d;
        }
        if (v instanceof String s) {
            return parseDouble(s.trim(), "double");
        }
        throw cannot(v, "double");
    }

    static Float toFloat(Object v) throws BadValueException {
        double d;
        if (v instanceof Float f) {
            return f;
        } else if (v instanceof Number n) {
            d = n.doubleValue();
        } else if (v instanceof String s) {
            d = parseDouble(s.trim(), "float");
        } else {
            throw cannot(v, "float");
        }
        float f = (float) d;
        if (Float.isInfinite(f) && !Double.isInfinite(d)) {
            throw outOfRange("float");
        }
        return f;
    }

    private static double parseDouble(String t, String type) throws BadValueException {
        switch (t) {
            case "NaN": return Double.NaN;
            case "Infinity": case "+Infinity": return Double.POSITIVE_INFINITY;
            case "-Infinity": return Double.NEGATIVE_INFINITY;
            default:
                if (!NUMBER.matcher(t).matches()) {
                    throw new BadValueException("cannot convert text to " + type + ": not a number");
                }
                double d = Double.parseDouble(t);
                if (Double.isInfinite(d)) {
                    throw outOfRange(type);
                }
                return d;
        }
    }

    static Boolean toBoolean(Object v) throws BadValueException {
        if (v instanceof Boolean b) {
            return b;
        }
        if (v instanceof String s) {
            String t = s.trim().toLowerCase(Locale.ROOT);
            if (t.equals("true")) {
                return Boolean.TRUE;
            }
            if (t.equals("false")) {
                return Boolean.FALSE;
            }
            throw new BadValueException("cannot convert text to boolean: expected true or false");
        }
        throw cannot(v, "boolean");
    }

    static byte[] binary(Object v) throws BadValueException {
        if (v instanceof byte[] b) {
            return b;
        }
        if (v instanceof ByteBuffer bb) {
            return bytes(bb);
        }
        if (v instanceof String s) {
            return Unicode.valid(s).getBytes(StandardCharsets.UTF_8);
        }
        throw cannot(v, "binary");
    }

    static byte[] bytes(ByteBuffer bb) {
        ByteBuffer dup = bb.duplicate();
        byte[] out = new byte[dup.remaining()];
        dup.get(out);
        return out;
    }

    static BigDecimal decimal(Object v, int precision, int scale) throws BadValueException {
        String type = "decimal(" + precision + "," + scale + ")";
        BigDecimal bd;
        if (v instanceof BigDecimal b) {
            bd = b;
        } else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            bd = BigDecimal.valueOf(((Number) v).longValue());
        } else if (v instanceof BigInteger bi) {
            bd = new BigDecimal(bi);
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (!Double.isFinite(d)) {
                throw new BadValueException("cannot convert " + d + " to " + type);
            }
            bd = v instanceof Float f ? new BigDecimal(f.toString()) : BigDecimal.valueOf(d);
        } else if (v instanceof String s) {
            String t = s.trim();
            if (!NUMBER.matcher(t).matches()) {
                throw new BadValueException("cannot convert text to " + type + ": not a number");
            }
            bd = new BigDecimal(t);
        } else {
            throw cannot(v, type);
        }
        BigDecimal scaled = bounded(bd, type).setScale(scale, RoundingMode.HALF_UP);
        if (scaled.precision() > precision) {
            throw new BadValueException("number needs " + scaled.precision() + " digits at scale " + scale
                    + "; " + type + " holds at most " + precision);
        }
        return scaled;
    }

    /** A short name of a value's kind for messages: text, number, JSON object, Struct ... */
    static String kind(Object v) {
        if (v instanceof String) {
            return "text";
        }
        if (v instanceof Number) {
            return "number";
        }
        if (v instanceof Boolean) {
            return "boolean";
        }
        if (v instanceof JsonNode n) {
            return n.isObject() ? "JSON object" : n.isArray() ? "JSON array" : "JSON " + n.getNodeType().name().toLowerCase(Locale.ROOT);
        }
        if (v instanceof Struct) {
            return "Struct";
        }
        if (v instanceof Map) {
            return "map";
        }
        if (v instanceof Collection || v instanceof Object[]) {
            return "list";
        }
        if (v instanceof byte[] || v instanceof ByteBuffer) {
            return "bytes";
        }
        return v.getClass().getSimpleName();
    }

    static BadValueException cannot(Object v, String type) {
        return new BadValueException("cannot convert " + kind(v) + " to " + type);
    }

    private static BadValueException outOfRange(String type) {
        return new BadValueException("number is out of range for " + type);
    }
}
