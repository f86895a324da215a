package io.deltasink.write;

import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Type.Repetition;
import org.apache.parquet.schema.Types;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.NestedType;

/**
 * The file schema and the record writing of a table with struct, array or map columns, through
 * parquet-mr's record path ({@link WriteSupport}): Parquet's standard nested layout as Spark
 * writes it (a struct is a group; a list is {@code LIST} / repeated {@code list} / optional
 * {@code element}; a map is {@code MAP} / repeated {@code key_value} / required string
 * {@code key}, optional {@code value}). Flat columns of such a table are written the same way as
 * by {@link RowColumns}. Rows have passed {@link RowChecker}, which checks nested values deeply.
 */
final class NestedRecords {
    private final MessageType schema;
    private final List<Column> dataColumns;
    private final int[] rowIndexes;

    NestedRecords(List<Column> dataColumns, int[] rowIndexes) {
        this.dataColumns = List.copyOf(dataColumns);
        this.rowIndexes = rowIndexes.clone();
        Types.MessageTypeBuilder builder = Types.buildMessage();
        for (Column c : dataColumns) {
            builder.addField(field(c));
        }
        this.schema = builder.named(ParquetSchemas.MESSAGE_NAME);
    }

    /** True when any of the columns is a struct, array or map. */
    static boolean anyNested(List<Column> columns) {
        return columns.stream().anyMatch(c -> c.type().isNested());
    }

    /** The leading columns before the first nested one: their chunks are the first of the file, in order. */
    static List<Column> leadingFlat(List<Column> columns) {
        int n = 0;
        while (n < columns.size() && !columns.get(n).type().isNested()) {
            n++;
        }
        return columns.subList(0, n);
    }

    MessageType schema() {
        return schema;
    }

    static Type field(Column c) {
        if (c.nested() == null) {
            return ParquetSchemas.field(c);
        }
        return type(c.name(), c.nested(), c.nullable() ? Repetition.OPTIONAL : Repetition.REQUIRED);
    }

    private static Type type(String name, NestedType t, Repetition rep) {
        if (t instanceof NestedType.Leaf l) {
            return ParquetSchemas.field(new Column(name, l.type(), l.precision(), l.scale(), rep == Repetition.OPTIONAL));
        }
        if (t instanceof NestedType.Struct s) {
            Types.GroupBuilder<org.apache.parquet.schema.GroupType> g = Types.buildGroup(rep);
            for (NestedType.Field f : s.fields()) {
                g.addField(type(f.name(), f.type(), Repetition.OPTIONAL));
            }
            return g.named(name);
        }
        if (t instanceof NestedType.Array a) {
            return Types.buildGroup(rep).as(LogicalTypeAnnotation.listType())
                    .addField(Types.repeatedGroup().addField(type("element", a.element(), Repetition.OPTIONAL)).named("list"))
                    .named(name);
        }
        NestedType.MapOf m = (NestedType.MapOf) t;
        return Types.buildGroup(rep).as(LogicalTypeAnnotation.mapType())
                .addField(Types.repeatedGroup()
                        .addField(Types.required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("key"))
                        .addField(type("value", m.value(), Repetition.OPTIONAL))
                        .named("key_value"))
                .named(name);
    }

    /** The write support for parquet-mr's writer: one row array per record. */
    WriteSupport<Object[]> writeSupport() {
        return new WriteSupport<>() {
            private RecordConsumer consumer;

            @Override
            public WriteContext init(Configuration configuration) {
                return new WriteContext(schema, new HashMap<>());
            }

            @Override
            public String getName() {
                return RowColumns.WRITER_NAME;
            }

            @Override
            public void prepareForWrite(RecordConsumer recordConsumer) {
                this.consumer = recordConsumer;
            }

            @Override
            public void write(Object[] row) {
                consumer.startMessage();
                for (int i = 0; i < rowIndexes.length; i++) {
                    Object v = row[rowIndexes[i]];
                    if (v != null) {
                        Column c = dataColumns.get(i);
                        consumer.startField(c.name(), i);
                        if (c.nested() == null) {
                            leaf(consumer, c.type(), c.precision(), v);
                        } else {
                            value(consumer, c.nested(), v);
                        }
                        consumer.endField(c.name(), i);
                    }
                }
                consumer.endMessage();
            }
        };
    }

    private static void value(RecordConsumer rc, NestedType t, Object v) {
        if (t instanceof NestedType.Leaf l) {
            leaf(rc, l.type(), l.precision(), v);
        } else if (t instanceof NestedType.Struct s) {
            Object[] values = (Object[]) v;
            rc.startGroup();
            for (int i = 0; i < values.length; i++) {
                if (values[i] != null) {
                    String name = s.fields().get(i).name();
                    rc.startField(name, i);
                    value(rc, s.fields().get(i).type(), values[i]);
                    rc.endField(name, i);
                }
            }
            rc.endGroup();
        } else if (t instanceof NestedType.Array a) {
            List<?> list = (List<?>) v;
            rc.startGroup();
            if (!list.isEmpty()) {
                rc.startField("list", 0);
                for (Object e : list) {
                    rc.startGroup();
                    if (e != null) {
                        rc.startField("element", 0);
                        value(rc, a.element(), e);
                        rc.endField("element", 0);
                    }
                    rc.endGroup();
                }
                rc.endField("list", 0);
            }
            rc.endGroup();
        } else {
            NestedType.MapOf m = (NestedType.MapOf) t;
            Map<?, ?> map = (Map<?, ?>) v;
            rc.startGroup();
            if (!map.isEmpty()) {
                rc.startField("key_value", 0);
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    rc.startGroup();
                    rc.startField("key", 0);
                    rc.addBinary(Binary.fromString((String) e.getKey()));
                    rc.endField("key", 0);
                    if (e.getValue() != null) {
                        rc.startField("value", 1);
                        value(rc, m.value(), e.getValue());
                        rc.endField("value", 1);
                    }
                    rc.endGroup();
                }
                rc.endField("key_value", 0);
            }
            rc.endGroup();
        }
    }

    private static void leaf(RecordConsumer rc, ColumnType type, int precision, Object v) {
        switch (type) {
            case STRING -> rc.addBinary(Binary.fromString((String) v));
            case INT, DATE, SHORT, BYTE -> rc.addInteger(((Number) v).intValue());
            case LONG, TIMESTAMP -> rc.addLong((Long) v);
            case DOUBLE -> rc.addDouble((Double) v);
            case FLOAT -> rc.addFloat((Float) v);
            case BOOLEAN -> rc.addBoolean((Boolean) v);
            case BINARY -> rc.addBinary(Binary.fromConstantByteArray((byte[]) v));
            case DECIMAL -> {
                BigDecimal d = (BigDecimal) v;
                switch (ParquetSchemas.decimalPhysicalType(precision)) {
                    case INT32 -> rc.addInteger(d.unscaledValue().intValueExact());
                    case INT64 -> rc.addLong(d.unscaledValue().longValueExact());
                    default -> rc.addBinary(Binary.fromConstantByteArray(
                            RowColumns.fixedBytes(d.unscaledValue(), ParquetSchemas.decimalBytes(precision))));
                }
            }
            default -> throw new IllegalStateException("not a leaf: " + type);
        }
    }

    /**
     * Checks a nested value deeply against its column's type, so that parquet-mr's writer never
     * fails in the middle of a record.
     *
     * @throws RowRejectedException naming the column and the path inside it
     */
    static void check(Column column, Object v) {
        check(column, column.nested(), v, "");
    }

    private static void check(Column column, NestedType t, Object v, String path) {
        if (v == null) {
            return;
        }
        if (t instanceof NestedType.Leaf l) {
            Column leaf = new Column(column.name(), l.type(), l.precision(), l.scale(), true);
            Class<?> expected = RowChecker.expectedClass(leaf);
            if (!expected.isInstance(v)) {
                throw new RowRejectedException(column.name(), v, "at " + path + ": type " + l.ddl() + " expects "
                        + expected.getSimpleName() + ", got " + v.getClass().getName());
            }
            if (v instanceof BigDecimal d && (d.scale() != l.scale() || d.precision() > l.precision())) {
                throw new RowRejectedException(column.name(), v, "at " + path + ": type " + l.ddl() + " cannot hold "
                        + d.toPlainString());
            }
        } else if (t instanceof NestedType.Struct s) {
            if (!(v instanceof Object[] values) || values.length != s.fields().size()) {
                throw new RowRejectedException(column.name(), v, "at " + path + ": " + s.ddl() + " expects Object["
                        + s.fields().size() + "]");
            }
            for (int i = 0; i < values.length; i++) {
                check(column, s.fields().get(i).type(), values[i], path + "." + s.fields().get(i).name());
            }
        } else if (t instanceof NestedType.Array a) {
            if (!(v instanceof List<?> list)) {
                throw new RowRejectedException(column.name(), v, "at " + path + ": " + a.ddl() + " expects a List");
            }
            int i = 0;
            for (Object e : list) {
                check(column, a.element(), e, path + "[" + i++ + "]");
            }
        } else {
            NestedType.MapOf m = (NestedType.MapOf) t;
            if (!(v instanceof Map<?, ?> map)) {
                throw new RowRejectedException(column.name(), v, "at " + path + ": " + m.ddl() + " expects a Map");
            }
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (!(e.getKey() instanceof String key)) {
                    throw new RowRejectedException(column.name(), v, "at " + path + ": map keys must be non-null strings");
                }
                check(column, m.value(), e.getValue(), path + "[" + key + "]");
            }
        }
    }
}
