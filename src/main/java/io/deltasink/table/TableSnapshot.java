package io.deltasink.table;

import io.delta.kernel.Snapshot;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.StructField;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.deltasink.model.Column;
import io.deltasink.model.RowSchema;

/**
 * One version of a Delta table: its schema, partitioning and the Kafka offsets (txn versions)
 * committed into it. Immutable; a newer table state needs a new {@link DeltaTable#latest()}.
 */
public final class TableSnapshot {
    /**
     * The txn version that says "no position": written when a partition's offsets are reset
     * through the worker's offsets API, so the connector resumes that partition as if the table
     * had never seen it. It is still a version: a writer that expected another one is fenced.
     */
    public static final long NO_POSITION = -1L;

    private final Snapshot snapshot;
    private final Engine engine;
    private final String tablePath;
    private final Map<String, Optional<Long>> txnVersions = new ConcurrentHashMap<>();
    private volatile Map<String, Long> allTxnVersions;

    /** @param tablePath the table's location as the connector names it (in messages) */
    TableSnapshot(Snapshot snapshot, Engine engine, String tablePath) {
        this.snapshot = Objects.requireNonNull(snapshot, "snapshot");
        this.engine = Objects.requireNonNull(engine, "engine");
        this.tablePath = Objects.requireNonNull(tablePath, "tablePath");
    }

    /** The table version this snapshot shows. */
    public long version() {
        return snapshot.getVersion();
    }

    /** The table's location as Kernel resolved it. */
    public String path() {
        return snapshot.getPath();
    }

    /**
     * The latest txn (SetTransaction) version recorded for {@code appId} up to this version, or
     * empty when none was ever written; {@link #NO_POSITION} after a reset. Reads the log
     * backwards, checkpoints included; each appId's answer is kept, since a snapshot never changes.
     *
     * @throws UnusableTableException when the log cannot be read as it is (see {@link TableErrors});
     *                                an I/O failure is thrown as it is
     */
    public Optional<Long> txnVersion(String appId) {
        Objects.requireNonNull(appId, "appId");
        return txnVersions.computeIfAbsent(appId, id -> {
            try {
                return snapshot.getLatestTransactionVersion(engine, id);
            } catch (RuntimeException e) {
                throw TableErrors.onRead(e, tablePath, engine, version());
            }
        });
    }

    /**
     * Every appId the log holds a txn version for, with its latest version ({@link #NO_POSITION}
     * included): who writes positions into this table. Reads the log once per snapshot.
     *
     * @throws UnusableTableException when the log cannot be read as it is (see {@link TableErrors});
     *                                an I/O failure is thrown as it is
     */
    public Map<String, Long> allTxnVersions() {
        Map<String, Long> all = allTxnVersions;
        if (all == null) {
            try {
                all = Collections.unmodifiableMap(KernelInternals.txnVersions(engine, snapshot));
            } catch (RuntimeException e) {
                throw TableErrors.onRead(e, tablePath, engine, version());
            }
            allTxnVersions = all;
        }
        return all;
    }

    /** Partition column names in table order; empty for an unpartitioned table. */
    public List<String> partitionColumns() {
        return Collections.unmodifiableList(new ArrayList<>(snapshot.getPartitionColumnNames()));
    }

    /** The table's top-level columns, in schema order (partition columns included). */
    public List<TableColumn> columns() {
        List<TableColumn> columns = new ArrayList<>();
        for (StructField field : snapshot.getSchema().fields()) {
            columns.add(new TableColumn(field.getName(), KernelTypes.typeName(field.getDataType()), field.isNullable()));
        }
        return Collections.unmodifiableList(columns);
    }

    /**
     * The table's columns as the connector's column model, for a mapping that writes exactly them.
     *
     * @throws TableMismatchException naming each column of a type the connector cannot write
     */
    public RowSchema rowSchema() {
        List<Column> columns = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (StructField field : snapshot.getSchema().fields()) {
            Column column = KernelTypes.columnOf(field);
            if (column == null) {
                problems.add("column '" + field.getName() + "' has type " + KernelTypes.typeName(field.getDataType())
                        + ", which this connector cannot write");
            } else {
                columns.add(column);
            }
        }
        if (!problems.isEmpty()) {
            throw new TableMismatchException(tablePath, version(), problems);
        }
        return new RowSchema(columns);
    }

    /**
     * The data files of this version (its active {@code add} actions), read from the log each call.
     *
     * @throws UnusableTableException when the log cannot be read as it is (see {@link TableErrors});
     *                                an I/O failure is thrown as it is
     */
    public List<TableFile> files() {
        try {
            return Collections.unmodifiableList(KernelInternals.activeFiles(engine, snapshot));
        } catch (RuntimeException e) {
            throw TableErrors.onRead(e, tablePath, engine, version());
        }
    }

    /** The table properties (metaData.configuration). */
    public Map<String, String> properties() {
        return Collections.unmodifiableMap(snapshot.getTableProperties());
    }

    /** The Kernel snapshot, for the commit path of this package. */
    Snapshot kernelSnapshot() {
        return snapshot;
    }

    @Override
    public String toString() {
        return "TableSnapshot[" + path() + " v" + version() + "]";
    }
}
