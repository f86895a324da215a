package io.deltasink.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.expressions.PredicateEvaluator;
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
        return read(tablePath, conf);
    }

    /** The latest version with every file read once, to run many filters against (see {@link Loaded}). */
    public static Loaded load(String tablePath) {
        Engine engine = DefaultEngine.create(new Configuration());
        Snapshot snapshot = TableManager.loadSnapshot(tablePath).build(engine);
        Map<String, List<FilteredColumnarBatch>> files = new LinkedHashMap<>();
        Scan scan = snapshot.getScanBuilder().build();
        Row scanState = scan.getScanState(engine);
        StructType physicalSchema = physicalSchema(snapshot);
        forEachScanFile(engine, scan, scanFile -> files.put(addPath(scanFile),
                readFile(engine, scanState, scanFile, physicalSchema)));
        return new Loaded(engine, snapshot, files);
    }

    /**
     * A snapshot and the data of all its files. {@link #query} answers a filter as a reader does:
     * the files a scan built with the filter keeps after data skipping (partition values and
     * column statistics), then the rows of those files for which Kernel's predicate evaluator says
     * true; {@link #matching} evaluates the filter on every file. They differ only when data skipping
     * dropped a file that holds a match.
     */
    public static final class Loaded {
        private final Engine engine;
        private final Snapshot snapshot;
        private final Map<String, List<FilteredColumnarBatch>> files;

        private Loaded(Engine engine, Snapshot snapshot, Map<String, List<FilteredColumnarBatch>> files) {
            this.engine = engine;
            this.snapshot = snapshot;
            this.files = files;
        }

        public List<Map<String, Object>> query(Predicate filter) {
            return rows(filesKept(filter), filter);
        }

        public List<Map<String, Object>> matching(Predicate filter) {
            return rows(List.copyOf(files.keySet()), filter);
        }

        /** The add paths (as in the log) of the files a scan with {@code filter} keeps. */
        public List<String> filesKept(Predicate filter) {
            List<String> paths = new ArrayList<>();
            forEachScanFile(engine, snapshot.getScanBuilder().withFilter(filter).build(),
                    scanFile -> paths.add(addPath(scanFile)));
            return paths;
        }

        private List<Map<String, Object>> rows(List<String> paths, Predicate filter) {
            PredicateEvaluator evaluator = engine.getExpressionHandler().getPredicateEvaluator(snapshot.getSchema(), filter);
            List<Map<String, Object>> out = new ArrayList<>();
            for (String path : paths) {
                for (FilteredColumnarBatch batch : files.get(path)) {
                    ColumnVector selected = evaluator.eval(batch.getData(), batch.getSelectionVector());
                    addRows(new FilteredColumnarBatch(batch.getData(), Optional.of(selected)), out);
                }
            }
            return out;
        }
    }

    /** All rows of {@code version} (time travel), partition columns included, in file order. */
    public static List<Map<String, Object>> readAll(String tablePath, long version, Configuration conf) {
        Engine engine = DefaultEngine.create(conf);
        return read(engine, TableManager.loadSnapshot(tablePath).atVersion(version).build(engine));
    }

    private static List<Map<String, Object>> read(String tablePath, Configuration conf) {
        Engine engine = DefaultEngine.create(conf);
        return read(engine, TableManager.loadSnapshot(tablePath).build(engine));
    }

    private static List<Map<String, Object>> read(Engine engine, Snapshot snapshot) {
        Scan scan = snapshot.getScanBuilder().build();
        Row scanState = scan.getScanState(engine);
        StructType physicalSchema = physicalSchema(snapshot);
        List<Map<String, Object>> result = new ArrayList<>();
        forEachScanFile(engine, scan, scanFile -> {
            for (FilteredColumnarBatch batch : readFile(engine, scanState, scanFile, physicalSchema)) {
                addRows(batch, result);
            }
        });
        return result;
    }

    /** The number of rows of the latest version: the scan of {@link #readAll}, rows counted, not kept. */
    public static long countRows(String tablePath, Configuration conf) {
        Engine engine = DefaultEngine.create(conf);
        Snapshot snapshot = TableManager.loadSnapshot(tablePath).build(engine);
        Scan scan = snapshot.getScanBuilder().build();
        Row scanState = scan.getScanState(engine);
        StructType physicalSchema = physicalSchema(snapshot);
        long[] count = {0};
        forEachScanFile(engine, scan, scanFile -> {
            for (FilteredColumnarBatch batch : readFile(engine, scanState, scanFile, physicalSchema)) {
                try (CloseableIterator<Row> rows = batch.getRows()) {
                    while (rows.hasNext()) {
                        rows.next();
                        count[0]++;
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        });
        return count[0];
    }

    private static StructType physicalSchema(Snapshot snapshot) {
        Set<String> partitionColumns = Set.copyOf(snapshot.getPartitionColumnNames());
        return new StructType(snapshot.getSchema().fields().stream()
                .filter(f -> !partitionColumns.contains(f.getName())).collect(Collectors.toList()));
    }

    private static void forEachScanFile(Engine engine, Scan scan, java.util.function.Consumer<Row> action) {
        try (CloseableIterator<FilteredColumnarBatch> scanFiles = scan.getScanFiles(engine)) {
            while (scanFiles.hasNext()) {
                try (CloseableIterator<Row> fileRows = scanFiles.next().getRows()) {
                    while (fileRows.hasNext()) {
                        action.accept(fileRows.next());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String addPath(Row scanFile) {
        Row add = scanFile.getStruct(scanFile.getSchema().indexOf("add"));
        return add.getString(add.getSchema().indexOf("path"));
    }

    /** The logical batches of one scan file (partition values added), held in memory. */
    private static List<FilteredColumnarBatch> readFile(Engine engine, Row scanState, Row scanFile,
                                                        StructType physicalSchema) {
        Row add = scanFile.getStruct(scanFile.getSchema().indexOf("add"));
        StructType addSchema = add.getSchema();
        String tableRoot = scanFile.getString(scanFile.getSchema().indexOf("tableRoot"));
        String relative = add.getString(addSchema.indexOf("path"));
        String absolute = new Path(new Path(URI.create(tableRoot)), new Path(URI.create(relative))).toString();
        FileStatus file = FileStatus.of(absolute, add.getLong(addSchema.indexOf("size")),
                add.getLong(addSchema.indexOf("modificationTime")));
        List<FilteredColumnarBatch> batches = new ArrayList<>();
        try {
            CloseableIterator<ColumnarBatch> physical = engine.getParquetHandler()
                    .readParquetFiles(singleton(file), physicalSchema, Optional.empty())
                    .map(FileReadResult::getData);
            try (CloseableIterator<FilteredColumnarBatch> logical =
                         Scan.transformPhysicalData(engine, scanState, scanFile, physical)) {
                logical.forEachRemaining(batches::add);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return batches;
    }

    private static void addRows(FilteredColumnarBatch batch, List<Map<String, Object>> out) {
        try (CloseableIterator<Row> rows = batch.getRows()) {
            while (rows.hasNext()) {
                out.add(toMap(rows.next()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
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
        } else if (type instanceof io.delta.kernel.types.StructType) {
            return toMap(row.getStruct(i));
        } else if (type instanceof io.delta.kernel.types.ArrayType a) {
            io.delta.kernel.data.ArrayValue array = row.getArray(i);
            List<Object> out = new java.util.ArrayList<>();
            for (int e = 0; e < array.getSize(); e++) {
                out.add(vectorValue(array.getElements(), e, a.getElementType()));
            }
            return out;
        } else if (type instanceof io.delta.kernel.types.MapType m) {
            io.delta.kernel.data.MapValue map = row.getMap(i);
            Map<Object, Object> out = new LinkedHashMap<>();
            for (int e = 0; e < map.getSize(); e++) {
                out.put(vectorValue(map.getKeys(), e, m.getKeyType()), vectorValue(map.getValues(), e, m.getValueType()));
            }
            return out;
        }
        throw new UnsupportedOperationException("reader does not handle type " + type);
    }

    /** A value of an array's elements or a map's keys or values: read through a one-field row over the vector. */
    private static Object vectorValue(io.delta.kernel.data.ColumnVector vector, int rowId, DataType type) {
        StructType schema = new StructType().add("v", type, true);
        Row row = new Row() {
            @Override
            public StructType getSchema() {
                return schema;
            }

            @Override
            public boolean isNullAt(int ordinal) {
                return vector.isNullAt(rowId);
            }

            @Override
            public boolean getBoolean(int ordinal) {
                return vector.getBoolean(rowId);
            }

            @Override
            public byte getByte(int ordinal) {
                return vector.getByte(rowId);
            }

            @Override
            public short getShort(int ordinal) {
                return vector.getShort(rowId);
            }

            @Override
            public int getInt(int ordinal) {
                return vector.getInt(rowId);
            }

            @Override
            public long getLong(int ordinal) {
                return vector.getLong(rowId);
            }

            @Override
            public float getFloat(int ordinal) {
                return vector.getFloat(rowId);
            }

            @Override
            public double getDouble(int ordinal) {
                return vector.getDouble(rowId);
            }

            @Override
            public String getString(int ordinal) {
                return vector.getString(rowId);
            }

            @Override
            public java.math.BigDecimal getDecimal(int ordinal) {
                return vector.getDecimal(rowId);
            }

            @Override
            public byte[] getBinary(int ordinal) {
                return vector.getBinary(rowId);
            }

            @Override
            public Row getStruct(int ordinal) {
                return io.delta.kernel.internal.data.StructRow.fromStructVector(vector, rowId);
            }

            @Override
            public io.delta.kernel.data.ArrayValue getArray(int ordinal) {
                return vector.getArray(rowId);
            }

            @Override
            public io.delta.kernel.data.MapValue getMap(int ordinal) {
                return vector.getMap(rowId);
            }
        };
        return value(row, 0, type);
    }

    /** The latest version of the table. */
    public static long version(String tablePath) {
        return version(tablePath, new Configuration());
    }

    public static long version(String tablePath, Configuration conf) {
        Engine engine = DefaultEngine.create(conf);
        return TableManager.loadSnapshot(tablePath).build(engine).getVersion();
    }

    /** The column names of the latest version's schema, in order. */
    public static List<String> columnNames(String tablePath) {
        Engine engine = DefaultEngine.create(new Configuration());
        return TableManager.loadSnapshot(tablePath).build(engine).getSchema().fieldNames();
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
        try {
            FileSystem fs = file.getFileSystem(conf);
            try (FSDataInputStream in = fs.open(file);
                 BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                return actions(reader);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The actions of a commit file's text: one JSON object a line, blank lines skipped. */
    static List<JsonNode> actions(BufferedReader lines) throws IOException {
        List<JsonNode> actions = new ArrayList<>();
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            if (!line.isBlank()) {
                actions.add(MAPPER.readTree(line));
            }
        }
        return actions;
    }

    /** The actions of one kind ({@code add}, {@code txn}, {@code metaData} ...) of commit {@code version}. */
    public static List<JsonNode> actions(String tablePath, long version, String kind) {
        return actions(tablePath, version).stream().filter(a -> a.has(kind)).map(a -> a.get(kind))
                .collect(Collectors.toList());
    }

    /** The actions of one kind over the whole log, oldest commit first (local tables). */
    public static List<JsonNode> allActions(String tablePath, String kind) {
        List<JsonNode> out = new ArrayList<>();
        for (long v = 0; v <= version(tablePath); v++) {
            out.addAll(actions(tablePath, v, kind));
        }
        return out;
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
