package io.deltasink.convert;

import java.math.BigDecimal;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.NestedType;
import io.deltasink.model.RowSchema;

/**
 * {@code columns=auto}: derives a mapping from the shape of a first record's value (used until the
 * table exists; then the table's columns are the mapping, see {@link #forTable}). Nested
 * fields are flattened, their names joined with {@code _} ({@code payload.power} becomes
 * {@code payload_power}); every column is nullable.
 *
 * <ul>
 *   <li>A {@code Struct} maps by its Connect schema: int8/16/32/64 to byte/short/int/long,
 *       float32/64 to float/double, boolean, string, bytes to binary, logical Timestamp, Date
 *       and Decimal to timestamp, date and decimal, logical Time to int (milliseconds of the
 *       day), nested structs flattened; an array to an {@code array<...>} column and a map of
 *       string keys to a {@code map<string,...>} column, their elements and values typed by the
 *       same rules (a struct inside them becomes a {@code struct<...>}, since a list cannot be
 *       flattened); a map of other keys, or a struct field whose name no column may carry,
 *       to string (JSON text).</li>
 *   <li>A {@code Map} (or JSON text holding an object) maps by its values: integers to long,
 *       other numbers to double, booleans to boolean, text to string, nested maps flattened,
 *       lists and anything else (null too) to string (JSON text).</li>
 * </ul>
 * Characters a Delta column name may not hold become {@code _}; a name taken twice gets a
 * {@code _2}, {@code _3} ... suffix.
 */
public final class AutoMapping {
    private static final int DEFAULT_DECIMAL_PRECISION = 38;

    private final List<ColumnSpec> specs = new ArrayList<>();
    private final Set<String> taken = new HashSet<>();
    /** Leave out fields whose value is null (schema evolution: their type is not known). */
    private final boolean skipNulls;

    private AutoMapping(boolean skipNulls) {
        this.skipNulls = skipNulls;
    }

    /**
     * Derives the mapping from one record.
     *
     * @throws RecordConversionException when the value is not a Struct, a Map or JSON text holding an
     *                                   object, or yields no columns
     */
    public static ColumnMapping derive(SinkRecord first) {
        AutoMapping auto = of(first, false);
        if (auto.specs.isEmpty()) {
            throw new RecordConversionException(first, null, first.value(), "columns=auto found no fields in the value");
        }
        return new ColumnMapping(auto.specs);
    }

    /**
     * {@code columns=auto} with schema evolution: the columns that {@code record}'s fields give and
     * {@code known} lacks (names compared ignoring case, as Delta does), nullable, typed as
     * {@link #derive} types them. A field whose value is null gives none (its type is not known
     * yet). Empty when the record's value gives no columns at all (not JSON, not an object): the
     * conversion reports such a record.
     */
    public static List<Column> newColumns(SinkRecord record, RowSchema known) {
        AutoMapping auto;
        try {
            auto = of(record, true);
        } catch (RecordConversionException e) {
            return List.of();
        }
        Set<String> names = new HashSet<>();
        known.columns().forEach(c -> names.add(c.name().toLowerCase(Locale.ROOT)));
        List<Column> out = new ArrayList<>();
        for (ColumnSpec spec : auto.specs) {
            if (names.add(spec.column().name().toLowerCase(Locale.ROOT))) {
                out.add(spec.column());
            }
        }
        return out;
    }

    private static AutoMapping of(SinkRecord first, boolean skipNulls) {
        Object value = first.value();
        AutoMapping auto = new AutoMapping(skipNulls);
        if (value instanceof Struct s) {
            auto.struct(s.schema(), List.of());
        } else if (value instanceof Map<?, ?> m) {
            auto.map(m, List.of());
        } else if (value instanceof String || value instanceof byte[]) {
            JsonNode node;
            try {
                node = new Json().parse(value);
            } catch (Json.NotJsonException e) {
                throw new RecordConversionException(first, null, value,
                        "columns=auto: value is not valid JSON (" + e.getMessage() + ")");
            }
            if (!node.isObject()) {
                throw new RecordConversionException(first, null, value,
                        "columns=auto needs a JSON object, a Map or a Struct, got a JSON " + node.getNodeType().name().toLowerCase(Locale.ROOT));
            }
            auto.json(node, List.of());
        } else {
            throw new RecordConversionException(first, null, value, value == null
                    ? "columns=auto needs a first record with a value, got null"
                    : "columns=auto needs a Struct, a Map or JSON text, got " + value.getClass().getSimpleName());
        }
        return auto;
    }

    /**
     * A converter writing exactly the columns of an existing table (after a restart the mapping
     * comes from the table, not from whichever record comes first); see {@link AutoTableConverter}.
     */
    public static RecordConverter forTable(RowSchema tableColumns, Clock clock, EpochUnit numericUnit) {
        return new AutoTableConverter(tableColumns, clock, numericUnit);
    }

    private void struct(Schema schema, List<String> prefix) {
        for (Field f : schema.fields()) {
            List<String> path = append(prefix, f.name());
            Schema fs = f.schema();
            if (fs.type() == Schema.Type.STRUCT && !isLogical(fs)) {
                struct(fs, path);
            } else {
                add(path, column(fs, path), false);
            }
        }
    }

    private static boolean isLogical(Schema s) {
        String n = s.name();
        return Decimal.LOGICAL_NAME.equals(n) || Date.LOGICAL_NAME.equals(n) || Time.LOGICAL_NAME.equals(n)
                || Timestamp.LOGICAL_NAME.equals(n);
    }

    private Column column(Schema s, List<String> path) {
        String name = name(path);
        if (s.type() == Schema.Type.ARRAY || s.type() == Schema.Type.MAP) {
            NestedType nested = nested(s);
            return nested == null ? Column.of(name, ColumnType.STRING, true) : Column.nested(name, nested, true);
        }
        String logical = s.name();
        if (Decimal.LOGICAL_NAME.equals(logical)) {
            int scale = Integer.parseInt(s.parameters().get(Decimal.SCALE_FIELD));
            String p = s.parameters().get("connect.decimal.precision");
            int precision = p == null ? DEFAULT_DECIMAL_PRECISION : Integer.parseInt(p);
            return new Column(name, ColumnType.DECIMAL, Math.max(precision, scale), scale, true);
        }
        if (Timestamp.LOGICAL_NAME.equals(logical)) {
            return Column.of(name, ColumnType.TIMESTAMP, true);
        }
        if (Date.LOGICAL_NAME.equals(logical)) {
            return Column.of(name, ColumnType.DATE, true);
        }
        ColumnType type = switch (s.type()) {
            case INT8 -> ColumnType.BYTE;
            case INT16 -> ColumnType.SHORT;
            case INT32 -> ColumnType.INT;
            case INT64 -> ColumnType.LONG;
            case FLOAT32 -> ColumnType.FLOAT;
            case FLOAT64 -> ColumnType.DOUBLE;
            case BOOLEAN -> ColumnType.BOOLEAN;
            case BYTES -> ColumnType.BINARY;
            default -> ColumnType.STRING;
        };
        return Column.of(name, type, true);
    }

    /** The nested type of a Connect schema, or null when it cannot be one (a map of non-string keys, a field name no column may carry). */
    private static NestedType nested(Schema s) {
        switch (s.type()) {
            case ARRAY: {
                NestedType e = nested(s.valueSchema());
                return e == null ? null : new NestedType.Array(e);
            }
            case MAP: {
                NestedType v = s.keySchema().type() == Schema.Type.STRING ? nested(s.valueSchema()) : null;
                return v == null ? null : new NestedType.MapOf(v);
            }
            case STRUCT:
                if (!isLogical(s)) {
                    List<NestedType.Field> fields = new ArrayList<>();
                    Set<String> names = new HashSet<>();
                    for (Field f : s.fields()) {
                        NestedType t = nested(f.schema());
                        if (t == null || !name(List.of(f.name())).equals(f.name())
                                || !names.add(f.name().toLowerCase(Locale.ROOT))) {
                            return null;
                        }
                        fields.add(new NestedType.Field(f.name(), t));
                    }
                    return fields.isEmpty() ? null : new NestedType.Struct(fields);
                }
                break;
            default:
                break;
        }
        Column leaf = new AutoMapping(false).column(s, List.of("x"));
        return new NestedType.Leaf(leaf.type(), leaf.precision(), leaf.scale());
    }

    private void map(Map<?, ?> map, List<String> prefix) {
        for (Map.Entry<?, ?> e : map.entrySet()) {
            List<String> path = append(prefix, String.valueOf(e.getKey()));
            Object v = e.getValue();
            if (v instanceof Map<?, ?> nested) {
                map(nested, path);
            } else {
                add(path, Column.of(name(path), inferred(v), true), v == null);
            }
        }
    }

    private static ColumnType inferred(Object v) {
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            return ColumnType.LONG;
        }
        if (v instanceof Float || v instanceof Double || v instanceof BigDecimal) {
            return ColumnType.DOUBLE;
        }
        return v instanceof Boolean ? ColumnType.BOOLEAN : ColumnType.STRING;
    }

    private void json(JsonNode node, List<String> prefix) {
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            List<String> path = append(prefix, e.getKey());
            JsonNode v = e.getValue();
            if (v.isObject()) {
                json(v, path);
            } else {
                ColumnType type = v.isIntegralNumber() ? ColumnType.LONG : v.isNumber() ? ColumnType.DOUBLE
                        : v.isBoolean() ? ColumnType.BOOLEAN : ColumnType.STRING;
                add(path, Column.of(name(path), type, true), v.isNull());
            }
        }
    }

    private void add(List<String> path, Column column, boolean nullValue) {
        String name = column.name();
        String unique = name;
        for (int i = 2; !taken.add(unique.toLowerCase(Locale.ROOT)); i++) {
            unique = name + "_" + i;
        }
        if (nullValue && skipNulls) {
            return; // the name stays taken, so the fields after it are named as derive() names them
        }
        Column c = unique.equals(name) ? column
                : new Column(unique, column.type(), column.precision(), column.scale(), true, column.nested());
        specs.add(new ColumnSpec(c, new Source.Field(path, false)));
    }

    private static String name(List<String> path) {
        StringBuilder sb = new StringBuilder();
        for (String seg : path) {
            if (sb.length() > 0) {
                sb.append('_');
            }
            for (int i = 0; i < seg.length(); i++) {
                char c = seg.charAt(i);
                sb.append(MappingParser.NAME_FORBIDDEN.indexOf(c) >= 0 || Character.isWhitespace(c) ? '_' : c);
            }
        }
        return sb.length() == 0 ? "_" : sb.toString();
    }

    private static List<String> append(List<String> prefix, String segment) {
        List<String> out = new ArrayList<>(prefix.size() + 1);
        out.addAll(prefix);
        out.add(segment);
        return out;
    }
}
