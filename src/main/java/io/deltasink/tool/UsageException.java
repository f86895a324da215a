package io.deltasink.tool;

/**
 * The command line or the connector config it names cannot be used: reported as one line with
 * exit status 2, before any table is touched.
 */
final class UsageException extends RuntimeException {
    UsageException(String message) {
        super(message);
    }
}
