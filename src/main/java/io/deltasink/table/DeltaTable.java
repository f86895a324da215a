package io.deltasink.table;

import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.commit.CommitFailedException;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.CheckpointAlreadyExistsException;
import io.delta.kernel.exceptions.MaxCommitRetryLimitReachedException;
import io.delta.kernel.exceptions.TableAlreadyExistsException;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.delta.kernel.exceptions.UnsupportedProtocolVersionException;
import io.delta.kernel.exceptions.UnsupportedTableFeatureException;
import io.delta.kernel.hook.PostCommitHook;
import io.delta.kernel.transaction.DataLayoutSpec;
import io.delta.kernel.transaction.UpdateTableTransactionBuilder;
import io.delta.kernel.utils.CloseableIterable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.connect.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;

/**
 * A Delta table at one path, read and written through Delta Kernel: the latest snapshot, creating
 * (or checking) the table, and append commits that carry the Kafka offsets as {@code txn}
 * actions. Kernel's own commit retry is off: the caller fences and retries (see
 * {@link #commitAppend}).
 */
public final class DeltaTable {
    private static final Logger log = LoggerFactory.getLogger(DeltaTable.class);

    private final Engine engine;
    private final String tablePath;
    private final Clock clock;
    private final int logCompactionInterval;

    /**
     * @param engine    a Kernel engine, e.g. {@code DefaultEngine.create(hadoopConf)}
     * @param tablePath a Hadoop path or URI, e.g. {@code file:/data/t} or {@code s3a://bucket/t}
     */
    public DeltaTable(Engine engine, String tablePath) {
        this(engine, tablePath, Clock.systemUTC(), 0);
    }

    /**
     * @param clock                 supplies the {@code lastUpdated} time of txn actions
     * @param logCompactionInterval write a Kernel log compaction file every this many commits
     *                              (0: never)
     */
    public DeltaTable(Engine engine, String tablePath, Clock clock, int logCompactionInterval) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.tablePath = Objects.requireNonNull(tablePath, "tablePath");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (logCompactionInterval < 0) {
            throw new IllegalArgumentException("logCompactionInterval must be >= 0: " + logCompactionInterval);
        }
        this.logCompactionInterval = logCompactionInterval;
    }

    public String path() {
        return tablePath;
    }

    /**
     * The latest snapshot, or empty when there is no table at the path yet.
     *
     * @throws UnusableTableException when the table cannot be read as it is (see {@link TableErrors})
     * @throws RetriableException     when the log lists no commit although the table's first commit or
     *                                checkpoint pointer is there: a store answering inconsistently must
     *                                never look like "no table" (the connector would create one)
     */
    public Optional<TableSnapshot> latest() {
        Snapshot snapshot;
        try {
            snapshot = TableManager.loadSnapshot(tablePath).build(engine);
        } catch (TableNotFoundException e) {
            confirmNoTable(e);
            return Optional.empty();
        } catch (RuntimeException e) {
            throw TableErrors.onRead(e, tablePath, engine, -1);
        }
        return Optional.of(new TableSnapshot(snapshot, engine, tablePath));
    }

    /**
     * Kernel found no commit in the log: checks, without a listing, that neither the first commit
     * file nor {@code _last_checkpoint} exists, else the listing was wrong (retriable).
     */
    private void confirmNoTable(TableNotFoundException kernel) {
        String log = tablePath.replaceAll("/+$", "") + "/_delta_log/";
        for (String name : List.of(String.format("%020d.json", 0), "_last_checkpoint")) {
            try {
                engine.getFileSystemClient().getFileStatus(log + name);
            } catch (FileNotFoundException | NoSuchFileException absent) {
                continue;
            } catch (IOException | RuntimeException e) {
                throw new RetriableException("Cannot tell whether Delta table " + tablePath + " exists: its log lists "
                        + "no commit and looking up _delta_log/" + name + " failed (" + e + "); retrying", e);
            }
            RetriableException inconsistent = new RetriableException("The log of Delta table " + tablePath
                    + " lists no commit, yet _delta_log/" + name + " exists: the store answered inconsistently; "
                    + "retrying rather than creating a table over it");
            inconsistent.addSuppressed(kernel);
            throw inconsistent;
        }
    }

    /**
     * Creates the table (version 0: protocol and metaData only) when there is none, else checks
     * that the existing table matches the mapping. When another writer creates the table at the
     * same moment, the loser reads the winner's table and checks it.
     *
     * @throws TableMismatchException when the existing table differs, naming each difference
     */
    public TableSnapshot createOrCheck(RowSchema schema, List<String> partitionColumns,
                                       Map<String, String> tableProperties, String engineInfo) {
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(partitionColumns, "partitionColumns");
        Objects.requireNonNull(tableProperties, "tableProperties");
        Objects.requireNonNull(engineInfo, "engineInfo");
        for (String column : partitionColumns) {
            if (schema.indexOf(column) < 0) {
                throw new IllegalArgumentException("partition column '" + column + "' is not a column of the mapping");
            }
        }
        tableProperties.forEach((key, value) -> {
            if (key.equalsIgnoreCase(SchemaCheck.COLUMN_MAPPING_MODE) && !value.equalsIgnoreCase("none")) {
                throw new IllegalArgumentException("table property " + key + "=" + value
                        + " is not supported yet: this connector writes tables without column mapping");
            }
        });
        Optional<TableSnapshot> existing = latest();
        if (existing.isPresent()) {
            return check(existing.get(), schema, partitionColumns, tableProperties, engineInfo);
        }
        try {
            Transaction txn = TableManager.buildCreateTableTransaction(tablePath, KernelTypes.schemaOf(schema), engineInfo)
                    .withTableProperties(tableProperties)
                    .withDataLayoutSpec(partitionColumns.isEmpty() ? DataLayoutSpec.noDataLayout()
                            : DataLayoutSpec.partitioned(partitionColumns.stream()
                                    .map(io.delta.kernel.expressions.Column::new).toList()))
                    .withMaxRetries(0)
                    .build(engine);
            TransactionCommitResult result = txn.commit(engine, CloseableIterable.emptyIterable());
            runPostCommitHooks(result);
            log.info("Created Delta table {} (version {}) with {} columns, partitioned by {}",
                    tablePath, result.getVersion(), schema.size(), partitionColumns);
        } catch (TableAlreadyExistsException e) {
            log.info("Delta table {} was created by another writer meanwhile; checking it", tablePath);
        } catch (MaxCommitRetryLimitReachedException e) {
            if (!isConflict(e)) {
                throw e;
            }
            log.info("Delta table {} was created by another writer first; checking it", tablePath);
        }
        TableSnapshot created = latest().orElseThrow(() ->
                new IllegalStateException("Delta table " + tablePath + " not found right after it was created"));
        return check(created, schema, partitionColumns, tableProperties, engineInfo);
    }

    /**
     * Checks the existing table against the mapping as {@link #createOrCheck} does, without
     * creating one: empty when there is no table.
     *
     * @throws TableMismatchException when the existing table differs, naming each difference
     */
    public Optional<TableSnapshot> checkExisting(RowSchema schema, List<String> partitionColumns,
                                                 Map<String, String> tableProperties, String engineInfo) {
        return latest().map(s -> check(s, schema, partitionColumns, tableProperties, engineInfo));
    }

    /**
     * Commits one version on top of {@code base}: an {@code add} per file (dataChange=true, with
     * statistics), a {@code txn} action per entry of {@code txnVersions} and a commitInfo with
     * operation STREAMING UPDATE. Then runs Kernel's post-commit hooks (checkpoint, checksum,
     * log compaction); a failing hook is logged and does not undo the commit.
     *
     * <p>When any other error escapes (for example an I/O error while writing the commit file),
     * whether the commit landed is unknown: reload the table and look at the txn versions.
     *
     * @param txnVersions appId -> version (the next Kafka offset to read)
     * @return the committed version, {@code base.version() + 1}
     * @throws CommitConflictException when that version was already taken by another writer
     * @throws IllegalArgumentException when there are neither files nor txn versions
     */
    public long commitAppend(TableSnapshot base, List<DataFile> files, Map<String, Long> txnVersions,
                             String engineInfo) {
        Objects.requireNonNull(files, "files");
        Objects.requireNonNull(txnVersions, "txnVersions");
        if (files.isEmpty() && txnVersions.isEmpty()) {
            throw new IllegalArgumentException("nothing to commit: no files and no txn versions");
        }
        return commit(base, files, txnVersions, engineInfo, Operation.STREAMING_UPDATE);
    }

    /**
     * Commits one version on top of {@code base} that holds only {@code txn} actions (and a
     * commitInfo with operation "Manual Update"): positions set from outside the task, e.g. through
     * the worker's offsets API. A version of {@link TableSnapshot#NO_POSITION} records that the
     * partition has no position. Errors as for {@link #commitAppend}.
     *
     * @param txnVersions appId -> the next Kafka offset to read, or {@link TableSnapshot#NO_POSITION}
     * @return the committed version, {@code base.version() + 1}
     */
    public long commitPositions(TableSnapshot base, Map<String, Long> txnVersions, String engineInfo) {
        Objects.requireNonNull(txnVersions, "txnVersions");
        if (txnVersions.isEmpty()) {
            throw new IllegalArgumentException("nothing to commit: no txn versions");
        }
        return commit(base, List.of(), txnVersions, engineInfo, Operation.MANUAL_UPDATE);
    }

    private long commit(TableSnapshot base, List<DataFile> files, Map<String, Long> txnVersions, String engineInfo,
                        Operation operation) {
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(engineInfo, "engineInfo");
        Set<String> paths = new HashSet<>();
        long rows = 0;
        for (DataFile file : files) {
            if (!paths.add(file.path())) {
                throw new IllegalArgumentException("data file " + file.path() + " is listed twice");
            }
            rows += file.stats().numRecords();
        }
        long started = System.nanoTime();
        Snapshot snapshot = base.kernelSnapshot();
        UpdateTableTransactionBuilder builder = snapshot
                .buildUpdateTableTransaction(engineInfo, operation)
                .withMaxRetries(0);
        if (logCompactionInterval > 0) {
            builder = builder.withLogCompactionInterval(logCompactionInterval);
        }
        Transaction txn = builder.build(engine);

        List<Row> actions = new ArrayList<>(files.size() + txnVersions.size());
        long now = clock.millis();
        txnVersions.forEach((appId, version) -> actions.add(KernelInternals.txnAction(appId,
                Objects.requireNonNull(version, () -> "txn version of " + appId), now)));
        actions.addAll(AppendActions.of(engine, txn, snapshot.getPath(), files));

        TransactionCommitResult result;
        try {
            result = txn.commit(engine, CloseableIterable.inMemoryIterable(new ListCloseableIterator<>(actions)));
        } catch (MaxCommitRetryLimitReachedException e) {
            if (isConflict(e)) {
                throw new CommitConflictException(tablePath, base.version() + 1, e);
            }
            throw e;
        }
        long version = result.getVersion();
        log.debug("Committed version {} of Delta table {}: {} files, {} rows, txn {} in {} ms",
                version, tablePath, files.size(), rows, txnVersions, (System.nanoTime() - started) / 1_000_000);
        runPostCommitHooks(result);
        return version;
    }

    /**
     * The existing table must match the mapping and use nothing Kernel cannot write (building an
     * update transaction checks the protocol and table features, without any I/O).
     */
    private TableSnapshot check(TableSnapshot snapshot, RowSchema schema, List<String> partitionColumns,
                                Map<String, String> tableProperties, String engineInfo) {
        Snapshot kernel = snapshot.kernelSnapshot();
        try {
            kernel.buildUpdateTableTransaction(engineInfo, Operation.STREAMING_UPDATE);
        } catch (UnsupportedTableFeatureException | UnsupportedProtocolVersionException e) {
            throw TableErrors.unsupported(tablePath, snapshot.version(), e, "write");
        }
        Map<String, String> actual = kernel.getTableProperties();
        List<String> diffs = SchemaCheck.differences(kernel.getSchema(), kernel.getPartitionColumnNames(),
                actual, schema, partitionColumns);
        if (!diffs.isEmpty()) {
            throw new TableMismatchException(tablePath, snapshot.version(), diffs);
        }
        tableProperties.forEach((key, wanted) -> {
            if (!wanted.equals(actual.get(key))) {
                log.warn("Table property {} of existing Delta table {} is {}, not the configured {}; "
                        + "properties are only set when the connector creates a table", key, tablePath,
                        actual.get(key), wanted);
            }
        });
        return snapshot;
    }

    private void runPostCommitHooks(TransactionCommitResult result) {
        for (PostCommitHook hook : result.getPostCommitHooks()) {
            long started = System.nanoTime();
            try {
                hook.threadSafeInvoke(engine);
                log.debug("Post-commit {} of {} version {} took {} ms", hook.getType(), tablePath,
                        result.getVersion(), (System.nanoTime() - started) / 1_000_000);
            } catch (CheckpointAlreadyExistsException e) {
                log.debug("Checkpoint of {} version {} already exists", tablePath, result.getVersion());
            } catch (Exception e) {
                log.warn("Post-commit {} of {} version {} failed; the commit stands: {}", hook.getType(), tablePath,
                        result.getVersion(), e.toString(), e);
            }
        }
    }

    /** Kernel with retries off reports a lost race as retry-limit with a conflict cause. */
    private static boolean isConflict(MaxCommitRetryLimitReachedException e) {
        return e.getCause() instanceof CommitFailedException cfe && cfe.isConflict();
    }
}
