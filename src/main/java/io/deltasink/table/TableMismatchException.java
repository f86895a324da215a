package io.deltasink.table;

import java.util.List;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * The existing table does not match the column mapping: the connector refuses to write into it.
 * The message names every difference found, so one read tells the user all that must change.
 */
public class TableMismatchException extends ConnectException {
    private final transient List<String> differences;

    public TableMismatchException(String tablePath, long version, List<String> differences) {
        this(tablePath, version, differences, "");
    }

    /** @param note a sentence after the usual advice, e.g. what schema evolution cannot do and why */
    public TableMismatchException(String tablePath, long version, List<String> differences, String note) {
        super("Delta table " + tablePath + " (version " + version + ") does not match the connector's column mapping ("
                + differences.size() + (differences.size() == 1 ? " difference" : " differences") + "): "
                + String.join("; ", differences)
                + ". Change the mapping to match the table, " + TableErrors.NEW_TABLE + "." + note);
        this.differences = List.copyOf(differences);
    }

    /** Each difference as one sentence, in the order they were found. */
    public List<String> differences() {
        return differences;
    }
}
