package io.deltasink.convert;

import java.time.DateTimeException;
import java.time.LocalDate;

/**
 * Parses ISO-8601 timestamp text to microseconds since the epoch (UTC), exactly.
 *
 * <p>Accepted: {@code yyyy-MM-dd}, optionally followed by {@code T} (or a space) and
 * {@code HH:mm[:ss[.fraction]]} with 1 to 9 fraction digits (a comma also separates the
 * fraction), optionally followed by {@code Z} or an offset {@code ±HH}, {@code ±HHmm} or
 * {@code ±HH:mm}. Without an offset the time is UTC; a date alone is midnight UTC. Fractions
 * finer than a microsecond are truncated. Text of only digits (with an optional minus sign) is
 * epoch milliseconds.
 */
final class Timestamps {
    static final long MICROS_PER_SECOND = 1_000_000L;
    static final long MICROS_PER_DAY = 86_400L * MICROS_PER_SECOND;
    static final String EXAMPLE = "2026-06-22T09:15:30.123456+02:00";
    /** The first and last day a Delta reader can hold (years 0001 to 9999), as days since the epoch. */
    static final long MIN_DAY = LocalDate.of(1, 1, 1).toEpochDay();
    static final long MAX_DAY = LocalDate.of(9999, 12, 31).toEpochDay();
    /** The first and last microsecond a Delta reader can hold: 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999Z. */
    static final long MIN_MICROS = MIN_DAY * MICROS_PER_DAY;
    static final long MAX_MICROS = (MAX_DAY + 1) * MICROS_PER_DAY - 1;
    private static final String MICROS_RANGE = "0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z";
    private static final String DAY_RANGE = "0001-01-01 to 9999-12-31";

    private Timestamps() {
    }

    static long parseMicros(String text) throws BadValueException {
        String s = text.trim();
        int n = s.length();
        if (isInteger(s)) {
            try {
                return Math.multiplyExact(Long.parseLong(s), 1000L);
            } catch (ArithmeticException | NumberFormatException e) {
                throw new BadValueException("epoch milliseconds out of range");
            }
        }
        if (n < 10 || s.charAt(4) != '-' || s.charAt(7) != '-') {
            throw notIso();
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 2);
        int day = digits(s, 8, 2);
        long epochDay;
        try {
            epochDay = LocalDate.of(year, month, day).toEpochDay();
        } catch (DateTimeException e) {
            throw new BadValueException("not a valid date: " + e.getMessage());
        }
        if (n == 10) {
            return epochDay * MICROS_PER_DAY;
        }
        char sep = s.charAt(10);
        if (sep != 'T' && sep != 't' && sep != ' ') {
            throw notIso();
        }
        int p = 11;
        int hour = digits(s, p, 2);
        expect(s, p + 2, ':');
        int minute = digits(s, p + 3, 2);
        p += 5;
        int second = 0;
        if (p < n && s.charAt(p) == ':') {
            second = digits(s, p + 1, 2);
            p += 3;
        }
        long nanos = 0;
        if (p < n && (s.charAt(p) == '.' || s.charAt(p) == ',')) {
            int start = ++p;
            while (p < n && isDigit(s.charAt(p))) {
                nanos = nanos * 10 + (s.charAt(p) - '0');
                p++;
            }
            int count = p - start;
            if (count == 0 || count > 9) {
                throw notIso();
            }
            for (int i = count; i < 9; i++) {
                nanos *= 10;
            }
        }
        int offsetSeconds = 0;
        if (p < n) {
            char c = s.charAt(p);
            if (c == 'Z' || c == 'z') {
                p++;
            } else if (c == '+' || c == '-') {
                int oh = digits(s, p + 1, 2);
                p += 3;
                int om = 0;
                if (p < n) {
                    if (s.charAt(p) == ':') {
                        p++;
                    }
                    om = digits(s, p, 2);
                    p += 2;
                }
                if (oh > 18 || om > 59) {
                    throw new BadValueException("offset out of range");
                }
                offsetSeconds = (c == '-' ? -1 : 1) * (oh * 3600 + om * 60);
            } else {
                throw notIso();
            }
        }
        if (p != n) {
            throw notIso();
        }
        if (hour > 23 || minute > 59 || second > 59) {
            throw new BadValueException("time of day out of range");
        }
        long seconds = epochDay * 86_400L + hour * 3600L + minute * 60L + second - offsetSeconds;
        return seconds * MICROS_PER_SECOND + nanos / 1000L;
    }

    /** {@code micros} when a Delta reader can hold it; otherwise the record is bad. */
    static long inRange(long micros) throws BadValueException {
        if (micros < MIN_MICROS || micros > MAX_MICROS) {
            throw new BadValueException("timestamp " + instantText(micros)
                    + " is outside the range Delta readers can hold (" + MICROS_RANGE + ")");
        }
        return micros;
    }

    /** {@code epochDay} as an int when a Delta reader can hold the date; otherwise the record is bad. */
    static int dayInRange(long epochDay) throws BadValueException {
        if (epochDay < MIN_DAY || epochDay > MAX_DAY) {
            throw new BadValueException("date " + dayText(epochDay) + " is outside the range Delta readers can hold ("
                    + DAY_RANGE + ")");
        }
        return (int) epochDay;
    }

    /** An instant given in epoch seconds and nanoseconds as microseconds, checked against the range. */
    static long micros(long epochSecond, int nanos) throws BadValueException {
        if (epochSecond < MIN_MICROS / MICROS_PER_SECOND - 1 || epochSecond > MAX_MICROS / MICROS_PER_SECOND + 1) {
            throw new BadValueException("timestamp " + instantText(epochSecond, nanos)
                    + " is outside the range Delta readers can hold (" + MICROS_RANGE + ")");
        }
        return inRange(epochSecond * MICROS_PER_SECOND + nanos / 1000);
    }

    private static String instantText(long micros) {
        return instantText(Math.floorDiv(micros, MICROS_PER_SECOND), (int) Math.floorMod(micros, MICROS_PER_SECOND) * 1000);
    }

    private static String instantText(long epochSecond, int nanos) {
        try {
            return java.time.Instant.ofEpochSecond(epochSecond, nanos).toString();
        } catch (DateTimeException e) {
            return epochSecond + " s since 1970-01-01T00:00:00Z";
        }
    }

    private static String dayText(long epochDay) {
        try {
            return LocalDate.ofEpochDay(epochDay).toString();
        } catch (DateTimeException e) {
            return epochDay + " days since 1970-01-01";
        }
    }

    /** True for text of only digits, with an optional leading minus sign. */
    static boolean isInteger(String s) {
        int start = s.startsWith("-") ? 1 : 0;
        if (s.length() == start) {
            return false;
        }
        for (int i = start; i < s.length(); i++) {
            if (!isDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static int digits(String s, int from, int count) throws BadValueException {
        if (from + count > s.length()) {
            throw notIso();
        }
        int v = 0;
        for (int i = from; i < from + count; i++) {
            char c = s.charAt(i);
            if (!isDigit(c)) {
                throw notIso();
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    private static void expect(String s, int at, char c) throws BadValueException {
        if (at >= s.length() || s.charAt(at) != c) {
            throw notIso();
        }
    }

    private static BadValueException notIso() {
        return new BadValueException("text is not an ISO-8601 timestamp like " + EXAMPLE);
    }
}
