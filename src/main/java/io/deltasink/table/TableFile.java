package io.deltasink.table;

import java.util.Map;
import java.util.Objects;

/**
 * A data file of a table version (an active {@code add} action), as maintenance sees it.
 *
 * @param logPath          the path as the log holds it (URI-encoded, relative to the table root for
 *                         files the table wrote itself): the file's identity in {@code remove} actions
 * @param relativePath     the file's name below the table root as storage spells it (decoded), or null
 *                         when the log names it by an absolute URI
 * @param partitionValues  partition column -> value serialized as Delta specifies (null for a null value)
 * @param size             bytes
 * @param modificationTime epoch milliseconds
 * @param deletionVector   whether rows of the file are deleted through a deletion vector
 */
public record TableFile(String logPath, String relativePath, Map<String, String> partitionValues, long size,
                        long modificationTime, boolean deletionVector) {
    public TableFile {
        Objects.requireNonNull(logPath, "logPath");
        Objects.requireNonNull(partitionValues, "partitionValues");
    }
}
