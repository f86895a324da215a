package io.deltasink.maintenance;

import java.util.Locale;

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
        String head = version >= 0 ? "Compaction " + outcome + " as version " + version : "Compaction: " + outcome;
        return head + "\n"
                + String.format(Locale.ROOT, "  table partitions  %,d\n", partitions)
                + String.format(Locale.ROOT, "  files removed     %,d\n", filesRemoved)
                + String.format(Locale.ROOT, "  files added       %,d\n", filesAdded)
                + String.format(Locale.ROOT, "  bytes rewritten   %,d (%.1f MiB)\n", bytesRewritten,
                        bytesRewritten / (1024.0 * 1024))
                + String.format(Locale.ROOT, "  rows rewritten    %,d\n", rowsRewritten);
    }
}
