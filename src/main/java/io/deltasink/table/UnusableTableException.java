package io.deltasink.table;

import org.apache.kafka.connect.errors.ConnectException;

/**
 * The table cannot be used as it is, and retrying will not change that: its protocol or a table
 * feature is beyond what this connector can read or write, its log has a gap, or a log file is
 * damaged. The message (built by {@link TableErrors}) names the table, the version and what to
 * do. Never retried: the task stops.
 */
public class UnusableTableException extends ConnectException {
    /** What is wrong with the table. */
    public enum Reason { UNSUPPORTED_PROTOCOL, MISSING_LOG_FILE, DAMAGED_LOG_FILE, UNREADABLE }

    private final String tablePath;
    private final long version;
    private final Reason reason;

    UnusableTableException(String tablePath, long version, Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.tablePath = tablePath;
        this.version = version;
        this.reason = reason;
    }

    public String tablePath() {
        return tablePath;
    }

    /** The table version the problem was found at (the version of the damaged or missing file), or -1 if unknown. */
    public long version() {
        return version;
    }

    public Reason reason() {
        return reason;
    }
}
