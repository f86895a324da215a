package io.deltasink.maintenance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;
import io.deltasink.table.RemovedFile;
import io.deltasink.table.TableFile;
import io.deltasink.table.TableSnapshot;

/**
 * Deletes files under a table that its current snapshot does not reference and that have been
 * unreferenced longer than the retention, and log files expired per delta.logRetentionDuration.
 * The caller owns {@code storage}.
 *
 * <p>The snapshot is read before the listing, so a file committed meanwhile is either referenced
 * or younger than the retention (see {@link VacuumRetention#FLOOR}). The referenced paths are held
 * in memory; the listing is streamed.
 */
public final class Vacuum {
    private static final Logger log = LoggerFactory.getLogger(Vacuum.class);

    private final StorageSettings storage;
    private final Clock clock;

    public Vacuum(StorageSettings storage, Clock clock) {
        this.storage = Objects.requireNonNull(storage, "storage");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Throws IllegalArgumentException for a retention refused (shorter than the table's without force, or below the floor). */
    public VacuumResult run(VacuumOptions options) {
        String location = storage.tableUri();
        TableSnapshot snapshot = new DeltaTable(storage.createEngine(), location).existing();
        Duration retention = VacuumRetention.resolve(options, snapshot.deletedFileRetention());
        if (snapshot.protocol().writerFeatures().contains("deletionVectors")) {
            throw new IllegalStateException("Delta table " + location + " uses deletion vectors, whose files this "
                    + "vacuum does not track; vacuum it with a Delta engine that does");
        }
        long cutoff = clock.millis() - retention.toMillis();
        Path root = storage.tablePath();
        Set<String> active = new HashSet<>();
        for (TableFile file : snapshot.files()) {
            active.add(relative(root, file.logPath(), file.relativePath()));
        }
        Map<String, Long> removedAt = new HashMap<>();
        for (RemovedFile file : snapshot.removedFiles().values()) {
            removedAt.put(relative(root, file.logPath(), file.relativePath()), file.deletionTimestamp());
        }
        HiddenPaths hidden = new HiddenPaths(snapshot.partitionColumns());
        List<VacuumResult.File> files = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        long scanned = 0;
        long bytes = 0;
        // not closed: Hadoop may hand out a cached instance others share (the S3 ones belong to storage)
        try {
            FileSystem fs = root.getFileSystem(storage.hadoopConf());
            String rootPath = fs.makeQualified(root).toUri().getPath().replaceAll("/+$", "") + "/";
            RemoteIterator<LocatedFileStatus> listing = fs.listFiles(root, true);
            while (listing.hasNext()) {
                LocatedFileStatus status = listing.next();
                String path = status.getPath().toUri().getPath();
                if (!path.startsWith(rootPath)) {
                    continue;
                }
                String name = path.substring(rootPath.length());
                if (hidden.hidden(name)) {
                    continue;
                }
                scanned++;
                if (active.contains(name)) {
                    continue;
                }
                Long deleted = removedAt.get(name);
                boolean expired = deleted != null ? deleted < cutoff : status.getModificationTime() < cutoff;
                if (!expired) {
                    continue;
                }
                if (!options.dryRun()) {
                    String failure = delete(fs, status.getPath());
                    if (failure != null) {
                        failures.add(name + ": " + failure);
                        log.warn("Vacuum of {} could not delete {}: {}", location, name, failure);
                        continue;
                    }
                }
                files.add(new VacuumResult.File(name, status.getLen(), deleted != null ? "removed" : "orphan"));
                bytes += status.getLen();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Vacuum of " + location + " could not list the table's files: " + e, e);
        }
        long logFiles = options.dryRun() ? 0 : LogExpiry.run(snapshot, storage, clock);
        VacuumResult result = new VacuumResult(location, snapshot.version(), options.dryRun(),
                VacuumRetention.text(retention), Instant.ofEpochMilli(cutoff).toString(), scanned, List.copyOf(files),
                files.size(), bytes, List.copyOf(failures), logFiles);
        log.info("Vacuum of {} at version {}{}: {} of {} files, {} bytes ({} failures), {} expired log files",
                location, snapshot.version(), options.dryRun() ? " (dry run)" : "", files.size(), scanned, bytes,
                failures.size(), logFiles);
        return result;
    }

    /**
     * Deletes one file; null when it is gone, else why not. A file system answers false both when
     * the file was gone already (it is gone: done) and when it refused (the local one does when the
     * OS refuses): only a look tells them apart.
     */
    private static String delete(FileSystem fs, Path file) {
        try {
            if (fs.delete(file, false) || !fs.exists(file)) {
                return null;
            }
            return "the file system refused to delete it";
        } catch (IOException e) {
            return e.toString();
        }
    }

    /**
     * A file's name below the table root as storage spells it: the decoded relative path, or an
     * absolute log path under the root made relative (one elsewhere is never listed, so it is kept as is).
     */
    static String relative(Path root, String logPath, String relativePath) {
        if (relativePath != null) {
            return relativePath;
        }
        try {
            String path = new URI(logPath).getPath();
            String base = root.toUri().getPath().replaceAll("/+$", "") + "/";
            return path != null && path.startsWith(base) ? path.substring(base.length()) : logPath;
        } catch (URISyntaxException e) {
            return logPath;
        }
    }
}
