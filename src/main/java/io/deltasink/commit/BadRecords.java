package io.deltasink.commit;

import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens to a record that cannot be turned into a row: with errors.tolerance=all it goes
 * to the worker's errant record reporter (dead letter queue and/or error log), otherwise the
 * task fails with the conversion message (topic/partition@offset, column, shortened value).
 * Never dropped without a log line.
 */
final class BadRecords {
    private static final Logger log = LoggerFactory.getLogger(BadRecords.class);

    private final boolean tolerate;
    private final ErrantRecordReporter reporter;
    private long reported;

    BadRecords(boolean tolerate, ErrantRecordReporter reporter) {
        this.tolerate = tolerate;
        this.reporter = reporter;
    }

    void handle(SinkRecord record, DataException problem) {
        if (!tolerate) {
            throw problem;
        }
        reported++;
        if (reporter != null) {
            log.warn("Bad record sent to the errant record reporter: {}", problem.getMessage());
            reporter.report(record, problem);
        } else {
            log.warn("Bad record skipped (errors.tolerance=all and no dead letter queue configured): {}",
                    problem.getMessage());
        }
    }

    long reported() {
        return reported;
    }
}
