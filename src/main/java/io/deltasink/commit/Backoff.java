package io.deltasink.commit;

/**
 * The one wait between tries: {@code commit.retry.backoff.ms}, doubling with each consecutive
 * failure, capped at {@link #MAX_MS}. Used for lost commit races and for storage failures.
 */
final class Backoff {
    static final long MAX_MS = 30_000L;

    private Backoff() {
    }

    /** The wait before try number {@code failures + 1}, after {@code failures} failures in a row (0: the first wait). */
    static long delay(long baseMs, int failures) {
        return Math.min(MAX_MS, baseMs << Math.min(Math.max(failures, 0), 16));
    }
}
