package io.deltasink.convert;

import org.apache.kafka.connect.sink.SinkRecord;

import io.deltasink.model.ColumnType;
import io.deltasink.model.RowSchema;

/**
 * Turns one sink record into one row. No I/O; the only state a converter keeps is what it learns
 * from the records themselves (where a table's column sits in them, in auto mode).
 */
public interface RecordConverter {

    /** The columns every converted row has, in order. */
    RowSchema schema();

    /**
     * Converts one record whose value is not null.
     *
     * @return the row, values in the forms listed on {@link ColumnType}
     * @throws RecordConversionException when the record cannot be turned into a row
     */
    Object[] convert(SinkRecord record);
}
