package io.deltasink.table;

import io.delta.kernel.Snapshot;
import io.delta.kernel.commit.CommitMetadata;
import io.delta.kernel.commit.Committer;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.SnapshotImpl;
import io.delta.kernel.internal.TableConfig;
import io.delta.kernel.internal.actions.Metadata;
import io.delta.kernel.internal.actions.Protocol;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.SetTransaction;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.internal.commit.DefaultFileSystemManagedTableOnlyCommitter;
import io.delta.kernel.internal.data.TransactionStateRow;
import io.delta.kernel.internal.fs.Path;
import io.delta.kernel.internal.replay.ActionWrapper;
import io.delta.kernel.internal.replay.ActionsIterator;
import io.delta.kernel.internal.replay.LogReplay;
import io.delta.kernel.internal.snapshot.MetadataCleanup;
import io.delta.kernel.internal.tablefeatures.TableFeatures;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.internal.util.VectorUtils;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The one place that uses Kernel's internal classes ({@code io.delta.kernel.internal.*}), so a
 * Kernel upgrade that moves them breaks here and nowhere else.
 *
 * <p>Why internals are needed:
 * <ul>
 * <li>a commit must carry one {@code txn} action per Kafka partition it wrote, but Kernel's public
 * {@code withTransactionId} keeps only one per transaction (a second call replaces the first).
 * Kernel writes whatever action rows are handed to {@code Transaction.commit}, so extra {@code txn}
 * rows built here travel with the add actions;</li>
 * <li>a commit is recognised as one's own by the {@code txnId} Kernel writes into its
 * {@code commitInfo}; the public {@link CommitMetadata} hands out that commitInfo as an internal
 * type;</li>
 * <li>the public API answers "which version does this appId hold", never "which appIds are
 * there"; the connector needs the whole set to see who else writes the table;</li>
 * <li>a compaction replaces files: it commits {@code remove} actions, which the public API cannot
 * build, and {@code add} actions with dataChange=false, where the public API always says true;</li>
 * <li>vacuum must keep files removed less than the retention ago: the public API lists no
 * {@code remove} action, nor the protocol's features, nor the retention settings as Kernel parses
 * them; and Kernel's checkpoint hook does not delete expired log files for a snapshot loaded by
 * version (as the hook loads it), so log upkeep calls Kernel's cleanup itself;</li>
 * <li>schema evolution: Kernel's public {@code withUpdatedSchema} refuses tables without column
 * mapping, the layout every table of this connector has. Adding a nullable column to such a table
 * is a {@code metaData} action every reader understands, built here from the snapshot's own
 * metaData (id, partition columns, configuration kept).</li>
 * </ul>
 */
final class KernelInternals {

    private KernelInternals() {
    }

    /**
     * A log action row (Kernel's single-action schema) holding one {@code txn} action.
     *
     * @param appId       application id, e.g. {@code connector/topic/0}
     * @param version     the application's version (here: the next Kafka offset to consume), or
     *                    {@link TableSnapshot#NO_POSITION}
     * @param lastUpdated epoch milliseconds of the commit
     */
    static Row txnAction(String appId, long version, long lastUpdated) {
        Objects.requireNonNull(appId, "appId");
        if (version < 0 && version != TableSnapshot.NO_POSITION) {
            throw new IllegalArgumentException("txn version of '" + appId + "' must not be negative: " + version);
        }
        SetTransaction txn = new SetTransaction(appId, version, Optional.of(lastUpdated));
        return SingleAction.createTxnSingleAction(txn.toRow());
    }

    /** Kernel's committer for tables whose log is a directory of files (every table this connector writes). */
    static Committer fileSystemCommitter() {
        return DefaultFileSystemManagedTableOnlyCommitter.INSTANCE;
    }

    /** The {@code txnId} Kernel writes into the commitInfo of the commit being made, or null if it has none. */
    static String commitId(CommitMetadata commit) {
        return commit.getCommitInfo().getTxnId().orElse(null);
    }

    /**
     * Every appId with a {@code txn} action up to the snapshot's version and its latest version,
     * read the way Kernel replays the log (newest commit first, then the checkpoint).
     */
    static Map<String, Long> txnVersions(Engine engine, Snapshot snapshot) {
        Map<String, Long> versions = new LinkedHashMap<>();
        try (ActionsIterator actions = new ActionsIterator(engine,
                ((SnapshotImpl) snapshot).getLogSegment().allLogFilesReversed(),
                LogReplay.SET_TRANSACTION_READ_SCHEMA, Optional.empty())) {
            while (actions.hasNext()) {
                ActionWrapper batch = actions.next();
                ColumnVector txn = batch.getColumnarBatch().getColumnVector(0);
                for (int row = 0; row < txn.getSize(); row++) {
                    if (!txn.isNullAt(row)) {
                        SetTransaction t = SetTransaction.fromColumnVector(txn, row);
                        versions.putIfAbsent(t.getAppId(), t.getVersion());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return versions;
    }

    /** The active files of the snapshot (its {@code add} actions after log replay). */
    static List<TableFile> activeFiles(Engine engine, Snapshot snapshot) {
        List<TableFile> files = new ArrayList<>();
        forEachAdd(engine, snapshot, false, add -> files.add(new TableFile(add.getPath(), relativePath(add.getPath()),
                Collections.unmodifiableMap(new HashMap<>(VectorUtils.<String, String>toJavaMap(add.getPartitionValues()))),
                add.getSize(), add.getModificationTime(), add.getDeletionVector().isPresent())));
        return files;
    }

    /**
     * {@code remove} action rows (dataChange=false, statistics and partition values kept) for those of
     * {@code logPaths} the snapshot holds, by log path; a path it does not hold has no entry.
     */
    static Map<String, Row> removeActions(Engine engine, Snapshot snapshot, Set<String> logPaths,
                                          long deletionTimestamp) {
        Map<String, Row> removes = new LinkedHashMap<>();
        forEachAdd(engine, snapshot, true, add -> {
            if (logPaths.contains(add.getPath())) {
                removes.put(add.getPath(), SingleAction.createRemoveFileSingleAction(
                        add.toRemoveFileRow(false, Optional.of(deletionTimestamp))));
            }
        });
        return removes;
    }

    /**
     * An {@code add} action row as {@code Transaction.generateAppendActions} builds it, but with the
     * given dataChange flag: false for files that only rewrite rows already in the table.
     */
    static Row addAction(Row transactionState, Map<String, Literal> partitionValues, DataFileStatus file,
                         boolean dataChange) {
        URI tableRoot = new Path(TransactionStateRow.getTablePath(transactionState)).toUri();
        AddFile add = AddFile.convertDataFileStatus(TransactionStateRow.getPhysicalSchema(transactionState), tableRoot,
                file, partitionValues, dataChange, Map.of(), Optional.empty(), Optional.empty(), Optional.empty());
        return SingleAction.createAddFileSingleAction(add.toRow());
    }

    private static void forEachAdd(Engine engine, Snapshot snapshot, boolean withStats, Consumer<AddFile> action) {
        try (CloseableIterator<FilteredColumnarBatch> batches = snapshot.getScanBuilder().build()
                .getScanFiles(engine, withStats)) {
            while (batches.hasNext()) {
                try (CloseableIterator<Row> rows = batches.next().getRows()) {
                    while (rows.hasNext()) {
                        action.accept(new AddFile(rows.next().getStruct(InternalScanFileUtils.ADD_FILE_ORDINAL)));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The decoded name below the table root of a log path, or null for an absolute one. */
    private static String relativePath(String logPath) {
        try {
            URI uri = new URI(logPath);
            return uri.isAbsolute() || uri.getPath() == null || uri.getPath().startsWith("/") ? null : uri.getPath();
        } catch (URISyntaxException e) {
            return logPath.startsWith("/") ? null : logPath;
        }
    }

    private static final StructType REMOVE_READ_SCHEMA = new StructType().add("remove",
            new StructType().add("path", StringType.STRING).add("deletionTimestamp", LongType.LONG));

    /**
     * The {@code remove} actions (tombstones) up to the snapshot's version, newest first per path, read
     * the way Kernel replays the log (newest commit first, then the checkpoint); a path the snapshot
     * holds again as an active file is still listed: the caller keeps active files anyway.
     */
    static Map<String, RemovedFile> removedFiles(Engine engine, Snapshot snapshot) {
        Map<String, RemovedFile> removed = new LinkedHashMap<>();
        try (ActionsIterator actions = new ActionsIterator(engine,
                ((SnapshotImpl) snapshot).getLogSegment().allLogFilesReversed(), REMOVE_READ_SCHEMA, Optional.empty())) {
            while (actions.hasNext()) {
                ColumnVector remove = actions.next().getColumnarBatch().getColumnVector(0);
                ColumnVector path = remove.getChild(0);
                ColumnVector deleted = remove.getChild(1);
                for (int row = 0; row < remove.getSize(); row++) {
                    if (!remove.isNullAt(row) && !path.isNullAt(row)) {
                        String logPath = path.getString(row);
                        removed.putIfAbsent(logPath, new RemovedFile(logPath, relativePath(logPath),
                                deleted.isNullAt(row) ? 0L : deleted.getLong(row)));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return removed;
    }

    /**
     * A log action row holding the snapshot's {@code metaData} with {@code schema} in place of its
     * schema; everything else (id, format, partition columns, configuration, creation time) kept.
     */
    static Row metadataAction(Snapshot snapshot, StructType schema) {
        Metadata metadata = ((SnapshotImpl) snapshot).getMetadata();
        return SingleAction.createMetadataSingleAction(metadata.withNewSchema(schema).toRow());
    }

    /** The table property that lets writers widen column types (Delta's typeWidening feature). */
    static final String ENABLE_TYPE_WIDENING = "delta.enableTypeWidening";

    /**
     * The actions of a schema change that widens column types: a {@code protocol} action adding the
     * {@code typeWidening} reader-writer feature (a table of protocol 1,2 moves to table features,
     * 3,7, keeping the features its versions implied) when the table lacks it, and the
     * {@code metaData} with the new schema and {@value #ENABLE_TYPE_WIDENING}=true. The widened
     * fields carry their {@code delta.typeChanges} in {@code schema}.
     */
    static List<Row> wideningActions(Snapshot snapshot, StructType schema) {
        Protocol protocol = snapshot.getProtocol();
        Metadata metadata = ((SnapshotImpl) snapshot).getMetadata().withNewSchema(schema)
                .withMergedConfiguration(Map.of(ENABLE_TYPE_WIDENING, "true"));
        List<Row> actions = new ArrayList<>();
        if (!protocol.supportsFeature(TableFeatures.TYPE_WIDENING_RW_FEATURE)) {
            Protocol upgraded = protocol.supportsReaderFeatures() ? protocol
                    : new Protocol(TableFeatures.TABLE_FEATURES_MIN_READER_VERSION,
                            TableFeatures.TABLE_FEATURES_MIN_WRITER_VERSION)
                            .withFeatures(protocol.getImplicitlyAndExplicitlySupportedFeatures());
            actions.add(SingleAction.createProtocolSingleAction(
                    upgraded.withFeature(TableFeatures.TYPE_WIDENING_RW_FEATURE).toRow()));
        }
        actions.add(SingleAction.createMetadataSingleAction(metadata.toRow()));
        return actions;
    }

    /** The table's protocol: reader and writer versions and the features it names. */
    static TableProtocol protocol(Snapshot snapshot) {
        Protocol protocol = snapshot.getProtocol();
        return new TableProtocol(protocol.getMinReaderVersion(), protocol.getMinWriterVersion(),
                List.copyOf(new TreeSet<>(protocol.getReaderFeatures())),
                List.copyOf(new TreeSet<>(protocol.getWriterFeatures())));
    }

    /**
     * Checks table properties as Kernel does when it creates a table: a {@code delta.*} key Kernel
     * does not know, or a value its parser refuses, throws {@link io.delta.kernel.exceptions.KernelException}
     * with Kernel's message; a boolean property that is neither true nor false throws
     * IllegalArgumentException; other keys pass.
     */
    static void checkTableProperties(Map<String, String> properties) {
        TableConfig.validateAndNormalizeDeltaProperties(properties);
        properties.forEach((key, value) -> {
            boolean flag = BOOLEAN_PROPERTIES.stream().anyMatch(c -> c.getKey().equalsIgnoreCase(key));
            if (flag && !value.trim().equalsIgnoreCase("true") && !value.trim().equalsIgnoreCase("false")) {
                // Kernel reads any other word as false; Delta (Spark) refuses it
                throw new IllegalArgumentException("must be true or false");
            }
        });
    }

    /** The table properties Kernel reads as booleans (with Boolean.parseBoolean: "yes" is false). */
    private static final List<TableConfig<Boolean>> BOOLEAN_PROPERTIES = List.of(TableConfig.APPEND_ONLY_ENABLED,
            TableConfig.CHANGE_DATA_FEED_ENABLED, TableConfig.CHECKPOINT_WRITE_STATS_AS_STRUCT,
            TableConfig.CHECKPOINT_WRITE_STATS_AS_JSON, TableConfig.DELETION_VECTORS_CREATION_ENABLED,
            TableConfig.TYPE_WIDENING_ENABLED, TableConfig.ROW_TRACKING_ENABLED, TableConfig.EXPIRED_LOG_CLEANUP_ENABLED,
            TableConfig.IN_COMMIT_TIMESTAMPS_ENABLED, TableConfig.ICEBERG_COMPAT_V2_ENABLED,
            TableConfig.ICEBERG_COMPAT_V3_ENABLED, TableConfig.ICEBERG_WRITER_COMPAT_V1_ENABLED,
            TableConfig.ICEBERG_WRITER_COMPAT_V3_ENABLED, TableConfig.VARIANT_SHREDDING_ENABLED);

    /** delta.deletedFileRetentionDuration as Kernel (and Delta) parse it: 7 days when unset. */
    static long deletedFileRetentionMillis(Map<String, String> properties) {
        return TableConfig.TOMBSTONE_RETENTION.fromMetadata(properties);
    }

    /** delta.logRetentionDuration as Kernel (and Delta) parse it: 30 days when unset. */
    static long logRetentionMillis(Map<String, String> properties) {
        return TableConfig.LOG_RETENTION.fromMetadata(properties);
    }

    /**
     * Deletes the log files older than {@code retentionMillis} that no version after them needs, by
     * Kernel's own rules (commit and checkpoint files below a later complete checkpoint); nothing when
     * delta.enableExpiredLogCleanup is false or the table protects its checkpoints. The number deleted.
     */
    static long cleanupExpiredLogs(Engine engine, Snapshot snapshot, java.time.Clock clock, long retentionMillis) {
        boolean enabled = TableConfig.EXPIRED_LOG_CLEANUP_ENABLED.fromMetadata(snapshot.getTableProperties());
        boolean protectedCheckpoints = snapshot.getProtocol().getWriterFeatures()
                .contains(TableFeatures.CHECKPOINT_PROTECTION_W_FEATURE.featureName());
        if (!enabled || protectedCheckpoints) {
            return 0;
        }
        try {
            return MetadataCleanup.cleanupExpiredLogs(engine, clock::millis, new Path(snapshot.getPath()), retentionMillis);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
