package io.deltasink.write;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.DataFile;
import io.deltasink.model.PartitionSpec;
import io.deltasink.model.RowSchema;

/**
 * Writes rows of one table into Parquet files, one open file per table partition (distinct tuple
 * of partition values), laid out as Hive/Spark do: {@code col=value/part-00000-<uuid>.c000.snappy.parquet}.
 * Partition columns are kept out of the files. A file is closed when it reaches the target size,
 * and the file with the most bytes in memory is closed early when all open files together buffer
 * more than the configured bound. {@link #finish()} hands back every file finished since the last
 * call; {@link #abort()} deletes them instead.
 *
 * <p>Not thread-safe: one instance per task. After an {@link IOException} from any method, call
 * {@link #abort()} before going on.
 */
public final class PartitionedWriter {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionedWriter.class);

    private final WriterSettings settings;
    private final Path root;
    private final Configuration conf;
    private final FileSystem fs;
    private final Clock clock;
    private final RowChecker checker;
    private final List<Column> partitionColumns;
    private final int[] partitionIndexes;
    private final List<Column> dataColumns;
    private final int[] dataIndexes;
    private final List<Column> statsColumns;
    private final int directoryBytes;

    private final Map<List<String>, OpenFile> open = new LinkedHashMap<>();
    private final List<DataFile> finished = new ArrayList<>();
    private final List<Path> created = new ArrayList<>();
    private long bufferedBytes;
    private long rowsBuffered;
    private int fileCounter;

    /**
     * @param settings         file format and size settings
     * @param schema           the columns of every row
     * @param partitionColumns names of the partition columns, in the table's partition order
     * @param root             the table root
     * @param conf             Hadoop configuration for the file system of {@code root}
     * @param clock            gives the files' modification times
     * @throws IllegalArgumentException when the partition columns break a rule of {@link PartitionSpec}
     * @throws IOException              when the file system of {@code root} cannot be reached
     */
    public PartitionedWriter(WriterSettings settings, RowSchema schema, List<String> partitionColumns, Path root,
                             Configuration conf, Clock clock) throws IOException {
        this.settings = Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(schema, "schema");
        this.root = Objects.requireNonNull(root, "root");
        this.conf = Objects.requireNonNull(conf, "conf");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.checker = new RowChecker(schema);

        PartitionSpec spec = PartitionSpec.of(schema, partitionColumns);
        this.partitionColumns = spec.partitionColumns();
        this.partitionIndexes = spec.partitionIndexes();
        this.dataColumns = spec.dataColumns();
        this.dataIndexes = spec.dataIndexes();
        this.statsColumns = dataColumns.subList(0, Math.min(settings.statsColumns(), dataColumns.size()));
        this.fs = root.getFileSystem(conf);
        // what the table's path below the bucket (and a '/') leaves of an object key for folders and a file name
        this.directoryBytes = PartitionFormat.MAX_PATH_BYTES - 1
                - root.toUri().getPath().getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * Writes one row (values in the forms listed on {@link ColumnType}) to the open file of its partition.
     *
     * @throws RowRejectedException when a value cannot be written (e.g. null in a not-null column, an
     *                              empty string in a NOT NULL partition column, a partition value too
     *                              long for a folder name); nothing is written and the writer stays usable
     * @throws IllegalArgumentException when the row is not a row of the schema (null, wrong length)
     * @throws IOException              when storage fails; call {@link #abort()} then
     */
    public void write(Object[] row) throws IOException {
        checker.check(row);
        List<String> key = partitionKey(row);
        OpenFile file = open.get(key);
        if (file == null) {
            file = openFile(key);
            open.put(key, file);
        }
        long before = file.bufferedBytes();
        file.write(row);
        rowsBuffered++;
        bufferedBytes += file.bufferedBytes() - before;
        if (file.dataSize() >= settings.targetFileSizeBytes()) {
            LOG.debug("Closing {} at {} bytes: target file size reached", file.relativePath(), file.dataSize());
            closeFile(key);
        }
        while (bufferedBytes > settings.bufferMaxBytes() && !open.isEmpty()) {
            closeLargest();
        }
    }

    /**
     * Closes all open files and returns every file finished since the last call (rolled and
     * early-closed ones included), ready for the table's {@code add} actions. Paths are relative
     * to the root and spelled as the files are named in storage (partition folders escaped as
     * {@link PartitionFormat#escapePathName} says, plain ASCII, not URI-encoded); encoding them for
     * the Delta log is the table layer's job.
     */
    public List<DataFile> finish() throws IOException {
        for (List<String> key : new ArrayList<>(open.keySet())) {
            closeFile(key);
        }
        List<DataFile> result = List.copyOf(finished);
        finished.clear();
        created.clear();
        rowsBuffered = 0;
        bufferedBytes = 0;
        return result;
    }

    /**
     * Closes all open files and deletes every file written since the last {@link #finish()},
     * finished or not. Tries every file; throws the first failure at the end.
     */
    public void abort() throws IOException {
        IOException failure = null;
        for (OpenFile file : open.values()) {
            try {
                file.closeForAbort();
            } catch (IOException | RuntimeException e) {
                LOG.debug("Ignoring failure to close {} before deleting it", file.relativePath(), e);
            }
        }
        open.clear();
        for (Path path : created) {
            try {
                if (fs.exists(path) && !fs.delete(path, false)) {
                    throw new IOException("could not delete " + path);
                }
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        LOG.debug("Aborted: deleted {} files under {}", created.size(), root);
        finished.clear();
        created.clear();
        rowsBuffered = 0;
        bufferedBytes = 0;
        if (failure != null) {
            throw failure;
        }
    }

    /** Bytes buffered in memory across all open files (row groups not yet flushed to storage). */
    public long bufferedBytes() {
        return bufferedBytes;
    }

    /** Number of files currently open. */
    public int openFiles() {
        return open.size();
    }

    /** Rows written since the last {@link #finish()} or {@link #abort()}. */
    public long rowsBuffered() {
        return rowsBuffered;
    }

    private List<String> partitionKey(Object[] row) {
        if (partitionIndexes.length == 0) {
            return List.of();
        }
        String[] values = new String[partitionIndexes.length];
        for (int i = 0; i < values.length; i++) {
            Column column = partitionColumns.get(i);
            values[i] = PartitionFormat.serialize(column, row[partitionIndexes[i]]);
            if (values[i] == null && !column.nullable()) {
                throw new RowRejectedException(column.name(), row[partitionIndexes[i]], "an empty string cannot be the "
                        + "value of a NOT NULL partition column: Delta stores an empty partition value as null");
            }
        }
        return Collections.unmodifiableList(Arrays.asList(values));
    }

    private OpenFile openFile(List<String> key) throws IOException {
        String name = String.format(Locale.ROOT, "part-%05d-%s.c000%s.parquet", fileCounter, UUID.randomUUID(),
                settings.fileNameCodecPart());
        String relative = PartitionFormat.directory(partitionColumns, key, directoryBytes - name.length()) + name;
        fileCounter++;
        Map<String, String> partitionValues = new LinkedHashMap<>();
        for (int i = 0; i < partitionColumns.size(); i++) {
            partitionValues.put(partitionColumns.get(i).name(), key.get(i));
        }
        Path path = new Path(root, relative);
        created.add(path); // before creating, so abort() removes even a half-created file
        return OpenFile.create(fs, path, relative, Collections.unmodifiableMap(partitionValues),
                new RowWriteSupport(dataColumns, dataIndexes), settings, conf);
    }

    private void closeFile(List<String> key) throws IOException {
        OpenFile file = open.remove(key);
        bufferedBytes -= file.bufferedBytes();
        DataFile done = file.close(statsColumns, clock.millis());
        finished.add(done);
        LOG.debug("Finished {}: {} rows, {} bytes", done.path(), file.rows(), done.size());
    }

    private void closeLargest() throws IOException {
        List<String> largest = null;
        long most = -1;
        for (Map.Entry<List<String>, OpenFile> e : open.entrySet()) {
            if (e.getValue().bufferedBytes() > most) {
                most = e.getValue().bufferedBytes();
                largest = e.getKey();
            }
        }
        LOG.debug("Buffered {} bytes > bound {}: closing {} early ({} bytes buffered)", bufferedBytes,
                settings.bufferMaxBytes(), open.get(largest).relativePath(), most);
        closeFile(largest);
    }
}
