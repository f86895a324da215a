package io.deltasink.maintenance;

import java.util.List;

/**
 * What a vacuum run deleted (or, dry, would delete). Plain values, lists and records only, so it
 * serializes to JSON as it is.
 *
 * @param location        the table
 * @param version         the table version whose files were kept
 * @param dryRun          nothing was deleted: {@code files} is what a run would delete
 * @param retention       the retention used, e.g. {@code 7d}
 * @param cutoff          ISO-8601 instant: files unreferenced since before it were deleted
 * @param scannedFiles    files listed under the table (hidden paths not counted)
 * @param files           the files deleted (or, dry, to delete), with the reason
 * @param deletedFiles    how many of them (a file already gone counts: it is gone)
 * @param deletedBytes    their bytes
 * @param failures        files that could not be deleted, each "path: reason"; the others were
 * @param logFilesDeleted expired log files deleted per delta.logRetentionDuration (0 in a dry run)
 */
public record VacuumResult(String location, long version, boolean dryRun, String retention, String cutoff,
                           long scannedFiles, List<File> files, long deletedFiles, long deletedBytes,
                           List<String> failures, long logFilesDeleted) {
    /** Lines of {@link #toText()} listing files; the JSON document lists all. */
    static final int TEXT_FILES = 100;

    /**
     * A file vacuum deleted.
     *
     * @param path   below the table root
     * @param bytes  its size
     * @param reason {@code removed} (a tombstone older than the retention) or {@code orphan} (never
     *               referenced by this version, older than the retention)
     */
    public record File(String path, long bytes, String reason) {
    }

    /** A human-readable summary (the command's text output). */
    public String toText() {
        StringBuilder out = new StringBuilder();
        out.append("Vacuum of ").append(location).append(" at version ").append(version)
                .append(dryRun ? " (dry run, nothing deleted)" : "").append('\n');
        out.append("  retention ").append(retention).append(": files unreferenced since before ").append(cutoff)
                .append('\n');
        long removed = files.stream().filter(f -> f.reason().equals("removed")).count();
        out.append("  ").append(dryRun ? "would delete " : "deleted ").append(deletedFiles).append(" of ")
                .append(scannedFiles).append(" files, ").append(deletedBytes).append(" bytes (").append(removed)
                .append(" removed, ").append(files.size() - removed).append(" orphans)\n");
        files.stream().limit(TEXT_FILES).forEach(f -> out.append("    ").append(f.reason()).append(' ')
                .append(f.path()).append(' ').append(f.bytes()).append(" bytes\n"));
        if (files.size() > TEXT_FILES) {
            out.append("    ... ").append(files.size() - TEXT_FILES).append(" more\n");
        }
        if (!failures.isEmpty()) {
            out.append("  could not delete ").append(failures.size()).append(" files:\n");
            failures.forEach(f -> out.append("    ").append(f).append('\n'));
        }
        out.append("  expired log files deleted: ").append(logFilesDeleted).append('\n');
        return out.toString();
    }
}
