package io.deltasink.commit;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;

/**
 * The one exception policy. Retriable: storage blips and lost commit races: the session drops
 * what it buffered, rewinds to the table's offsets, waits and carries on. Fatal: a problem the
 * user must fix (configuration, a table that does not match, a bad record without tolerance):
 * the task fails with a message that says what to change.
 */
final class Failures {
    private Failures() {
    }

    static boolean isFatal(Throwable t) {
        if (t instanceof RetriableException) {
            return false;
        }
        return t instanceof ConfigException
                || t instanceof DataException
                || (t instanceof ConnectException)
                || t instanceof IllegalArgumentException
                || t instanceof IllegalStateException
                || t instanceof UnsupportedOperationException
                || t instanceof Error;
    }

    static ConnectException asFatal(Throwable t) {
        return t instanceof ConnectException ce ? ce : new ConnectException(t.getMessage(), t);
    }
}
