package io.deltasink.table;

/**
 * A commit failed in a way that leaves its outcome open: storage reported an error after the
 * commit file may have been written, and reading it back did not settle whether this writer's
 * commit is in the log. The commit may still be there (or appear later), so its data files must
 * stay where they are; the caller reloads the table and lets its txn versions decide.
 */
public class CommitOutcomeUnknownException extends RuntimeException {
    private final long version;

    public CommitOutcomeUnknownException(String tablePath, long version, Throwable cause) {
        super("commit of version " + version + " of Delta table " + tablePath + " failed and it cannot be told "
                + "whether it landed: " + cause, cause);
        this.version = version;
    }

    /** The table version the commit was built to take. */
    public long version() {
        return version;
    }
}
