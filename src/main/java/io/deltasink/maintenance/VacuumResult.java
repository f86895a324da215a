package io.deltasink.maintenance;

/**
 * What a vacuum run deleted (or, dry, would delete). Its components are the vacuum branch's to
 * define; callers use {@link #toText()}, {@link #deletedFiles()} and JSON serialization of the record.
 */
public record VacuumResult(boolean dryRun, long deletedFiles, long deletedBytes) {

    /** A human-readable summary (the command's text output). */
    public String toText() {
        throw new UnsupportedOperationException("contract: implemented on the vacuum branch");
    }
}
