package io.deltasink.convert;

import org.apache.kafka.connect.sink.SinkRecord;

import io.deltasink.model.ColumnType;
import io.deltasink.model.RowSchema;

/** Turns one sink record into one row. Pure: no I/O, no state between records. */
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
