package io.deltasink.convert;

/**
 * A value that does not fit a column's type. Internal and cheap (no stack trace); the converter
 * turns it into a {@link RecordConversionException} with the record's coordinates.
 */
final class BadValueException extends Exception {
    BadValueException(String problem) {
        super(problem, null, false, false);
    }
}
