package io.deltasink.maintenance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.deltasink.Version;
import io.deltasink.model.Column;
import io.deltasink.model.DataFile;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.CommitConflictException;
import io.deltasink.table.CommitOutcomeUnknownException;
import io.deltasink.table.DeltaTable;
import io.deltasink.table.InputFilesGoneException;
import io.deltasink.table.TableFile;
import io.deltasink.table.TableSnapshot;
import io.deltasink.write.ParquetRewriter;
import io.deltasink.write.WriterSettings;

/**
 * Bin-packing compaction of one Delta table: per table partition, small files rewritten into files
 * near the target size, committed as one version of remove and add actions with dataChange=false.
 * Safe beside streaming appends and other compactions. The caller owns {@code storage}.
 *
 * <p>A lost race for the next version is retried on the new snapshot as long as every input file
 * is still in it (appends never touch them); once one is gone (another compaction, a vacuum, a
 * delete) the run gives up and deletes the files it wrote, which no version references. When the
 * outcome of the commit cannot be told, the new files stay (a vacuum collects them if it did not
 * land) and the run throws.
 */
public final class Compactor {
    private static final Logger log = LoggerFactory.getLogger(Compactor.class);

    /** Commit attempts on newer snapshots before a run gives up; each lost one means another writer committed. */
    static final int MAX_COMMIT_ATTEMPTS = 10;
    static final String ENGINE_INFO = "kafka-connect-delta-sink/" + Version.get() + " compaction";
    private static final String ROW_TRACKING = "delta.enableRowTracking";
    private static final String COLUMN_MAPPING = "delta.columnMapping.mode";
    private static final String INDEXED_COLUMNS = "delta.dataSkippingNumIndexedCols";

    private final StorageSettings storage;
    private final Clock clock;

    public Compactor(StorageSettings storage, Clock clock) {
        this.storage = Objects.requireNonNull(storage, "storage");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** What {@link #run} would rewrite now, without writing anything (version -1). */
    public CompactionResult plan(CompactionOptions options) {
        TableSnapshot snapshot = table().existing();
        CompactionPlan plan = CompactionPlan.of(snapshot.files(), options, clock.millis());
        String outcome = plan.bins().isEmpty() ? "nothing to compact"
                : "would rewrite " + plan.inputFiles() + " files into about " + plan.bins().size();
        return new CompactionResult(-1, plan.partitions(), plan.inputFiles(), plan.bins().size(), plan.inputBytes(),
                0, outcome);
    }

    /** Plans, rewrites and commits. Throws when the table cannot be read or written. */
    public CompactionResult run(CompactionOptions options) {
        DeltaTable table = table();
        TableSnapshot base = table.existing();
        List<Column> statsColumns = statsColumns(base);
        CompactionPlan plan = CompactionPlan.of(base.files(), options, clock.millis());
        if (plan.bins().isEmpty()) {
            return new CompactionResult(-1, 0, 0, 0, 0, 0, "nothing to compact");
        }
        long started = System.nanoTime();
        ParquetRewriter rewriter = rewriter(options, statsColumns);
        List<DataFile> added = new ArrayList<>();
        Set<String> removed = new LinkedHashSet<>();
        try {
            for (CompactionPlan.Bin bin : plan.bins()) {
                added.addAll(rewriter.rewrite(bin.directory(), bin.partitionValues(),
                        bin.files().stream().map(TableFile::relativePath).toList()));
                bin.files().forEach(f -> removed.add(f.logPath()));
            }
        } catch (IOException | RuntimeException e) {
            deleteQuietly(rewriter, added, e);
            throw e instanceof IOException io ? new UncheckedIOException("Compaction of " + storage.tableUri()
                    + " failed while rewriting files: " + io.getMessage(), io) : (RuntimeException) e;
        }
        long rows = added.stream().mapToLong(f -> f.stats().numRecords()).sum();
        CompactionResult result = commit(table, base, rewriter, removed, added, plan, rows);
        log.info("Compaction of {}: {}; {} files ({} bytes, {} rows) into {} files in {} table partitions, {} ms",
                storage.tableUri(), result.outcome(), removed.size(), plan.inputBytes(), rows, added.size(),
                plan.partitions(), (System.nanoTime() - started) / 1_000_000);
        return result;
    }

    private CompactionResult commit(DeltaTable table, TableSnapshot base, ParquetRewriter rewriter, Set<String> removed,
                                    List<DataFile> added, CompactionPlan plan, long rows) {
        TableSnapshot snapshot = base;
        String gaveUp;
        for (int attempt = 1; ; attempt++) {
            try {
                long version = table.commitRewrite(snapshot, removed, added, ENGINE_INFO);
                return new CompactionResult(version, plan.partitions(), removed.size(), added.size(), plan.inputBytes(),
                        rows, "committed");
            } catch (InputFilesGoneException e) {
                gaveUp = "gave up: " + e.missing().size() + " input files were removed by another writer at version "
                        + snapshot.version() + " or before";
                break;
            } catch (CommitConflictException e) {
                if (attempt >= MAX_COMMIT_ATTEMPTS) {
                    gaveUp = "gave up: lost the race for a new version " + attempt + " times";
                    break;
                }
                snapshot = table.existing();
                if (!snapshot.partitionColumns().equals(base.partitionColumns())
                        || !snapshot.columns().equals(base.columns())) {
                    gaveUp = "gave up: the table's schema changed at version " + snapshot.version();
                    break;
                }
                log.debug("Version {} of {} was taken by another writer; compaction retries on it", e.version(),
                        storage.tableUri());
            } catch (CommitOutcomeUnknownException e) {
                log.warn("Compaction of {}: cannot tell whether version {} landed; its {} new files stay (a vacuum "
                        + "removes them if not)", storage.tableUri(), e.version(), added.size());
                throw e;
            }
        }
        deleteQuietly(rewriter, added, null);
        return new CompactionResult(-1, 0, 0, 0, 0, 0, gaveUp);
    }

    private DeltaTable table() {
        return new DeltaTable(storage.createEngine(), storage.tableUri(), clock, 0);
    }

    /**
     * The leading data columns that get statistics, as the table asks ({@value #INDEXED_COLUMNS}, 32
     * by default); refuses tables whose files it cannot rewrite faithfully.
     */
    private List<Column> statsColumns(TableSnapshot snapshot) {
        Map<String, String> properties = snapshot.properties();
        if (!properties.getOrDefault(COLUMN_MAPPING, "none").equalsIgnoreCase("none")) {
            throw refuse(snapshot, "it uses column mapping (" + COLUMN_MAPPING + "=" + properties.get(COLUMN_MAPPING) + ")");
        }
        if (Boolean.parseBoolean(properties.getOrDefault(ROW_TRACKING, "false"))) {
            throw refuse(snapshot, "it tracks row ids (" + ROW_TRACKING + "=true), which a rewrite would have to keep");
        }
        List<Column> data = new ArrayList<>();
        for (Column column : snapshot.rowSchema().columns()) {
            if (!snapshot.partitionColumns().contains(column.name())) {
                data.add(column);
            }
        }
        int indexed = WriterSettings.DEFAULT_STATS_COLUMNS;
        try {
            indexed = Integer.parseInt(properties.getOrDefault(INDEXED_COLUMNS, String.valueOf(indexed)).trim());
        } catch (NumberFormatException e) {
            log.warn("Table property {}={} of {} is not a number; statistics for {} columns", INDEXED_COLUMNS,
                    properties.get(INDEXED_COLUMNS), storage.tableUri(), indexed);
        }
        return indexed < 0 ? data : data.subList(0, Math.min(indexed, data.size()));
    }

    private IllegalStateException refuse(TableSnapshot snapshot, String why) {
        return new IllegalStateException("Cannot compact Delta table " + storage.tableUri() + " (version "
                + snapshot.version() + "): " + why);
    }

    private ParquetRewriter rewriter(CompactionOptions options, List<Column> statsColumns) {
        WriterSettings settings = WriterSettings.defaults().withCompression(options.compression())
                .withTargetFileSizeBytes(options.targetFileBytes());
        try {
            return new ParquetRewriter(storage.tablePath(), storage.hadoopConf(), settings, statsColumns, clock);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot reach the storage of " + storage.tableUri(), e);
        }
    }

    private void deleteQuietly(ParquetRewriter rewriter, List<DataFile> files, Exception failure) {
        try {
            rewriter.delete(files);
        } catch (IOException e) {
            if (failure != null) {
                failure.addSuppressed(e);
            }
            log.warn("Compaction of {}: could not delete every unreferenced new file (a vacuum will): {}",
                    storage.tableUri(), e.toString());
        }
    }
}
