package io.deltasink.maintenance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

import io.deltasink.storage.StorageSettings;
import io.deltasink.table.TableSnapshot;

/**
 * Log upkeep: deletes the table's log files older than delta.logRetentionDuration that no later
 * version needs. Kernel 4.4 has the rules ({@link TableSnapshot#cleanupExpiredLogs}) but its
 * checkpoint hook never applies them to the connector's commits (it loads the table by version, and
 * cleans up only for a snapshot loaded as the latest), so vacuum runs them. Kernel leaves the
 * {@code .crc} checksum files of the versions it deletes; they are deleted here too, only below
 * the oldest commit left, where no version can be read any more.
 */
final class LogExpiry {
    private static final Pattern COMMIT = Pattern.compile("(\\d{20})\\.json");
    private static final Pattern CHECKSUM = Pattern.compile("(\\d{20})\\.crc");

    private LogExpiry() {
    }

    /** @return the log files deleted */
    static long run(TableSnapshot snapshot, StorageSettings storage, Clock clock) {
        long deleted = snapshot.cleanupExpiredLogs(clock);
        if (deleted == 0) {
            return 0;
        }
        Path logDir = new Path(storage.tablePath(), "_delta_log");
        // not closed: Hadoop may hand out a cached instance others share (the S3 ones belong to storage)
        try {
            FileSystem fs = logDir.getFileSystem(storage.hadoopConf());
            long oldestCommit = Long.MAX_VALUE;
            List<FileStatus> checksums = new ArrayList<>();
            for (FileStatus file : fs.listStatus(logDir)) {
                String name = file.getPath().getName();
                Matcher commit = COMMIT.matcher(name);
                if (commit.matches()) {
                    oldestCommit = Math.min(oldestCommit, Long.parseLong(commit.group(1)));
                } else if (CHECKSUM.matcher(name).matches()) {
                    checksums.add(file);
                }
            }
            for (FileStatus crc : checksums) {
                long version = Long.parseLong(crc.getPath().getName().substring(0, 20));
                if (version < oldestCommit && fs.delete(crc.getPath(), false)) {
                    deleted++;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Log upkeep of " + storage.tableUri() + " failed: " + e, e);
        }
        return deleted;
    }
}
