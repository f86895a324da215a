package io.deltasink.table;

/**
 * One commit of a table as its commit file tells it.
 *
 * @param version      the table version
 * @param timestamp    commitInfo.timestamp, epoch milliseconds (the file's modification time when absent)
 * @param operation    commitInfo.operation, e.g. STREAMING UPDATE; empty when absent
 * @param engineInfo   commitInfo.engineInfo: who wrote it; empty when absent
 * @param rowsAdded    the rows of the added files (their statistics' numRecords; files without them count 0)
 * @param filesAdded   add actions
 * @param filesRemoved remove actions
 * @param txnActions   txn actions (Kafka positions written)
 */
public record CommitSummary(long version, long timestamp, String operation, String engineInfo, long rowsAdded,
                            int filesAdded, int filesRemoved, int txnActions) {
}
