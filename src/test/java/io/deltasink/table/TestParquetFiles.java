package io.deltasink.table;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.DataFile;

/**
 * Writes real Parquet data files with parquet-hadoop's example writer (not the project's own
 * writer) and describes them as {@link DataFile}s with statistics computed from the rows.
 */
final class TestParquetFiles {

    private TestParquetFiles() {
    }

    /**
     * Writes {@code rows} (values in the ColumnType forms) of the data columns into
     * {@code <table>/<dir>/part-<uuid>.parquet}.
     *
     * @param dir relative directory (e.g. {@code device_type=plug}), "" for the table root
     */
    static DataFile write(String tablePath, String dir, List<Column> dataColumns, Map<String, String> partitionValues,
                          List<Map<String, Object>> rows) {
        String relative = (dir.isEmpty() ? "" : dir + "/") + "part-" + UUID.randomUUID() + ".snappy.parquet";
        Path file = new Path(tablePath + "/" + relative);
        MessageType type = messageType(dataColumns);
        Configuration conf = new Configuration();
        SimpleGroupFactory groups = new SimpleGroupFactory(type);
        try {
            try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(file).withConf(conf).withType(type).build()) {
                for (Map<String, Object> row : rows) {
                    Group group = groups.newGroup();
                    for (Column c : dataColumns) {
                        Object v = row.get(c.name());
                        if (v != null) {
                            add(group, c, v);
                        }
                    }
                    writer.write(group);
                }
            }
            FileStatus status = file.getFileSystem(conf).getFileStatus(file);
            return new DataFile(relative, partitionValues, status.getLen(), status.getModificationTime(),
                    stats(dataColumns, rows));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static DataFile.FileStats stats(List<Column> dataColumns, List<Map<String, Object>> rows) {
        Map<String, Object> min = new LinkedHashMap<>();
        Map<String, Object> max = new LinkedHashMap<>();
        Map<String, Long> nulls = new HashMap<>();
        for (Column c : dataColumns) {
            long n = 0;
            for (Map<String, Object> row : rows) {
                Object v = row.get(c.name());
                if (v == null) {
                    n++;
                    continue;
                }
                if (c.type() == ColumnType.BINARY) {
                    continue;
                }
                if (!min.containsKey(c.name()) || compare(v, min.get(c.name())) < 0) {
                    min.put(c.name(), v);
                }
                if (!max.containsKey(c.name()) || compare(v, max.get(c.name())) > 0) {
                    max.put(c.name(), v);
                }
            }
            nulls.put(c.name(), n);
        }
        return new DataFile.FileStats(rows.size(), min, max, nulls);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compare(Object a, Object b) {
        return ((Comparable) a).compareTo(b);
    }

    static MessageType messageType(List<Column> columns) {
        Types.MessageTypeBuilder builder = Types.buildMessage();
        for (Column c : columns) {
            Type.Repetition rep = c.nullable() ? Type.Repetition.OPTIONAL : Type.Repetition.REQUIRED;
            builder.addField(switch (c.type()) {
                case STRING -> Types.primitive(PrimitiveTypeName.BINARY, rep)
                        .as(LogicalTypeAnnotation.stringType()).named(c.name());
                case INT -> Types.primitive(PrimitiveTypeName.INT32, rep).named(c.name());
                case LONG -> Types.primitive(PrimitiveTypeName.INT64, rep).named(c.name());
                case DOUBLE -> Types.primitive(PrimitiveTypeName.DOUBLE, rep).named(c.name());
                case BOOLEAN -> Types.primitive(PrimitiveTypeName.BOOLEAN, rep).named(c.name());
                case DATE -> Types.primitive(PrimitiveTypeName.INT32, rep)
                        .as(LogicalTypeAnnotation.dateType()).named(c.name());
                case TIMESTAMP -> Types.primitive(PrimitiveTypeName.INT64, rep)
                        .as(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MICROS))
                        .named(c.name());
                case DECIMAL -> Types.primitive(PrimitiveTypeName.INT64, rep)
                        .as(LogicalTypeAnnotation.decimalType(c.scale(), c.precision())).named(c.name());
                default -> throw new IllegalArgumentException("test writer does not handle " + c.type());
            });
        }
        return builder.named("spark_schema");
    }

    private static void add(Group group, Column c, Object v) {
        switch (c.type()) {
            case STRING -> group.add(c.name(), Binary.fromString((String) v));
            case INT, DATE -> group.add(c.name(), (Integer) v);
            case LONG, TIMESTAMP -> group.add(c.name(), (Long) v);
            case DOUBLE -> group.add(c.name(), (Double) v);
            case BOOLEAN -> group.add(c.name(), (Boolean) v);
            case DECIMAL -> group.add(c.name(), ((BigDecimal) v).unscaledValue().longValueExact());
            default -> throw new IllegalArgumentException("test writer does not handle " + c.type());
        }
    }
}
