package io.deltasink.model;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The type of a struct, array or map column, and of everything inside it, spelled as Spark DDL
 * ({@code struct<street:string,zip:int>}, {@code array<string>}, {@code map<string,double>}).
 * Map keys are strings only. Struct fields, array elements and map values are all nullable.
 *
 * <p>Converted values: a struct is an {@code Object[]} in field order, an array a
 * {@code java.util.List}, a map a {@code java.util.Map<String, Object>} (insertion order kept);
 * leaves hold the Java forms listed on {@link ColumnType}.
 */
public sealed interface NestedType {

    /** The type in Spark DDL, as the mapping grammar reads it. */
    String ddl();

    /** A flat type inside a nested one (never STRUCT, ARRAY or MAP). */
    record Leaf(ColumnType type, int precision, int scale) implements NestedType {
        public Leaf {
            Objects.requireNonNull(type, "type");
            if (type.isNested()) {
                throw new IllegalArgumentException("a leaf is a flat type, not " + type);
            }
        }

        @Override
        public String ddl() {
            return type == ColumnType.DECIMAL ? "decimal(" + precision + "," + scale + ")" : type.deltaName();
        }
    }

    /** One field of a struct; always nullable. */
    record Field(String name, NestedType type) {
        public Field {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(type, "type");
        }
    }

    record Struct(List<Field> fields) implements NestedType {
        public Struct {
            fields = List.copyOf(fields);
            if (fields.isEmpty()) {
                throw new IllegalArgumentException("a struct needs at least one field");
            }
        }

        @Override
        public String ddl() {
            return fields.stream().map(f -> f.name() + ":" + f.type().ddl()).collect(Collectors.joining(",", "struct<", ">"));
        }
    }

    /** A list whose elements may be null. */
    record Array(NestedType element) implements NestedType {
        public Array {
            Objects.requireNonNull(element, "element");
        }

        @Override
        public String ddl() {
            return "array<" + element.ddl() + ">";
        }
    }

    /** A map of string keys (never null) to values that may be null. */
    record MapOf(NestedType value) implements NestedType {
        public MapOf {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public String ddl() {
            return "map<string," + value.ddl() + ">";
        }
    }

    /** The column type of the outermost level. */
    static ColumnType columnType(NestedType t) {
        if (t instanceof Struct) {
            return ColumnType.STRUCT;
        }
        if (t instanceof Array) {
            return ColumnType.ARRAY;
        }
        if (t instanceof MapOf) {
            return ColumnType.MAP;
        }
        return ((Leaf) t).type();
    }
}
