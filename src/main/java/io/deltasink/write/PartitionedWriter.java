package io.deltasink.write;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
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
 * Partition columns are kept out of the files. A file is closed when it reaches the target size.
 *
 * <p>Memory is bounded ({@link WriterSettings#bufferMaxBytes()}) by counting everything held for
 * rows not yet in storage: the rows of a table partition first wait in memory
 * ({@link PendingRows}, counted at their estimated heap size); once they are worth an open file's
 * overhead ({@link WriterSettings#openFileOverheadBytes(int)}) the partition gets an open file,
 * which is counted at that overhead plus {@link WriterSettings#ROW_DATA_FACTOR} times the bytes
 * Parquet buffers for it. At most {@link WriterSettings#openFileCap(int)} files are open: a file
 * needed at the cap closes the least recently written one first. When the count exceeds the bound,
 * the partition holding the most is written out: its open file closed, or its waiting rows written
 * to a file of their own. So thousands of small table partitions cost their rows, not thousands of
 * open files. {@link #finish()} writes what is waiting, closes every open file and hands back every
 * file finished since the last call; {@link #abort()} deletes them instead.
 *
 * <p>Not thread-safe: one instance per task. After an {@link IOException} from any method, call
 * {@link #abort()} before going on.
 */
public final class PartitionedWriter {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionedWriter.class);
    /** Partition keys remembered with the values they were made from (see {@code recentKeys}). */
    static final int RECENT_KEYS = 8;
    /** Table partitions whose columns without a dictionary are remembered (a few hundred bytes each). */
    static final int LEARNED_PARTITIONS = 4096;

    private final WriterSettings settings;
    private final Path root;
    private final FileSystem fs;
    private final Clock clock;
    private final RowChecker checker;
    private final List<Column> partitionColumns;
    private final int[] partitionIndexes;
    private final List<Column> dataColumns;
    private final int[] dataIndexes;
    private final List<Column> statsColumns;
    /** The flat encoder's columns; null for a table with nested columns, which {@link #nestedRecords} writes. */
    private final RowColumns rowColumns;
    private final NestedRecords nestedRecords;
    private final Configuration conf;
    private final SharedCompressor compressor;
    private final int directoryBytes;
    private final int fileNameBytes;

    private final long fileOverhead;
    private final int maxOpenFiles;
    private final Map<List<String>, Partition> partitions = new HashMap<>();
    private final List<DataFile> finished = new ArrayList<>();
    private final List<Path> created = new ArrayList<>();
    /**
     * Per table partition, the columns written without a dictionary because a file of that partition
     * had to give theirs up; the most recently used {@link #LEARNED_PARTITIONS} partitions are kept.
     */
    private final Map<List<String>, Set<String>> plainColumns = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<List<String>, Set<String>> eldest) {
            return size() > LEARNED_PARTITIONS;
        }
    };
    /**
     * The last {@link #RECENT_KEYS} partition keys made and the partition values each was made from,
     * most recent at {@code recentNext - 1}: rows of a batch mostly come from a few table partitions
     * taking turns (device types), and a key found here is neither formatted again nor a new list
     * (the same list also finds its partition by identity in the hash map).
     */
    private final Object[][] recentValues;
    private final List<?>[] recentKeys;
    private int recentNext;
    /** The partition a row was last buffered for, while it is in {@link #partitions}. */
    private Partition lastPartition;
    private int openFiles;
    private long countedBytes;
    private long rowsBuffered;
    private long writes;
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
        Objects.requireNonNull(conf, "conf");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.checker = new RowChecker(schema);

        PartitionSpec spec = PartitionSpec.of(schema, partitionColumns);
        this.partitionColumns = spec.partitionColumns();
        this.partitionIndexes = spec.partitionIndexes();
        this.dataColumns = spec.dataColumns();
        this.dataIndexes = spec.dataIndexes();
        this.recentValues = new Object[RECENT_KEYS][partitionIndexes.length];
        this.recentKeys = new List<?>[RECENT_KEYS];
        boolean nested = NestedRecords.anyNested(dataColumns);
        // with nested columns, stats only for the flat columns before the first nested one (see NestedRecords)
        List<Column> statsCandidates = nested ? NestedRecords.leadingFlat(dataColumns) : dataColumns;
        this.statsColumns = statsCandidates.subList(0, Math.min(settings.statsColumns(), statsCandidates.size()));
        this.rowColumns = nested ? null : new RowColumns(dataColumns, dataIndexes);
        this.nestedRecords = nested ? new NestedRecords(dataColumns, dataIndexes) : null;
        this.conf = conf;
        this.fs = root.getFileSystem(conf);
        // what the table's path below the bucket (and a '/') leaves of an object key for folders and a file name
        this.directoryBytes = PartitionFormat.MAX_PATH_BYTES - 1
                - root.toUri().getPath().getBytes(StandardCharsets.UTF_8).length;
        // the longest file name, with a ten-digit counter
        this.fileNameBytes = fileName(Integer.MAX_VALUE, new UUID(0, 0)).length();
        this.compressor = new SharedCompressor(conf, settings.codec());
        this.fileOverhead = settings.openFileOverheadBytes(dataColumns.size());
        this.maxOpenFiles = settings.openFileCap(dataColumns.size());
        LOG.info("Writing {}: at most {} open files, each counted at {} KiB besides its rows, within a bound of "
                + "{} KiB", root, maxOpenFiles, fileOverhead / 1024, settings.bufferMaxBytes() / 1024);
    }

    /**
     * Buffers one row (values in the forms listed on {@link ColumnType}) for its table partition: in
     * memory, or in the partition's open file; may write out other partitions to stay within the bound.
     *
     * @throws RowRejectedException when a value cannot be written (e.g. null in a not-null column, an
     *                              empty string in a NOT NULL partition column, a partition value too
     *                              long for a folder name); nothing is written and the writer stays usable
     * @throws IllegalArgumentException when the row is not a row of the schema (null, wrong length)
     * @throws IOException              when storage fails; call {@link #abort()} then
     */
    public void write(Object[] row) throws IOException {
        write(check(row), row);
    }

    /**
     * The first step of {@link #write(Object[])}, everything that can refuse a row and nothing else:
     * checks the row and returns its table partition's key (the previous row's key while the values
     * repeat). Touches none of the writer's files or partitions, so one thread may call it while another
     * writes; one thread at a time.
     *
     * @throws RowRejectedException     as {@link #write(Object[])} does, except for the folder names
     *                                  (see {@link #checkFolders})
     * @throws IllegalArgumentException when the row is not a row of the schema
     */
    public List<String> check(Object[] row) {
        checker.check(row);
        return partitionKey(row);
    }

    /**
     * Checks that the folders of a table partition can be named (a value too long for a folder name
     * is refused); {@link #write(List, Object[])} does it too when it first sees the partition. Any
     * thread may call it.
     *
     * @throws RowRejectedException when a partition value is too long for a folder name
     */
    public void checkFolders(List<String> key) {
        directory(key);
    }

    /**
     * The second step of {@link #write(Object[])}: buffers a row {@link #check} accepted, under the
     * key it returned.
     *
     * @throws RowRejectedException only for folders {@link #checkFolders} was not asked about
     * @throws IOException          when storage fails; call {@link #abort()} then
     */
    public void write(List<String> key, Object[] row) throws IOException {
        // the last key made comes back while the partition values repeat: no hash look-up then
        Partition partition = lastPartition != null && lastPartition.key == key ? lastPartition : partitions.get(key);
        if (partition == null) {
            // the folders are named now, so a row they cannot be named for is rejected before anything is kept
            partition = new Partition(key, directory(key));
            partitions.put(key, partition);
        }
        lastPartition = partition;
        partition.lastWrite = ++writes;
        rowsBuffered++;
        if (partition.file != null) {
            writeToFile(partition, row);
        } else {
            countedBytes += partition.pending.add(row);
            if (partition.pending.bytes() >= fileOverhead) {
                LOG.trace("Opening a file for {}: {} bytes of rows waiting", key, partition.pending.bytes());
                drain(partition);
            }
        }
        while (countedBytes > settings.bufferMaxBytes() && !partitions.isEmpty()) {
            writeOutLargest();
        }
        forgetIfEmpty(partition);
    }

    /**
     * Closes all open files and returns every file finished since the last call (rolled and
     * early-closed ones included), ready for the table's {@code add} actions. Paths are relative
     * to the root and spelled as the files are named in storage (partition folders escaped as
     * {@link PartitionFormat#escapePathName} says, plain ASCII, not URI-encoded); encoding them for
     * the Delta log is the table layer's job.
     */
    public List<DataFile> finish() throws IOException {
        for (Partition partition : new ArrayList<>(partitions.values())) {
            writeOut(partition);
        }
        List<DataFile> result = List.copyOf(finished);
        finished.clear();
        created.clear();
        rowsBuffered = 0;
        countedBytes = 0;
        return result;
    }

    /**
     * Closes all open files and deletes every file written since the last {@link #finish()},
     * finished or not. Tries every file; throws the first failure at the end.
     */
    public void abort() throws IOException {
        IOException failure = null;
        for (Partition partition : partitions.values()) {
            if (partition.file != null) {
                try {
                    partition.file.closeForAbort();
                } catch (IOException | RuntimeException e) {
                    LOG.debug("Ignoring failure to close {} before deleting it", partition.file.relativePath(), e);
                }
            }
        }
        partitions.clear();
        lastPartition = null;
        openFiles = 0;
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
        countedBytes = 0;
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Bytes counted against the bound: rows waiting for a file, and each open file's overhead plus
     * its buffered rows (see the class comment).
     */
    public long bufferedBytes() {
        return countedBytes;
    }

    /** Number of files currently open. */
    public int openFiles() {
        return openFiles;
    }

    /** Rows written since the last {@link #finish()} or {@link #abort()}. */
    public long rowsBuffered() {
        return rowsBuffered;
    }

    private String directory(List<String> key) {
        return PartitionFormat.directory(partitionColumns, key, directoryBytes - fileNameBytes);
    }

    @SuppressWarnings("unchecked")
    private List<String> partitionKey(Object[] row) {
        if (partitionIndexes.length == 0) {
            return List.of();
        }
        for (int n = 0, slot = recentNext; n < RECENT_KEYS; n++) {
            slot = (slot == 0 ? RECENT_KEYS : slot) - 1;
            if (recentKeys[slot] == null) {
                break;
            }
            if (samePartitionValues(row, recentValues[slot])) {
                return (List<String>) recentKeys[slot]; // no new key, no date formatted
            }
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
        List<String> key = Collections.unmodifiableList(Arrays.asList(values));
        Object[] made = recentValues[recentNext];
        for (int i = 0; i < partitionIndexes.length; i++) {
            made[i] = row[partitionIndexes[i]];
        }
        recentKeys[recentNext] = key;
        recentNext = (recentNext + 1) % RECENT_KEYS;
        return key;
    }

    /**
     * Whether the row's partition values equal {@code values}, those a key was made from: equal values
     * (strings, boxed numbers, decimals of the column's scale, which RowChecker ensures) serialize
     * alike; -0.0 and 0.0, which name different folders, are not equal.
     */
    private boolean samePartitionValues(Object[] row, Object[] values) {
        for (int i = 0; i < partitionIndexes.length; i++) {
            if (!Objects.equals(row[partitionIndexes[i]], values[i])) {
                return false;
            }
        }
        return true;
    }

    /** Writes one row to the partition's open file, opening one if needed; closes it at the target size. */
    private void writeToFile(Partition partition, Object[] row) throws IOException {
        if (partition.file == null) {
            if (openFiles >= maxOpenFiles) {
                closeLeastRecentlyWritten(partition);
            }
            partition.file = openFile(partition);
            openFiles++;
            countedBytes += fileOverhead;
        }
        OpenFile file = partition.file;
        long before = file.bufferedBytes();
        file.write(row);
        countedBytes += WriterSettings.ROW_DATA_FACTOR * (file.bufferedBytes() - before);
        if (file.dataSize() >= settings.targetFileSizeBytes()) {
            LOG.debug("Closing {} at {} bytes: target file size reached", file.relativePath(), file.dataSize());
            closeFile(partition);
        }
    }

    /** Moves the partition's waiting rows into its open file (opening one). */
    private void drain(Partition partition) throws IOException {
        for (Object[] row : partition.pending.rows()) {
            writeToFile(partition, row);
        }
        countedBytes -= partition.pending.bytes();
        partition.pending.clear();
    }

    /** Writes the partition's waiting rows and closes its file: nothing of it stays in memory. */
    private void writeOut(Partition partition) throws IOException {
        if (!partition.pending.isEmpty()) {
            drain(partition);
        }
        if (partition.file != null) {
            closeFile(partition);
        }
        forgetIfEmpty(partition);
    }

    private void writeOutLargest() throws IOException {
        Partition largest = null;
        for (Partition partition : partitions.values()) {
            if (largest == null || partition.counted() > largest.counted()) {
                largest = partition;
            }
        }
        LOG.debug("Counted {} bytes > bound {}: writing out {} early ({} bytes counted)", countedBytes,
                settings.bufferMaxBytes(), largest.key, largest.counted());
        writeOut(largest);
    }

    private void closeLeastRecentlyWritten(Partition except) throws IOException {
        Partition oldest = null;
        for (Partition partition : partitions.values()) {
            if (partition.file != null && partition != except
                    && (oldest == null || partition.lastWrite < oldest.lastWrite)) {
                oldest = partition;
            }
        }
        if (oldest == null) {
            return; // no other partition has a file open: nothing to close
        }
        LOG.debug("{} open files: closing {}, the least recently written", openFiles, oldest.file.relativePath());
        closeFile(oldest);
        forgetIfEmpty(oldest);
    }

    private void forgetIfEmpty(Partition partition) {
        if (partition.file == null && partition.pending.isEmpty()) {
            partitions.remove(partition.key);
            if (partition == lastPartition) {
                lastPartition = null;
            }
        }
    }

    private OpenFile openFile(Partition partition) throws IOException {
        String relative = partition.directory + fileName(fileCounter++, UUID.randomUUID());
        List<String> key = partition.key;
        Map<String, String> partitionValues = new LinkedHashMap<>();
        for (int i = 0; i < partitionColumns.size(); i++) {
            partitionValues.put(partitionColumns.get(i).name(), key.get(i));
        }
        Path path = new Path(root, relative);
        created.add(path); // before creating, so abort() removes even a half-created file
        if (nestedRecords != null) {
            return OpenFile.createNested(fs, path, relative, Collections.unmodifiableMap(partitionValues), nestedRecords,
                    settings, compressor, conf);
        }
        return OpenFile.create(fs, path, relative, Collections.unmodifiableMap(partitionValues), rowColumns, settings,
                compressor, plainColumns.getOrDefault(key, Set.of()));
    }

    private String fileName(int counter, UUID id) {
        return settings.dataFileName(counter, id);
    }

    private void closeFile(Partition partition) throws IOException {
        OpenFile file = partition.file;
        partition.file = null;
        openFiles--;
        countedBytes -= fileOverhead + WriterSettings.ROW_DATA_FACTOR * file.bufferedBytes();
        DataFile done = file.close(statsColumns, clock.millis());
        finished.add(done);
        learnPlainColumns(partition.key, file);
        LOG.debug("Finished {}: {} rows, {} bytes", done.path(), file.rows(), done.size());
    }

    /**
     * A column whose dictionary a file gave up (more distinct values in a row group than fit the
     * dictionary page: unique ids, timestamps, raw text) is written without one in the next files of
     * the same table partition: building a dictionary, then re-encoding every value plainly, costs
     * time and memory and saves no byte. Per partition, since a column can be unique per row in one
     * (a smart plug's raw payload) and repetitive in another (a door sensor's). A column whose
     * Parquet name has a dot is left alone (Parquet's per-column setting reads a dot as a nested path).
     */
    private void learnPlainColumns(List<String> key, OpenFile file) {
        Set<String> fallbacks = file.dictionaryFallbacks();
        if (fallbacks.isEmpty()) {
            return;
        }
        Set<String> plain = plainColumns.computeIfAbsent(key, k -> new LinkedHashSet<>());
        for (String column : fallbacks) {
            if (!column.contains(".") && plain.add(column)) {
                LOG.debug("Writing column {} of {} without a dictionary from now on: it outgrew its dictionary in {}",
                        column, root, file.relativePath());
            }
        }
    }

    /** What is held for one table partition: rows waiting for a file, or its open file. */
    private final class Partition {
        final List<String> key;
        /** Its folders relative to the root, ending in '/'; empty for an unpartitioned table. */
        final String directory;
        final PendingRows pending = new PendingRows();
        OpenFile file;
        long lastWrite;

        Partition(List<String> key, String directory) {
            this.key = key;
            this.directory = directory;
        }

        long counted() {
            long bytes = pending.bytes();
            if (file != null) {
                bytes += fileOverhead + WriterSettings.ROW_DATA_FACTOR * file.bufferedBytes();
            }
            return bytes;
        }
    }
}
