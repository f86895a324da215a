package io.deltasink.maintenance;

import java.time.Duration;

/**
 * How long an unreferenced file stays before vacuum deletes it, and which retentions are refused.
 *
 * <p>The table's delta.deletedFileRetentionDuration keeps time travel (and readers still planning
 * on an older version) working; a shorter retention breaks them and needs {@code force}. The
 * {@link #FLOOR} protects what no snapshot can show: files a running writer has written but not
 * committed yet (a batch lives one offset-flush interval, 60 s by default, plus commit retries; a
 * compaction writes its bins before its commit). Deleting one of those would make the next commit
 * reference a missing file, so no force goes below it.
 */
final class VacuumRetention {
    /** The shortest retention ever used: well above a batch's or a compaction's lifetime. */
    static final Duration FLOOR = Duration.ofHours(1);

    private VacuumRetention() {
    }

    /**
     * The retention to use.
     *
     * @param tableRetention the table's delta.deletedFileRetentionDuration
     * @throws IllegalArgumentException for a negative retention, one below the floor, or one below the
     *                                  table's without force; the message names the values
     */
    static Duration resolve(VacuumOptions options, Duration tableRetention) {
        Duration asked = options.retention();
        Duration retention = asked == null ? tableRetention : asked;
        String source = asked == null ? "the table's delta.deletedFileRetentionDuration " : "retention ";
        if (retention.isNegative()) {
            throw new IllegalArgumentException(source + text(retention) + " is negative");
        }
        if (retention.compareTo(FLOOR) < 0) {
            throw new IllegalArgumentException(source + text(retention) + " is below the floor of " + text(FLOOR)
                    + ", which protects files a running writer has not committed yet; refused even with force");
        }
        if (retention.compareTo(tableRetention) < 0 && !options.force()) {
            throw new IllegalArgumentException("retention " + text(retention)
                    + " is shorter than the table's delta.deletedFileRetentionDuration of " + text(tableRetention)
                    + ": time travel to the versions in between would break; use force to vacuum anyway");
        }
        return retention;
    }

    /** A duration as people write it: 7d, 36h, 90m, 45s (the largest whole unit). */
    static String text(Duration d) {
        long s = d.toSeconds();
        if (s != 0 && s % 86_400 == 0) {
            return s / 86_400 + "d";
        }
        if (s != 0 && s % 3_600 == 0) {
            return s / 3_600 + "h";
        }
        if (s != 0 && s % 60 == 0) {
            return s / 60 + "m";
        }
        return d.toMillis() % 1000 == 0 ? s + "s" : d.toMillis() + "ms";
    }
}
