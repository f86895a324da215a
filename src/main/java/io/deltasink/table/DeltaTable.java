package io.deltasink.table;

import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.commit.CommitFailedException;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.CheckpointAlreadyExistsException;
import io.delta.kernel.exceptions.KernelException;
import io.delta.kernel.exceptions.MaxCommitRetryLimitReachedException;
import io.delta.kernel.exceptions.TableAlreadyExistsException;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.delta.kernel.exceptions.UnsupportedProtocolVersionException;
import io.delta.kernel.exceptions.UnsupportedTableFeatureException;
import io.delta.kernel.hook.PostCommitHook;
import io.delta.kernel.transaction.DataLayoutSpec;
import io.delta.kernel.transaction.UpdateTableTransactionBuilder;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TypeChange;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.connect.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.deltasink.model.Column;
import io.deltasink.model.DataFile;
import io.deltasink.model.PartitionSpec;
import io.deltasink.model.RowSchema;

/**
 * A Delta table at one path, read and written through Delta Kernel: the latest snapshot, creating
 * (or checking) the table, and append commits that carry the Kafka offsets as {@code txn}
 * actions. Kernel's own commit retry is off: the caller fences and retries (see
 * {@link #commitAppend}).
 */
public final class DeltaTable {
    private static final Logger log = LoggerFactory.getLogger(DeltaTable.class);

    /** The part of a commit file that identifies the commit: commitInfo.txnId. */
    private static final StructType COMMIT_ID_SCHEMA = new StructType()
            .add("commitInfo", new StructType().add("txnId", StringType.STRING));

    private final Engine engine;
    private final String tablePath;
    private final IdentifiedCommitter committer = new IdentifiedCommitter();
    private final Clock clock;
    private final int logCompactionInterval;
    /**
     * Kernel's snapshot right after this instance's last commit, while nothing says it is not the
     * latest (see {@link #latest}); null after a checkpoint, a schema change or any doubt.
     */
    private volatile LastCommit lastCommit;
    /**
     * The log is on a local file system, where a listing reads the whole folder whatever it starts
     * from (an object store lists from the start asked for, a page at a time): only there does
     * {@link #latest} take the snapshot of the last commit instead of a listing.
     */
    private final boolean localLog;

    /** A snapshot made by a commit of this instance, with its commit file's size and time as stored. */
    private record LastCommit(Snapshot snapshot, long size, long modified) {
    }

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
        checkDigits(Locale.getDefault(Locale.Category.FORMAT));
        this.engine = Objects.requireNonNull(engine, "engine");
        this.tablePath = Objects.requireNonNull(tablePath, "tablePath");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (logCompactionInterval < 0) {
            throw new IllegalArgumentException("logCompactionInterval must be >= 0: " + logCompactionInterval);
        }
        this.logCompactionInterval = logCompactionInterval;
        this.localLog = tablePath.regionMatches(true, 0, "file:", 0, 5);
    }

    public String path() {
        return tablePath;
    }

    /**
     * Delta Kernel 4.4 names log files with the JVM's default format locale ({@code %020d}): under a
     * locale whose digits are not ASCII (Arabic, Persian, ...) it would write commit files no
     * reader finds. Refuses to work in such a JVM, saying how to start it.
     */
    static void checkDigits(Locale locale) {
        String digits = String.format(locale, "%d", 1234567890L);
        if (!digits.equals("1234567890")) {
            throw new IllegalStateException("The JVM's default locale " + locale.toLanguageTag() + " writes numbers as '"
                    + digits + "': Delta Kernel would name the table's log files with those digits, which no Delta "
                    + "reader finds. Start the Connect worker with an ASCII-digit format locale, e.g. "
                    + "KAFKA_OPTS=\"-Duser.language=en -Duser.country=US\" (or -Duser.language.format=en)");
        }
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
        LastCommit mine = lastCommit;
        if (mine != null) {
            if (stillLatest(mine)) {
                return Optional.of(new TableSnapshot(mine.snapshot(), engine, tablePath));
            }
            forgetLastCommit(mine);
        }
        for (int attempt = 1; ; attempt++) {
            try {
                Snapshot snapshot = TableManager.loadSnapshot(tablePath).withCommitter(committer).build(engine);
                return Optional.of(new TableSnapshot(snapshot, engine, tablePath));
            } catch (TableNotFoundException e) {
                if (!tableFilesExist(e)) {
                    return Optional.empty();
                }
                if (attempt > 1) {
                    // listed twice without a commit although the first commit is there: not a creation race
                    RetriableException inconsistent = new RetriableException("The log of Delta table " + tablePath
                            + " lists no commit, yet its first commit or _last_checkpoint exists: the store answered "
                            + "inconsistently; retrying rather than creating a table over it");
                    inconsistent.addSuppressed(e);
                    throw inconsistent;
                }
                // another writer created the table between the listing and the look-up: load it again
            } catch (RuntimeException e) {
                throw TableErrors.onRead(e, tablePath, engine, -1);
            }
        }
    }

    /**
     * Whether the snapshot of this instance's last commit, at version V, is still the latest,
     * told without listing the log: V's commit file is the one that commit stored (same size and
     * time) and V + 1's does not exist. Versions are consecutive, so no later commit exists; a
     * table deleted, or deleted and created again, lacks that file. A listing of a local log reads
     * the whole folder, every commit, checksum and checkpoint file of the table's history, where
     * these are two look-ups (local logs only: {@link #localLog}). Any failure to look says no:
     * the caller lists, as it did before.
     */
    private boolean stillLatest(LastCommit last) {
        long version = last.snapshot().getVersion();
        try {
            FileStatus mine = engine.getFileSystemClient().getFileStatus(commitFile(version));
            if (mine.getSize() != last.size() || mine.getModificationTime() != last.modified()) {
                return false;
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
        try {
            engine.getFileSystemClient().getFileStatus(commitFile(version + 1));
            return false;
        } catch (FileNotFoundException | NoSuchFileException absent) {
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private String commitFile(long version) {
        return logFile(tablePath, commitName(version));
    }

    /** The path of {@code name} in the log of the table at {@code root}. */
    private static String logFile(String root, String name) {
        return root.replaceAll("/+$", "") + "/_delta_log/" + name;
    }

    private static String commitName(long version) {
        return String.format(Locale.ROOT, "%020d.json", version);
    }

    /** Drops {@code last} as the latest known, unless a newer commit replaced it meanwhile. */
    private synchronized void forgetLastCommit(LastCommit last) {
        if (lastCommit == last) {
            lastCommit = null;
        }
    }

    /** Keeps Kernel's snapshot after this commit as the latest known, with its commit file as stored. */
    private void rememberLastCommit(Snapshot snapshot) {
        try {
            FileStatus stored = engine.getFileSystemClient().getFileStatus(commitFile(snapshot.getVersion()));
            lastCommit = new LastCommit(snapshot, stored.getSize(), stored.getModificationTime());
        } catch (IOException | RuntimeException e) {
            log.debug("Cannot look at commit {} of {} ({}); its snapshot is loaded again when asked for",
                    snapshot.getVersion(), tablePath, e.toString());
        }
    }

    /**
     * The latest snapshot of a table that must exist (maintenance works on tables, never creates one).
     *
     * @throws IllegalStateException when there is no table at the path
     */
    public TableSnapshot existing() {
        return latest().orElseThrow(() -> new IllegalStateException("No Delta table at " + tablePath));
    }

    /**
     * Kernel found no commit in the log: whether, looked up without a listing, the first commit file
     * or {@code _last_checkpoint} exists nevertheless (created meanwhile, or the listing was wrong);
     * a failed look-up is retriable.
     */
    private boolean tableFilesExist(TableNotFoundException kernel) {
        for (String name : List.of(commitName(0), "_last_checkpoint")) {
            try {
                engine.getFileSystemClient().getFileStatus(logFile(tablePath, name));
                return true;
            } catch (FileNotFoundException | NoSuchFileException absent) {
                // look for the other one
            } catch (IOException | RuntimeException e) {
                RetriableException unknown = new RetriableException("Cannot tell whether Delta table " + tablePath
                        + " exists: its log lists no commit and looking up _delta_log/" + name + " failed (" + e
                        + "); retrying", e);
                unknown.addSuppressed(kernel);
                throw unknown;
            }
        }
        return false;
    }

    /**
     * Creates the table (version 0: protocol and metaData only) when there is none, else checks
     * that the existing table matches the mapping. When another writer creates the table at the
     * same moment, the loser reads the winner's table and checks it.
     *
     * @throws TableMismatchException when the existing table differs, naming each difference
     * @throws IllegalArgumentException when the partition columns break a rule of {@link PartitionSpec}
     */
    public TableSnapshot createOrCheck(RowSchema schema, List<String> partitionColumns,
                                       Map<String, String> tableProperties, String engineInfo) {
        return createOrCheck(schema, partitionColumns, tableProperties, engineInfo, SchemaEvolution.NONE);
    }

    /**
     * As {@link #createOrCheck(RowSchema, List, Map, String)}; with {@link SchemaEvolution#ADD_COLUMNS}
     * the mapping's columns that an existing table lacks are first added to it (see
     * {@link #evolve}).
     */
    public TableSnapshot createOrCheck(RowSchema schema, List<String> partitionColumns,
                                       Map<String, String> tableProperties, String engineInfo,
                                       SchemaEvolution evolution) {
        Objects.requireNonNull(evolution, "evolution");
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(partitionColumns, "partitionColumns");
        Objects.requireNonNull(tableProperties, "tableProperties");
        Objects.requireNonNull(engineInfo, "engineInfo");
        return check(createOrRead(schema, partitionColumns, tableProperties, engineInfo), schema, partitionColumns,
                tableProperties, engineInfo, evolution);
    }

    /**
     * The latest snapshot, the table created first (version 0: protocol and metaData only) when there
     * is none; when another writer creates it at the same moment, the winner's table. Nothing is
     * checked against {@code schema} beyond the partition-column rules: an existing table is returned
     * as it is (see {@link #checkFrom}).
     *
     * @throws IllegalArgumentException when the partition columns break a rule of {@link PartitionSpec}
     */
    public TableSnapshot createOrRead(RowSchema schema, List<String> partitionColumns,
                                      Map<String, String> tableProperties, String engineInfo) {
        PartitionSpec.of(schema, partitionColumns); // the partition-column rules, before anything is written
        checkTableProperties(tableProperties);
        Optional<TableSnapshot> existing = latest();
        if (existing.isPresent()) {
            return existing.get();
        }
        try {
            Transaction txn = TableManager.buildCreateTableTransaction(tablePath, KernelTypes.schemaOf(schema), engineInfo)
                    .withTableProperties(tableProperties)
                    .withDataLayoutSpec(partitionColumns.isEmpty() ? DataLayoutSpec.noDataLayout()
                            : DataLayoutSpec.partitioned(partitionColumns.stream()
                                    .map(io.delta.kernel.expressions.Column::new).toList()))
                    .withMaxRetries(0)
                    .withCommitter(committer)
                    .build(engine);
            committer.reset();
            TransactionCommitResult result = txn.commit(engine, CloseableIterable.emptyIterable());
            runPostCommitHooks(result);
            rememberSnapshotAfter(result);
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
        return latest().orElseThrow(() ->
                new IllegalStateException("Delta table " + tablePath + " not found right after it was created"));
    }

    /**
     * The rules for table properties the connector sets when it creates a table: a {@code delta.*}
     * key must be one Delta Kernel knows, with a value it accepts (Kernel would refuse the table
     * otherwise), and column mapping is not supported. Other keys are free.
     *
     * @throws IllegalArgumentException naming the first property that breaks a rule
     */
    public static void checkTableProperties(Map<String, String> tableProperties) {
        tableProperties.forEach((key, value) -> {
            if (value == null) {
                throw new IllegalArgumentException("table property " + key + " has no value");
            }
            if (key.equalsIgnoreCase(SchemaCheck.COLUMN_MAPPING_MODE) && !value.equalsIgnoreCase("none")) {
                throw new IllegalArgumentException("table property " + key + "=" + value
                        + " is not supported yet: this connector writes tables without column mapping");
            }
            try {
                KernelInternals.checkTableProperties(Map.of(key, value));
            } catch (KernelException | IllegalArgumentException e) {
                throw new IllegalArgumentException("table property " + key + "=" + value + " is refused by Delta "
                        + "Kernel: " + e.getMessage(), e);
            }
        });
    }

    /**
     * Checks the existing table against the mapping as {@link #createOrCheck} does, without
     * creating one: empty when there is no table.
     *
     * @throws TableMismatchException when the existing table differs, naming each difference
     */
    public Optional<TableSnapshot> checkExisting(RowSchema schema, List<String> partitionColumns,
                                                 Map<String, String> tableProperties, String engineInfo) {
        return checkExisting(schema, partitionColumns, tableProperties, engineInfo, SchemaEvolution.NONE);
    }

    /** As {@link #checkExisting(RowSchema, List, Map, String)}, evolving the table's schema as allowed. */
    public Optional<TableSnapshot> checkExisting(RowSchema schema, List<String> partitionColumns,
                                                 Map<String, String> tableProperties, String engineInfo,
                                                 SchemaEvolution evolution) {
        return latest().map(s -> check(s, schema, partitionColumns, tableProperties, engineInfo, evolution));
    }

    /**
     * Commits one version on top of {@code base}: an {@code add} per file (dataChange=true, with
     * statistics), a {@code txn} action per entry of {@code txnVersions} and a commitInfo with
     * operation STREAMING UPDATE. Then runs Kernel's post-commit hooks (checkpoint, checksum,
     * log compaction); a failing hook is logged and does not undo the commit.
     *
     * <p>Every commit is identified by the {@code txnId} Kernel writes into its commitInfo. When
     * storage reports a failure after the commit file was handed to it (an "already exists" for a
     * retried write whose first attempt landed, an error after the bytes were stored), the commit
     * at that version is read back: if it is this commit, it stands and its version is returned.
     *
     * @param txnVersions appId -> version (the next Kafka offset to read)
     * @return the committed version, {@code base.version() + 1}
     * @throws CommitConflictException        when that version holds another writer's commit: nothing
     *                                        of this commit is in the table
     * @throws CommitOutcomeUnknownException  when it cannot be told whether this commit landed
     * @throws IllegalArgumentException       when there are neither files nor txn versions
     */
    public long commitAppend(TableSnapshot base, List<DataFile> files, Map<String, Long> txnVersions,
                             String engineInfo) {
        Objects.requireNonNull(files, "files");
        Objects.requireNonNull(txnVersions, "txnVersions");
        if (files.isEmpty() && txnVersions.isEmpty()) {
            throw new IllegalArgumentException("nothing to commit: no files and no txn versions");
        }
        return commit(base, files, true, engineInfo, Operation.STREAMING_UPDATE, false,
                snapshot -> txnActions(txnVersions));
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
        return commit(base, List.of(), true, engineInfo, Operation.MANUAL_UPDATE, false,
                snapshot -> txnActions(txnVersions));
    }

    private List<Row> txnActions(Map<String, Long> txnVersions) {
        List<Row> actions = new ArrayList<>(txnVersions.size());
        long now = clock.millis();
        txnVersions.forEach((appId, version) -> actions.add(KernelInternals.txnAction(appId,
                Objects.requireNonNull(version, () -> "txn version of " + appId), now)));
        return actions;
    }

    /**
     * Commits one version on top of {@code base} that replaces files without changing the table's
     * rows (a compaction): a {@code remove} per file of {@code removedLogPaths} and an {@code add} per
     * file of {@code added}, all with dataChange=false, no {@code txn} action, and a commitInfo with
     * operation "Manual Update" (Kernel 4.4 has no OPTIMIZE; {@code engineInfo} tells the writer).
     * Identified and reported like {@link #commitAppend}, so a streaming writer sees it as any other
     * writer's commit.
     *
     * @param removedLogPaths the files to replace, by their path in the log ({@link TableFile#logPath()})
     * @return the committed version, {@code base.version() + 1}
     * @throws InputFilesGoneException       when {@code base} no longer holds one of the files: nothing
     *                                       was committed
     * @throws CommitConflictException       when that version holds another writer's commit
     * @throws CommitOutcomeUnknownException when it cannot be told whether this commit landed
     */
    public long commitRewrite(TableSnapshot base, Set<String> removedLogPaths, List<DataFile> added,
                              String engineInfo) {
        Objects.requireNonNull(removedLogPaths, "removedLogPaths");
        Objects.requireNonNull(added, "added");
        if (removedLogPaths.isEmpty()) {
            throw new IllegalArgumentException("nothing to rewrite: no files to remove");
        }
        return commit(base, added, false, engineInfo, Operation.MANUAL_UPDATE, false, snapshot -> {
            Map<String, Row> removes = KernelInternals.removeActions(engine, snapshot, removedLogPaths, clock.millis());
            if (removes.size() < removedLogPaths.size()) {
                List<String> missing = removedLogPaths.stream().filter(p -> !removes.containsKey(p)).sorted().toList();
                throw new InputFilesGoneException(tablePath, snapshot.getVersion(), missing);
            }
            return new ArrayList<>(removes.values());
        });
    }

    /**
     * The shared commit path: {@code otherActions} gives the actions besides the adds of
     * {@code files} (txn, remove or metaData rows) for the snapshot the transaction builds on.
     * {@code schemaChange}: the actions hold a metaData action Kernel does not know of, so its
     * checksum hooks (which would record the snapshot's old metaData) are skipped.
     */
    private synchronized long commit(TableSnapshot base, List<DataFile> files, boolean dataChange, String engineInfo,
                                     Operation operation, boolean schemaChange,
                                     Function<Snapshot, List<Row>> otherActions) {
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
        Transaction txn;
        try { // Kernel checks that it can write the table's protocol when the builder is made
            UpdateTableTransactionBuilder builder = snapshot
                    .buildUpdateTableTransaction(engineInfo, operation)
                    .withMaxRetries(0);
            if (logCompactionInterval > 0) {
                builder = builder.withLogCompactionInterval(logCompactionInterval);
            }
            txn = builder.build(engine);
        } catch (UnsupportedTableFeatureException | UnsupportedProtocolVersionException e) {
            throw TableErrors.unsupported(tablePath, base.version(), e, "write");
        }

        List<Row> actions = new ArrayList<>(otherActions.apply(snapshot));
        actions.addAll(AppendActions.of(engine, txn, snapshot.getPath(), files, dataChange));

        TransactionCommitResult result;
        committer.reset();
        lastCommit = null;
        try {
            result = txn.commit(engine, CloseableIterable.inMemoryIterable(new ListCloseableIterator<>(actions)));
        } catch (RuntimeException e) {
            return landedAnyway(snapshot.getPath(), e);
        }
        long version = result.getVersion();
        log.debug("Committed version {} of Delta table {}: {} files, {} rows, {} other actions in {} ms",
                version, tablePath, files.size(), rows, actions.size() - files.size(),
                (System.nanoTime() - started) / 1_000_000);
        runPostCommitHooks(result, schemaChange);
        // Kernel's snapshot after a schema change would carry the metaData it read, not the one written
        if (!schemaChange) {
            rememberSnapshotAfter(result);
        }
        return version;
    }

    /**
     * Keeps Kernel's snapshot after a commit of this instance (the table's creation included) as the
     * latest known, so the next {@link #latest} looks up two files instead of listing the log; not
     * after a checkpoint (that snapshot still replays from the checkpoint before), nor off a local
     * log, nor when the snapshot would commit through another committer than this instance's (whose
     * notes tell an ambiguous failure's outcome).
     */
    private void rememberSnapshotAfter(TransactionCommitResult result) {
        Optional<Snapshot> after = result.getPostCommitSnapshot();
        if (localLog && after.isPresent() && after.get().getVersion() == result.getVersion()
                && after.get().getCommitter() == committer && !checkpointed(result)) {
            rememberLastCommit(after.get());
        }
    }

    /**
     * Whether Kernel asked for a checkpoint at this commit: the snapshot after it still replays the
     * log from the checkpoint before, so the next {@link #latest} lists once and starts from the new one.
     */
    private static boolean checkpointed(TransactionCommitResult result) {
        return result.getPostCommitHooks().stream()
                .anyMatch(h -> h.getType() == PostCommitHook.PostCommitHookType.CHECKPOINT);
    }

    /**
     * After a failed commit: the version of this commit if it is in the log nevertheless (its
     * commitInfo.txnId is the one this attempt wrote); otherwise throws what the failure means.
     */
    private long landedAnyway(String tableRoot, RuntimeException failure) {
        IdentifiedCommitter.Attempt attempt = committer.last();
        boolean conflict = failure instanceof MaxCommitRetryLimitReachedException m && isConflict(m);
        if (attempt == null) {
            // nothing reached storage: the failure came before the commit file was written
            throw failure;
        }
        String found;
        try {
            found = commitIdAt(tableRoot, attempt.version());
        } catch (IOException | RuntimeException readFailure) {
            failure.addSuppressed(readFailure);
            throw new CommitOutcomeUnknownException(tablePath, attempt.version(), failure);
        }
        switch (attempt.judge(found)) {
            case OURS -> {
                log.warn("Version {} of {} is this writer's commit although storage reported a failure ({}); it stands",
                        attempt.version(), tablePath, rootMessage(failure));
                return attempt.version();
            }
            case ANOTHER_WRITERS -> {
                if (!conflict) {
                    log.info("Version {} of {} holds another writer's commit (this one failed: {})", attempt.version(),
                            tablePath, rootMessage(failure));
                }
                throw new CommitConflictException(tablePath, attempt.version(), failure);
            }
            default -> {
                // not there now (on an object store a write whose answer was lost may still land), or
                // this attempt carried no id to recognise it by
                if (found != null) {
                    log.warn("Version {} of {} holds a commit, and this writer's attempt carried no commitInfo.txnId "
                            + "to tell whether it is this one (it failed: {})", attempt.version(), tablePath,
                            rootMessage(failure));
                }
                throw new CommitOutcomeUnknownException(tablePath, attempt.version(), failure);
            }
        }
    }

    /**
     * The commitInfo.txnId of the commit file of {@code version}: null when there is no such file,
     * empty when the commit carries no id.
     */
    private String commitIdAt(String tableRoot, long version) throws IOException {
        String file = logFile(tableRoot, commitName(version));
        FileStatus status;
        try {
            status = engine.getFileSystemClient().getFileStatus(file);
        } catch (FileNotFoundException | NoSuchFileException e) {
            return null;
        }
        try (CloseableIterator<ColumnarBatch> batches = engine.getJsonHandler().readJsonFiles(
                new ListCloseableIterator<>(List.of(status)), COMMIT_ID_SCHEMA, Optional.empty())) {
            while (batches.hasNext()) {
                ColumnVector info = batches.next().getColumnVector(0);
                ColumnVector id = info.getChild(0);
                for (int row = 0; row < info.getSize(); row++) {
                    if (!info.isNullAt(row) && !id.isNullAt(row)) {
                        return id.getString(row);
                    }
                }
            }
        }
        return "";
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
    }

    /**
     * Checks {@code basis}, the snapshot the caller built the mapping from, as {@link #createOrCheck}
     * checks the latest one, adding the mapping's missing columns when {@code evolution} allows: a
     * nullable column another writer adds after {@code basis} is accepted although the mapping lacks
     * it (rows of this writer read null there), as when the other writer wins the race for a version.
     * {@link #createOrCheck} reads the table afresh and so refuses such a column.
     *
     * @throws TableMismatchException when the table differs in a way adding columns cannot mend
     */
    public TableSnapshot checkFrom(TableSnapshot basis, RowSchema schema, List<String> partitionColumns,
                                   Map<String, String> tableProperties, String engineInfo, SchemaEvolution evolution) {
        Objects.requireNonNull(evolution, "evolution");
        PartitionSpec.of(schema, partitionColumns);
        return check(basis, schema, partitionColumns, tableProperties, engineInfo, evolution);
    }

    /**
     * The existing table must match the mapping and use nothing Kernel cannot write (building an
     * update transaction checks the protocol and table features, without any I/O).
     */
    private TableSnapshot check(TableSnapshot snapshot, RowSchema schema, List<String> partitionColumns,
                                Map<String, String> tableProperties, String engineInfo, SchemaEvolution evolution) {
        Snapshot kernel = snapshot.kernelSnapshot();
        try {
            kernel.buildUpdateTableTransaction(engineInfo, Operation.STREAMING_UPDATE);
        } catch (UnsupportedTableFeatureException | UnsupportedProtocolVersionException e) {
            throw TableErrors.unsupported(tablePath, snapshot.version(), e, "write");
        }
        if (evolution != SchemaEvolution.NONE) {
            snapshot = evolve(snapshot, schema, partitionColumns, engineInfo, evolution.widensTypes()); // checks the differences too
            kernel = snapshot.kernelSnapshot();
        } else {
            List<String> diffs = SchemaCheck.differences(kernel.getSchema(), kernel.getPartitionColumnNames(),
                    kernel.getTableProperties(), schema, partitionColumns);
            if (!diffs.isEmpty()) {
                throw new TableMismatchException(tablePath, snapshot.version(), diffs);
            }
        }
        Map<String, String> actual = kernel.getTableProperties();
        tableProperties.forEach((key, wanted) -> {
            if (!wanted.equals(actual.get(key))) {
                log.warn("Table property {} of existing Delta table {} is {}, not the configured {}; "
                        + "properties are only set when the connector creates a table", key, tablePath,
                        actual.get(key), wanted);
            }
        });
        return snapshot;
    }

    /** How often adding columns is tried again after another writer committed first. */
    static final int EVOLVE_ATTEMPTS = 10;

    static final String EVOLUTION_LIMITS = " schema.evolution=add-columns only adds nullable columns that are not "
            + "partition columns (and drops NOT NULL from a column the mapping makes nullable): it never changes a "
            + "column's type, makes a column NOT NULL, removes a column or "
            + "changes the partition columns, because files already in the table were written under the old "
            + "schema and readers would read them wrong or not at all.";

    /**
     * Adds the mapping's columns that the table lacks, as nullable columns, in a commit of their own
     * (a metaData action and a commitInfo, nothing else) before any row using them is written. When
     * another writer commits first, the table is read again and what is still missing is added on
     * top of it: columns the other writer added stay (the schemas are united), a column it added
     * with another type is refused as any type difference is. Anything the mapping wants that
     * adding columns cannot give is refused with the usual differences.
     *
     * @return the snapshot holding every column of the mapping
     * @throws TableMismatchException when the table differs in a way adding columns cannot mend
     */
    private TableSnapshot evolve(TableSnapshot snapshot, RowSchema schema, List<String> partitionColumns,
                                 String engineInfo, boolean widen) {
        Set<String> before = new HashSet<>(snapshot.kernelSnapshot().getSchema().fieldNames());
        TableSnapshot current = snapshot;
        long landed = -1;
        for (int attempt = 1; ; attempt++) {
            Snapshot kernel = current.kernelSnapshot();
            StructType tableSchema = kernel.getSchema();
            Set<String> othersAdded = new HashSet<>(tableSchema.fieldNames());
            othersAdded.removeAll(before);
            List<Column> added = SchemaCheck.addable(tableSchema, schema, partitionColumns);
            List<String> relaxed = new ArrayList<>();
            List<String> widened = new ArrayList<>();
            List<StructField> fields = new ArrayList<>();
            for (StructField tableField : tableSchema.fields()) {
                int index = schema.indexOf(tableField.getName());
                StructField field = tableField;
                if (widen && index >= 0 && !KernelTypes.sameType(field, schema.columns().get(index))
                        && SchemaCheck.widening(field.getDataType(), KernelTypes.dataTypeOf(schema.columns().get(index)))) {
                    DataType to = KernelTypes.dataTypeOf(schema.columns().get(index));
                    List<TypeChange> changes = new ArrayList<>(field.getTypeChanges());
                    changes.add(new TypeChange(field.getDataType(), to));
                    field = new StructField(field.getName(), to, field.isNullable(), field.getMetadata())
                            .withTypeChanges(changes);
                    widened.add(field.getName() + " " + KernelTypes.typeName(tableField.getDataType()) + " to "
                            + KernelTypes.typeName(to));
                }
                if (!field.isNullable() && index >= 0 && schema.columns().get(index).nullable()
                        && KernelTypes.sameType(field, schema.columns().get(index))) {
                    // every file holds a value there: read as nullable, they read the same
                    fields.add(new StructField(field.getName(), field.getDataType(), true, field.getMetadata()));
                    relaxed.add(field.getName());
                } else {
                    fields.add(field);
                }
            }
            StructType evolved = relaxed.isEmpty() && widened.isEmpty() ? tableSchema : new StructType(fields);
            for (Column column : added) {
                evolved = evolved.add(column.name(), KernelTypes.dataTypeOf(column), true);
            }
            List<String> diffs = SchemaCheck.differences(evolved, kernel.getPartitionColumnNames(),
                    kernel.getTableProperties(), schema, partitionColumns, othersAdded);
            if (!diffs.isEmpty()) {
                throw new TableMismatchException(tablePath, current.version(), diffs, EVOLUTION_LIMITS);
            }
            if (added.isEmpty() && relaxed.isEmpty() && widened.isEmpty()) {
                return current;
            }
            if (landed >= 0) {
                // never commit the same change twice: a table that reads back without it is broken
                throw new IllegalStateException("Delta table " + tablePath + " (version " + current.version()
                        + ") lacks columns " + added.stream().map(Column::name).toList() + " or nullable "
                        + relaxed + " or widened " + widened + " right after version " + landed + " changed them");
            }
            String names = added.stream().map(c -> c.name() + " " + c.deltaTypeName()).toList().toString()
                    + (relaxed.isEmpty() ? "" : ", NOT NULL dropped from " + relaxed)
                    + (widened.isEmpty() ? "" : ", widened " + widened);
            StructType newSchema = evolved;
            boolean widening = !widened.isEmpty();
            try {
                long version = commit(current, List.of(), true, engineInfo, Operation.MANUAL_UPDATE, true,
                        s -> widening ? KernelInternals.wideningActions(s, newSchema)
                                : List.of(KernelInternals.metadataAction(s, newSchema)));
                landed = version;
                List<String> notNull = added.stream().map(Column::name)
                        .filter(n -> !schema.columns().get(schema.indexOf(n)).nullable()).toList();
                log.info("Added columns {} to Delta table {} (version {}), nullable: rows written before read them "
                        + "as null{}", names, tablePath, version, notNull.isEmpty() ? "" : "; " + notNull
                        + " NOT NULL in the mapping holds for new rows only, the table column is nullable");
            } catch (CommitConflictException e) {
                if (attempt >= EVOLVE_ATTEMPTS) {
                    throw new RetriableException("Adding columns " + names + " to Delta table " + tablePath
                            + " lost the race for a new version " + attempt + " times in a row; retrying", e);
                }
                log.info("Adding columns {} to Delta table {}: version {} was taken by another writer; reading the "
                        + "table again", names, tablePath, e.version());
            }
            current = latest().orElseThrow(() -> new IllegalStateException(
                    "the table at " + tablePath + " disappeared while the connector was adding columns"));
        }
    }

    private void runPostCommitHooks(TransactionCommitResult result) {
        runPostCommitHooks(result, false);
    }

    private void runPostCommitHooks(TransactionCommitResult result, boolean schemaChange) {
        for (PostCommitHook hook : result.getPostCommitHooks()) {
            if (schemaChange && (hook.getType() == PostCommitHook.PostCommitHookType.CHECKSUM_SIMPLE
                    || hook.getType() == PostCommitHook.PostCommitHookType.CHECKSUM_FULL)) {
                // Kernel's checksum would carry the metaData it read, not the one this commit wrote;
                // a version without a checksum file is read from its log
                continue;
            }
            long started = System.nanoTime();
            try {
                Optional<Snapshot> after = schemaChange ? Optional.empty() : result.getPostCommitSnapshot();
                if (hook.getType() == PostCommitHook.PostCommitHookType.CHECKPOINT && after.isPresent()
                        && after.get().getVersion() == result.getVersion()) {
                    // from the snapshot in hand: Kernel's hook loads that version again, looking for the
                    // checkpoint before it in a listing of up to 1,000 versions of the log
                    after.get().writeCheckpoint(engine);
                } else {
                    hook.threadSafeInvoke(engine);
                }
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
