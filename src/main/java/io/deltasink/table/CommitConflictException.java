package io.deltasink.table;

/**
 * Another writer committed the table version this commit was built to take: nothing of this
 * commit is in the table. The caller reloads the table, checks its fencing and rebuilds the
 * commit on the new snapshot.
 */
public class CommitConflictException extends RuntimeException {
    private final long version;

    public CommitConflictException(String tablePath, long version, Throwable cause) {
        super("version " + version + " of Delta table " + tablePath + " was committed by another writer first", cause);
        this.version = version;
    }

    /** The table version that was already taken. */
    public long version() {
        return version;
    }
}
