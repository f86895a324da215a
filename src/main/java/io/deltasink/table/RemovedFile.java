package io.deltasink.table;

/**
 * A file a table version no longer holds: a {@code remove} action (tombstone) of its log.
 *
 * @param logPath           the path as the log holds it
 * @param relativePath      the file's name below the table root as storage spells it (decoded), or
 *                          null when the log names it by an absolute URI
 * @param deletionTimestamp epoch milliseconds of the removal (0 when the log does not say)
 */
public record RemovedFile(String logPath, String relativePath, long deletionTimestamp) {
}
