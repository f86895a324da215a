package io.deltasink.tool;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sizes and durations as people type them on a command line: {@code 128m}, {@code 1GiB},
 * {@code 7d}, {@code 36h}, or ISO-8601 ({@code PT36H}). Sizes count in powers of 1024.
 */
final class Quantities {
    private static final Pattern NUMBER_UNIT = Pattern.compile("(\\d+)\\s*([a-z]*)");
    private static final Map<String, Long> SIZE_UNITS = Map.ofEntries(
            Map.entry("", 1L), Map.entry("b", 1L),
            Map.entry("k", 1L << 10), Map.entry("kb", 1L << 10), Map.entry("kib", 1L << 10),
            Map.entry("m", 1L << 20), Map.entry("mb", 1L << 20), Map.entry("mib", 1L << 20),
            Map.entry("g", 1L << 30), Map.entry("gb", 1L << 30), Map.entry("gib", 1L << 30));
    private static final Map<String, Duration> TIME_UNITS = Map.of(
            "s", Duration.ofSeconds(1), "m", Duration.ofMinutes(1), "h", Duration.ofHours(1), "d", Duration.ofDays(1));

    private Quantities() {
    }

    /** Bytes of {@code text} given to {@code option}; at least 1. */
    static long bytes(String option, String text) {
        Matcher m = NUMBER_UNIT.matcher(text.trim().toLowerCase(Locale.ROOT));
        Long unit = m.matches() ? SIZE_UNITS.get(m.group(2)) : null;
        if (unit == null) {
            throw new UsageException(option + " takes a size such as 134217728, 128m or 1g, not '" + text + "'");
        }
        long value = positive(option, m.group(1));
        try {
            return Math.multiplyExact(value, unit);
        } catch (ArithmeticException e) {
            throw new UsageException(option + " is too large: " + text);
        }
    }

    /** A duration: a number with s, m, h or d, or ISO-8601 (PT36H, P7D). */
    static Duration duration(String option, String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        Matcher m = NUMBER_UNIT.matcher(t);
        if (m.matches() && TIME_UNITS.containsKey(m.group(2))) {
            return TIME_UNITS.get(m.group(2)).multipliedBy(Long.parseLong(m.group(1)));
        }
        try {
            Duration d = Duration.parse(t.toUpperCase(Locale.ROOT));
            if (!d.isNegative()) {
                return d;
            }
        } catch (DateTimeParseException e) {
            // reported below
        }
        throw new UsageException(option + " takes a duration such as 7d, 36h, 90m or PT36H, not '" + text + "'");
    }

    /** A count of at least 1. */
    static int count(String option, String text) {
        long value = positive(option, text.trim());
        if (value > Integer.MAX_VALUE) {
            throw new UsageException(option + " is too large: " + text);
        }
        return (int) value;
    }

    private static long positive(String option, String digits) {
        try {
            long value = Long.parseLong(digits);
            if (value >= 1) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException(option + " takes a whole number of at least 1, not '" + digits + "'");
    }
}
