package io.deltasink.convert;

import org.apache.kafka.connect.sink.SinkRecord;

import io.deltasink.model.RowSchema;

/**
 * Gives a task its record converter: from the configured mapping, or, with {@code columns=auto},
 * from the existing table's columns or else from the first record.
 */
@FunctionalInterface
public interface ConverterFactory {

    /**
     * The converter of a configured mapping (whatever the argument); in auto mode the one derived
     * from {@code first}, or null when {@code first} is null.
     *
     * @throws RecordConversionException in auto mode, when {@code first} gives no columns (a bad record)
     */
    RecordConverter create(SinkRecord first);

    /**
     * In auto mode, a converter that writes exactly the given columns of an existing table; null
     * when the columns are configured (or the factory cannot do that).
     */
    default RecordConverter forTable(RowSchema tableColumns) {
        return null;
    }
}
