package io.deltasink.maintenance;

/**
 * What a compaction run did (or, for a plan, would do).
 *
 * @param version         the table version it committed, or -1 when it committed nothing
 * @param partitions      table partitions rewritten
 * @param filesRemoved    files replaced (remove actions, dataChange=false)
 * @param filesAdded      files written (add actions, dataChange=false)
 * @param bytesRewritten  input bytes read and rewritten
 * @param rowsRewritten   rows rewritten
 * @param outcome         one line: what happened, e.g. "committed", "nothing to compact", "gave up: ..."
 */
public record CompactionResult(long version, int partitions, int filesRemoved, int filesAdded, long bytesRewritten,
                               long rowsRewritten, String outcome) {

    /** A human-readable summary (the command's text output). */
    public String toText() {
        throw new UnsupportedOperationException("contract: implemented on the compaction branch");
    }
}
