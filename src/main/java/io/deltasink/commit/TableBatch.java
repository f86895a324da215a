package io.deltasink.commit;

import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.AutoMapping;
import io.deltasink.convert.ConverterFactory;
import io.deltasink.convert.RecordConversionException;
import io.deltasink.convert.RecordConverter;
import io.deltasink.metrics.SinkMetrics;
import io.deltasink.model.Column;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;
import io.deltasink.table.SchemaEvolution;
import io.deltasink.table.TableMismatchException;
import io.deltasink.table.TableSnapshot;
import io.deltasink.write.BackgroundWriter;
import io.deltasink.write.PartitionedWriter;
import io.deltasink.write.RowRejectedException;
import io.deltasink.write.WriterSettings;

/**
 * One table's side of a task: the table, the converter (from the mapping, the first record or the
 * table's columns in auto mode), the open Parquet files of the current batch and the commit that
 * adds them. A data file is deleted only when it is certain that no commit references it: a batch
 * dropped before its commit, or a fenced one.
 */
final class TableBatch {
    private static final Logger log = LoggerFactory.getLogger(TableBatch.class);

    /** What a commit of the batch came to. */
    sealed interface Result permits Empty, Landed, Refused {
    }

    /** Nothing to commit (no rows and no moved offsets, or only offsets while there is no table yet). */
    record Empty() implements Result {
    }

    record Landed(long version, int attempts, int files, long rows) implements Result {
    }

    /** Fenced: the batch's files are deleted. */
    record Refused(TableCommitter.Fenced fenced) implements Result {
    }

    private final DeltaSinkConfig config;
    private final StorageSettings storage;
    private final DeltaTable table;
    private final ConverterFactory converterFactory;
    private final BadRecords badRecords;
    private final SinkMetrics metrics;
    private final TableCommitter committer;
    private final Clock clock;
    private final String engineInfo;

    private final SchemaEvolution evolution;
    /** columns=auto with add-columns: a record's fields the table lacks are added as columns. */
    private final boolean autoEvolve;
    /** The columns are configured: the converter is the mapping's for good. */
    private final boolean mappingConfigured;

    private RecordConverter converter;
    private BackgroundWriter writer;
    private boolean tableChecked;
    private long tombstones;
    /** Files of this batch closed when the table gained columns (written under the narrower schema). */
    private final List<DataFile> closedFiles = new ArrayList<>();
    private long closedRows;
    /** The last Struct schema whose fields all are columns (Connect converters reuse schema objects). */
    private org.apache.kafka.connect.data.Schema knownStructSchema;

    /**
     * @param converterFactory gives the converter: first called with null, which gives the converter
     *                         of a configured mapping or null in "auto" mode; in auto mode the
     *                         converter then comes from the existing table's columns, else from the
     *                         first record (one that gives no columns is a bad record)
     */
    TableBatch(DeltaSinkConfig config, StorageSettings storage, ConverterFactory converterFactory,
               BadRecords badRecords, SinkMetrics metrics, Clock clock, TableCommitter.Sleeper sleeper,
               String engineInfo) {
        this.config = config;
        this.storage = storage;
        this.converterFactory = converterFactory;
        this.badRecords = badRecords;
        this.metrics = metrics;
        this.clock = clock;
        this.engineInfo = engineInfo;
        this.table = new DeltaTable(storage.createEngine(), storage.tableUri());
        this.committer = new TableCommitter(table, config.commitMaxRetries(), config.retryBackoffMs(), sleeper);
        this.converter = converterFactory.create(null);
        this.evolution = SchemaEvolution.of(config.schemaEvolution());
        this.autoEvolve = converter == null && evolution != SchemaEvolution.NONE;
        this.mappingConfigured = converter != null;
    }

    /**
     * The latest snapshot, the table created or checked first when the columns are known (in auto
     * mode an existing table gives the columns), with every appId's position read: all storage
     * access of placing partitions happens here.
     */
    Optional<TableSnapshot> readTable() {
        Optional<TableSnapshot> snapshot;
        if (converter == null) {
            snapshot = table.latest().map(this::adoptTable);
        } else {
            snapshot = Optional.of(ensureTable());
        }
        snapshot.ifPresent(TableSnapshot::allTxnVersions);
        return snapshot;
    }

    // ---- records ------------------------------------------------------------------------------

    /** Turns a record into a row of the batch; a record that cannot be one is a bad record (or a tombstone). */
    void accept(SinkRecord record) throws IOException {
        accept(record, null);
    }

    /**
     * {@link #accept(SinkRecord)} of a record a converter of the configured mapping has converted
     * already ({@link ParallelConversion}): {@code converted} is its row or the exception its
     * conversion threw; null to convert it here. Ignored in auto mode, where the converter follows
     * the records.
     */
    void accept(SinkRecord record, Object converted) throws IOException {
        if (record.value() == null) {
            if (config.failOnNullValues()) {
                throw new DataException("Record " + record.topic() + "/" + record.kafkaPartition() + "@"
                        + record.kafkaOffset() + " has a null value (tombstone) and behavior.on.null.values=fail");
            }
            tombstones++;
            metrics.tombstone();
            return;
        }
        if (converter == null && !chooseConverter(record)) {
            return;
        }
        if (!tableChecked) {
            ensureTable();
        }
        if (autoEvolve) {
            addColumnsFor(record);
        }
        Object[] row;
        try {
            row = converted != null && mappingConfigured ? ParallelConversion.row(converted) : converter.convert(record);
        } catch (DataException e) {
            badRecords.handle(record, e);
            metrics.badRecord();
            return;
        }
        BackgroundWriter w = writer();
        try {
            w.write(row);
        } catch (RowRejectedException e) { // a value the table cannot hold, e.g. a partition value too long for a folder
            badRecords.handle(record, new RecordConversionException(record, e.column(), e.value(), e.problem(), e));
            metrics.badRecord();
        }
    }

    /**
     * Auto mode, first record: the table's columns, the table created from the columns derived from
     * the record when there is none (with table.auto.create; without it the derived columns, and the
     * check that follows names the missing table). A table another task created meanwhile gives its
     * own columns. False when the record gives no columns: it was handled as a bad record (the next
     * record tries again).
     */
    private boolean chooseConverter(SinkRecord record) {
        RecordConverter derived;
        try {
            derived = converterFactory.create(record);
        } catch (DataException e) {
            badRecords.handle(record, e);
            metrics.badRecord();
            return false;
        }
        log.info("Columns derived from {}/{}@{}: {}", record.topic(), record.kafkaPartition(),
                record.kafkaOffset(), derived.schema());
        Optional<TableSnapshot> existing = config.autoCreate()
                ? Optional.of(table.createOrRead(derived.schema(), config.partitionColumns(), config.tableProperties(),
                        engineInfo))
                : table.latest();
        if (existing.isPresent()) {
            adoptTable(existing.get());
        } else {
            converter = derived;
        }
        return true;
    }

    /**
     * Auto mode: the table's columns are the mapping, checked against the same snapshot they were
     * read from (a column another task adds right after is then known as theirs, not as one the
     * mapping lacks).
     */
    private TableSnapshot adoptTable(TableSnapshot existing) {
        converter = converterFactory.forTable(existing.rowSchema());
        log.info("Columns taken from the table {} (version {}): {}", storage.tableUri(), existing.version(),
                converter.schema());
        TableSnapshot checked = table.checkFrom(existing, converter.schema(), config.partitionColumns(),
                config.tableProperties(), engineInfo, evolution);
        tableChecked = true;
        return checked;
    }

    /**
     * columns=auto with add-columns: when the record has fields that the columns lack, adds them to
     * the table (a metaData commit of its own, before any file holding them can be committed; a
     * column another writer added meanwhile is taken with the table's type), then closes the
     * batch's open files (they are committed with the batch: their rows read null in the new
     * columns) and writes on with the wider columns. A value that does not fit a column the table
     * already has stays a bad record of the conversion.
     */
    private void addColumnsFor(SinkRecord record) throws IOException {
        if (record.value() instanceof org.apache.kafka.connect.data.Struct struct
                && struct.schema() == knownStructSchema) {
            return;
        }
        List<Column> added = AutoMapping.newColumns(record, converter.schema());
        if (added.isEmpty()) {
            if (record.value() instanceof org.apache.kafka.connect.data.Struct struct) {
                knownStructSchema = struct.schema();
            }
            return;
        }
        // the wider columns are built from one read of the table, and evolved from that same read: a
        // column another task adds in between is then known as theirs, not as one the mapping lacks
        Optional<TableSnapshot> basis = table.latest();
        RowSchema current = basis.map(TableSnapshot::rowSchema).orElse(converter.schema());
        List<Column> wanted = new ArrayList<>(current.columns());
        wanted.addAll(AutoMapping.newColumns(record, current));
        RowSchema widened = new RowSchema(wanted);
        TableSnapshot evolved;
        if (basis.isPresent()) {
            evolved = table.checkFrom(basis.get(), widened, config.partitionColumns(), config.tableProperties(),
                    engineInfo, evolution);
        } else if (config.autoCreate()) {
            evolved = table.createOrCheck(widened, config.partitionColumns(), config.tableProperties(), engineInfo,
                    evolution);
        } else {
            throw new ConnectException("The Delta table at " + storage.tableUri()
                    + " disappeared while the connector was adding columns " + added);
        }
        if (writer != null) {
            closedRows += writer.rowsBuffered();
            closedFiles.addAll(writer.finish());
            writer.close();
            writer = null;
        }
        converter = converterFactory.forTable(evolved.rowSchema());
        log.info("Columns now {} for records like {}/{}@{}", converter.schema(), record.topic(),
                record.kafkaPartition(), record.kafkaOffset());
    }

    private BackgroundWriter writer() throws IOException {
        if (writer == null) {
            WriterSettings settings = new WriterSettings(config.compression(), config.rowGroupBytes(),
                    config.pageBytes(), config.fileTargetBytes(), config.bufferMaxBytes(), config.statsColumns(),
                    config.bufferMaxOpenFiles(), storage.uploadBufferBytesPerFile());
            PartitionedWriter files = new PartitionedWriter(settings, converter.schema(), config.partitionColumns(),
                    storage.tablePath(), storage.hadoopConf(), clock);
            writer = new BackgroundWriter(files, config.writerBackground()
                    ? "delta-writer-" + config.connectorName() + "-" + config.taskIndex() : null);
        }
        return writer;
    }

    private TableSnapshot ensureTable() {
        if (!config.autoCreate()) {
            TableSnapshot s = table.checkExisting(converter.schema(), config.partitionColumns(), config.tableProperties(),
                    engineInfo, SchemaEvolution.of(config.schemaEvolution())).orElseThrow(() -> new ConnectException("No Delta table at " + storage.tableUri()
                    + " and table.auto.create=false: create it or set table.auto.create=true"));
            tableChecked = true;
            return s;
        }
        TableSnapshot s = table.createOrCheck(converter.schema(), config.partitionColumns(), config.tableProperties(),
                engineInfo, SchemaEvolution.of(config.schemaEvolution()));
        tableChecked = true;
        return s;
    }

    /**
     * Waits until the rows accepted so far are written (a background writer's hand-off drained), so a
     * storage failure is thrown by the put() of the rows.
     */
    void drain() throws IOException {
        if (writer != null) {
            writer.drain();
        }
    }

    /** Drops the batch's files and stops the writer thread. */
    void close() {
        discard();
        if (writer != null) {
            writer.close();
        }
    }

    /** Rows written since the last commit or drop. */
    long rowsBuffered() {
        return closedRows + (writer == null ? 0 : writer.rowsBuffered());
    }

    long tombstones() {
        return tombstones;
    }

    // ---- commit ---------------------------------------------------------------------------------

    /**
     * Closes the batch's files and commits them with the txn versions, fenced on {@code expected}.
     * Throws what the commit throws (the files stay: a commit whose outcome is unknown may
     * reference them).
     */
    Result commit(Map<String, Optional<Long>> expected, Map<String, Long> versions) throws IOException {
        List<DataFile> files = new ArrayList<>(closedFiles);
        if (writer != null) {
            files.addAll(writer.finish());
        }
        closedFiles.clear();
        closedRows = 0;
        if (files.isEmpty() && versions.isEmpty()) {
            return new Empty();
        }
        if (!tableChecked) {
            // only offsets moved (tombstones, bad records) before any row gave a schema
            if (table.latest().isEmpty()) {
                log.debug("No table yet and no rows: nothing to commit");
                return new Empty();
            }
            tableChecked = true;
        }
        RowSchema written = converter == null ? null : converter.schema();
        TableCommitter.Outcome outcome = committer.commit(expected, new TableCommitter.Attempt(versions, base -> {
            if (!files.isEmpty()) {
                requireColumns(base, written); // never a data file under a schema that lacks one of its columns
            }
            return table.commitAppend(base, files, versions, engineInfo);
        }));
        if (outcome instanceof TableCommitter.Fenced f) {
            deleteFiles(files); // no attempt of this batch landed: nothing references them
            return new Refused(f);
        }
        TableCommitter.Committed c = (TableCommitter.Committed) outcome;
        long rows = files.stream().mapToLong(f -> f.stats().numRecords()).sum();
        return new Landed(c.version(), c.attempts(), files.size(), rows);
    }

    /**
     * A txn-only commit that makes the table hold {@code versions} (a partition's position at the
     * first record it sends this table), fenced on {@code expected}; the batch's files are not
     * touched. Creates the table first when it does not exist (in auto mode from {@code record}).
     * Returns null when {@code record} gives no columns in auto mode and no table exists: it was
     * handled as a bad record.
     */
    Result claim(SinkRecord record, Map<String, Optional<Long>> expected, Map<String, Long> versions) {
        if (converter == null && !chooseConverter(record)) {
            return null;
        }
        if (!tableChecked) {
            ensureTable();
        }
        TableCommitter.Outcome outcome = committer.commit(expected, new TableCommitter.Attempt(versions,
                base -> table.commitAppend(base, List.of(), versions, engineInfo)));
        if (outcome instanceof TableCommitter.Fenced f) {
            return new Refused(f);
        }
        TableCommitter.Committed c = (TableCommitter.Committed) outcome;
        return new Landed(c.version(), c.attempts(), 0, 0);
    }

    /**
     * The files were written with {@code written}'s columns: the snapshot a commit builds on must hold
     * each of them with the same type (another tool may have replaced the table's schema since it was
     * checked); else the commit is refused and the files stay for vacuum.
     */
    private void requireColumns(TableSnapshot base, RowSchema written) {
        if (written == null) {
            return;
        }
        Map<String, String> types = new HashMap<>();
        base.columns().forEach(c -> types.put(c.name(), c.type()));
        List<String> problems = new ArrayList<>();
        for (Column column : written.columns()) {
            String type = types.get(column.name());
            if (type == null) {
                problems.add("column '" + column.name() + "' (" + column.deltaTypeName() + ") of the files to commit "
                        + "is no longer in the table");
            } else if (!type.equals(column.deltaTypeName())) {
                problems.add("column '" + column.name() + "' of the files to commit is " + column.deltaTypeName()
                        + ", the table now says " + type);
            }
        }
        if (!problems.isEmpty()) {
            throw new TableMismatchException(storage.tableUri(), base.version(), problems,
                    " The table's schema changed while the connector was writing; nothing of this batch was committed.");
        }
    }

    /** Drops the batch's files: none of them was handed to a commit. */
    void discard() {
        deleteFiles(closedFiles); // closed when the table gained columns: no commit references them
        closedFiles.clear();
        closedRows = 0;
        if (writer != null) {
            try {
                writer.abort();
            } catch (IOException | RuntimeException e) {
                log.warn("Could not delete uncommitted files; vacuum will remove them: {}", e.toString());
                log.debug("Deleting uncommitted files failed", e);
            }
        }
    }

    private void deleteFiles(List<DataFile> files) {
        for (DataFile f : files) {
            try {
                Path p = new Path(storage.tablePath(), f.path());
                FileSystem fs = p.getFileSystem(storage.hadoopConf());
                fs.delete(p, false);
            } catch (IOException | RuntimeException e) {
                log.warn("Could not delete uncommitted file {}; vacuum will remove it: {}", f.path(), e.toString());
                log.debug("Deleting {} failed", f.path(), e);
            }
        }
    }
}
