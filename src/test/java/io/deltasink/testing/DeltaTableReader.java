package io.deltasink.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
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
import io.delta.kernel.types.ShortType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * An independent reader of Delta tables for tests: Kernel's public scan API plus raw log
 * parsing with Jackson. Uses none of the project's main code, and a fresh engine on a new
 * Hadoop {@link Configuration} each call (pass a configuration for S3).
 *
 * <p>Row values: String, Integer, Long, Short, Byte, Double, Float, Boolean, BigDecimal,
 * byte[], {@link LocalDate} for dates, {@link Instant} for timestamps, {@link LocalDateTime}
 * for timestamp_ntz; null stays null.
 */
public final class DeltaTableReader {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Pattern COMMIT_FILE = Pattern.compile("\\d{20}\\.json");

    private DeltaTableReader() {
    }

    /** All rows of the latest version, partition columns included, in file order. */
    public static List<Map<String, Object>> readAll(String tablePath) {
        return readAll(tablePath, new Configuration());
    }

    public static List<Map<String, Object>> readAll(String tablePath, Configuration conf) {
        List<Map<String, Object>> result = new ArrayList<>();
        forEachRow(tablePath, conf, row -> result.add(toMap(row)));
        return result;
    }

    /** The number of rows of the latest version, read with the same scan as {@link #readAll} but not kept. */
    public static long countRows(String tablePath, Configuration conf) {
        long[] rows = {0};
        forEachRow(tablePath, conf, row -> rows[0]++);
        return rows[0];
    }

    private static void forEachRow(String tablePath, Configuration conf, Consumer<Row> action) {
        Engine engine = DefaultEngine.create(conf);
        Snapshot snapshot = TableManager.loadSnapshot(tablePath).build(engine);
        Set<String> partitionColumns = Set.copyOf(snapshot.getPartitionColumnNames());
        StructType physicalSchema = new StructType(snapshot.getSchema().fields().stream()
                .filter(f -> !partitionColumns.contains(f.getName())).collect(Collectors.toList()));
        Scan scan = snapshot.getScanBuilder().build();
        Row scanState = scan.getScanState(engine);
        try (CloseableIterator<FilteredColumnarBatch> scanFiles = scan.getScanFiles(engine)) {
            while (scanFiles.hasNext()) {
                try (CloseableIterator<Row> fileRows = scanFiles.next().getRows()) {
                    while (fileRows.hasNext()) {
                        readFile(engine, scanState, fileRows.next(), physicalSchema, action);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void readFile(Engine engine, Row scanState, Row scanFile, StructType physicalSchema,
                                 Consumer<Row> out) throws IOException {
        Row add = scanFile.getStruct(scanFile.getSchema().indexOf("add"));
        StructType addSchema = add.getSchema();
        String tableRoot = scanFile.getString(scanFile.getSchema().indexOf("tableRoot"));
        String relative = add.getString(addSchema.indexOf("path"));
        String absolute = new Path(new Path(URI.create(tableRoot)), new Path(URI.create(relative))).toString();
        FileStatus file = FileStatus.of(absolute, add.getLong(addSchema.indexOf("size")),
                add.getLong(addSchema.indexOf("modificationTime")));
        CloseableIterator<ColumnarBatch> physical = engine.getParquetHandler()
                .readParquetFiles(singleton(file), physicalSchema, Optional.empty())
                .map(FileReadResult::getData);
        try (CloseableIterator<FilteredColumnarBatch> logical =
                     Scan.transformPhysicalData(engine, scanState, scanFile, physical)) {
            while (logical.hasNext()) {
                try (CloseableIterator<Row> rows = logical.next().getRows()) {
                    while (rows.hasNext()) {
                        out.accept(rows.next());
                    }
                }
            }
        }
    }

    private static Map<String, Object> toMap(Row row) {
        Map<String, Object> map = new LinkedHashMap<>();
        List<StructField> fields = row.getSchema().fields();
        for (int i = 0; i < fields.size(); i++) {
            map.put(fields.get(i).getName(), value(row, i, fields.get(i).getDataType()));
        }
        return map;
    }

    private static Object value(Row row, int i, DataType type) {
        if (row.isNullAt(i)) {
            return null;
        }
        if (type instanceof StringType) {
            return row.getString(i);
        } else if (type instanceof IntegerType) {
            return row.getInt(i);
        } else if (type instanceof LongType) {
            return row.getLong(i);
        } else if (type instanceof ShortType) {
            return row.getShort(i);
        } else if (type instanceof ByteType) {
            return row.getByte(i);
        } else if (type instanceof DoubleType) {
            return row.getDouble(i);
        } else if (type instanceof FloatType) {
            return row.getFloat(i);
        } else if (type instanceof BooleanType) {
            return row.getBoolean(i);
        } else if (type instanceof DateType) {
            return LocalDate.ofEpochDay(row.getInt(i));
        } else if (type instanceof TimestampType) {
            long micros = row.getLong(i);
            return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
        } else if (type instanceof TimestampNTZType) {
            long micros = row.getLong(i);
            return LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                    (int) (Math.floorMod(micros, 1_000_000L) * 1000L), ZoneOffset.UTC);
        } else if (type instanceof DecimalType) {
            return row.getDecimal(i);
        } else if (type instanceof BinaryType) {
            return row.getBinary(i);
        }
        throw new UnsupportedOperationException("reader does not handle type " + type);
    }

    /** The latest version of the table. */
    public static long version(String tablePath) {
        return version(tablePath, new Configuration());
    }

    public static long version(String tablePath, Configuration conf) {
        Engine engine = DefaultEngine.create(conf);
        return TableManager.loadSnapshot(tablePath).build(engine).getVersion();
    }

    /** The latest txn version of {@code appId} as Kernel reads it (checkpoints included). */
    public static Optional<Long> txnVersion(String tablePath, String appId) {
        return txnVersion(tablePath, appId, new Configuration());
    }

    public static Optional<Long> txnVersion(String tablePath, String appId, Configuration conf) {
        Engine engine = DefaultEngine.create(conf);
        return TableManager.loadSnapshot(tablePath).build(engine).getLatestTransactionVersion(engine, appId);
    }

    /** Names of the files in {@code _delta_log}, sorted. */
    public static List<String> logFileNames(String tablePath) {
        return logFileNames(tablePath, new Configuration());
    }

    public static List<String> logFileNames(String tablePath, Configuration conf) {
        try {
            Path log = new Path(tablePath, "_delta_log");
            FileSystem fs = log.getFileSystem(conf);
            List<String> names = new ArrayList<>();
            for (org.apache.hadoop.fs.FileStatus status : fs.listStatus(log)) {
                names.add(status.getPath().getName());
            }
            names.sort(null);
            return names;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The actions of commit file {@code version}, one JSON object per action, in file order. */
    public static List<JsonNode> actions(String tablePath, long version) {
        return actions(tablePath, version, new Configuration());
    }

    public static List<JsonNode> actions(String tablePath, long version, Configuration conf) {
        Path file = new Path(new Path(tablePath, "_delta_log"), String.format("%020d.json", version));
        List<JsonNode> actions = new ArrayList<>();
        try {
            FileSystem fs = file.getFileSystem(conf);
            try (FSDataInputStream in = fs.open(file);
                 BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    if (!line.isBlank()) {
                        actions.add(MAPPER.readTree(line));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return actions;
    }

    /** The actions of one kind ({@code add}, {@code txn}, {@code metaData} ...) of commit {@code version}. */
    public static List<JsonNode> actions(String tablePath, long version, String kind) {
        return actions(tablePath, version).stream().filter(a -> a.has(kind)).map(a -> a.get(kind))
                .collect(Collectors.toList());
    }

    /** commitInfo.operation of every commit file, keyed by version. */
    public static Map<Long, String> commitOperations(String tablePath) {
        Map<Long, String> operations = new TreeMap<>();
        for (String name : logFileNames(tablePath)) {
            if (COMMIT_FILE.matcher(name).matches()) {
                long version = Long.parseLong(name.substring(0, 20));
                List<JsonNode> infos = actions(tablePath, version, "commitInfo");
                operations.put(version, infos.isEmpty() ? null : infos.get(0).path("operation").asText(null));
            }
        }
        return operations;
    }

    /** Parses an add action's stats JSON string. */
    public static JsonNode stats(JsonNode add) {
        try {
            return MAPPER.readTree(add.get("stats").asText());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static <T> CloseableIterator<T> singleton(T value) {
        Iterator<T> it = List.of(value).iterator();
        return new CloseableIterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public T next() {
                return it.next();
            }

            @Override
            public void close() {
            }
        };
    }
}
