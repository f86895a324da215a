package io.deltasink.table;

import java.util.List;

/**
 * A rewrite was asked to remove files the table version no longer holds: another writer (a
 * compaction, a vacuum, a delete) removed them first. Nothing of the rewrite is in the table.
 */
public final class InputFilesGoneException extends RuntimeException {
    private final transient List<String> missing;

    InputFilesGoneException(String tablePath, long version, List<String> missing) {
        super("Version " + version + " of Delta table " + tablePath + " no longer holds " + missing.size()
                + " of the files to replace (removed by another writer), e.g. " + missing.get(0));
        this.missing = List.copyOf(missing);
    }

    /** The log paths that are not active any more. */
    public List<String> missing() {
        return missing;
    }
}
