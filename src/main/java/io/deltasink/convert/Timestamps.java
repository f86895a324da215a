package io.deltasink.convert;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.Month;
import java.time.OffsetDateTime;
import java.time.Year;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

/**
 * Timestamp and date values: microseconds since the epoch (UTC) and days since the epoch, from
 * ISO-8601 text, numbers in an {@link EpochUnit}, {@code java.util.Date} (Connect's Timestamp and
 * Date) and java.time values. Every result lies in the range Delta readers can hold, years 0001 to
 * 9999 after normalisation to UTC; anything else is a {@link BadValueException}.
 *
 * <p>ISO text: {@code yyyy-MM-dd}, optionally followed by {@code T} (or a space) and
 * {@code HH:mm[:ss[.fraction]]} with 1 to 9 fraction digits (a comma also separates the
 * fraction), optionally followed by {@code Z} or an offset {@code ±HH}, {@code ±HHmm} or
 * {@code ±HH:mm}. Without an offset the time is UTC; a date alone is midnight UTC. Fractions
 * finer than a microsecond are truncated.
 *
 * <p>Numbers (and numeric text) in a timestamp column need a unit; fractions are exact down to
 * the microsecond and truncated (towards the earlier instant) below it. In a date column an
 * integer is days since 1970-01-01.
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
    private static final BigDecimal MIN_MICROS_DECIMAL = BigDecimal.valueOf(MIN_MICROS);
    /** One past the last microsecond: a fraction below it still floors to MAX_MICROS. */
    private static final BigDecimal MAX_MICROS_DECIMAL = BigDecimal.valueOf(MAX_MICROS + 1);
    private static final long SECONDS_PER_DAY = 86_400L;
    private static final long MILLIS_PER_DAY = SECONDS_PER_DAY * 1000L;
    /** Days from 0000-01-01 to 1970-01-01. */
    private static final long DAYS_0000_TO_1970 = 719_528L;

    private Timestamps() {
    }

    /**
     * A timestamp column's value in microseconds.
     *
     * @param unit   the unit of numbers; {@link EpochUnit#NONE} makes a number a bad value
     * @param noUnit the problem reported for a number without a unit (names the settings)
     */
    static long epochMicros(Object v, EpochUnit unit, String noUnit) throws BadValueException {
        if (v instanceof Read read) {
            return read.micros();
        }
        if (v instanceof String s) {
            String t = s.trim();
            boolean iso = t.length() >= 10 && t.charAt(4) == '-';
            if (!iso && Coercions.isNumber(t)) {
                requireUnit(unit, noUnit);
                return isInteger(t) && t.length() <= 18 ? scaled(Long.parseLong(t), unit) : scaled(new BigDecimal(t), unit);
            }
            return inRange(parseMicros(t));
        }
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            requireUnit(unit, noUnit);
            return scaled(((Number) v).longValue(), unit);
        }
        if (v instanceof BigInteger bi) {
            requireUnit(unit, noUnit);
            return scaled(new BigDecimal(bi), unit);
        }
        if (v instanceof BigDecimal bd) {
            requireUnit(unit, noUnit);
            return scaled(bd, unit);
        }
        if (v instanceof Double || v instanceof Float) {
            requireUnit(unit, noUnit);
            double d = ((Number) v).doubleValue();
            if (!Double.isFinite(d)) {
                throw new BadValueException("cannot convert " + d + " to timestamp");
            }
            return scaled(v instanceof Float f ? new BigDecimal(f.toString()) : BigDecimal.valueOf(d), unit);
        }
        if (v instanceof java.util.Date d) {
            long millis = d.getTime();
            return micros(Math.floorDiv(millis, 1000L), (int) Math.floorMod(millis, 1000L) * 1_000_000);
        }
        Instant instant = instant(v);
        if (instant == null) {
            throw Coercions.cannot(v, "timestamp");
        }
        return micros(instant.getEpochSecond(), instant.getNano());
    }

    /** A date column's value in days since the epoch; an integer is a number of days. */
    static int epochDays(Object v) throws BadValueException {
        if (v instanceof String s) {
            String t = s.trim();
            if (isInteger(t)) {
                return dayInRange(Coercions.integral(t, Long.MIN_VALUE, Long.MAX_VALUE, "date"));
            }
            return dayInRange(Math.floorDiv(parseMicros(t), MICROS_PER_DAY));
        }
        if (v instanceof Number) {
            return dayInRange(Coercions.integral(v, Long.MIN_VALUE, Long.MAX_VALUE, "date"));
        }
        if (v instanceof java.util.Date d) {
            return dayInRange(Math.floorDiv(d.getTime(), MILLIS_PER_DAY));
        }
        if (v instanceof LocalDate d) {
            return dayInRange(d.toEpochDay());
        }
        Instant instant = instant(v);
        if (instant == null) {
            throw Coercions.cannot(v, "date");
        }
        return dayInRange(Math.floorDiv(instant.getEpochSecond(), SECONDS_PER_DAY));
    }

    private static void requireUnit(EpochUnit unit, String noUnit) throws BadValueException {
        if (unit == EpochUnit.NONE) {
            throw new BadValueException(noUnit);
        }
    }

    private static long scaled(long n, EpochUnit unit) throws BadValueException {
        long micros;
        try {
            micros = switch (unit) {
                case SECONDS -> Math.multiplyExact(n, MICROS_PER_SECOND);
                case MILLIS -> Math.multiplyExact(n, 1000L);
                case NANOS -> Math.floorDiv(n, 1000L);
                default -> n;
            };
        } catch (ArithmeticException e) {
            throw outside(n + " " + unit, "");
        }
        if (micros < MIN_MICROS || micros > MAX_MICROS) {
            throw outside(n + " " + unit, " (" + instantText(micros) + ")");
        }
        return micros;
    }

    private static long scaled(BigDecimal n, EpochUnit unit) throws BadValueException {
        BigDecimal micros = Coercions.bounded(n, "timestamp").movePointRight(unit.microsShift);
        if (micros.compareTo(MIN_MICROS_DECIMAL) < 0 || micros.compareTo(MAX_MICROS_DECIMAL) >= 0) {
            throw outside(n.toPlainString() + " " + unit, "");
        }
        return micros.setScale(0, RoundingMode.FLOOR).longValueExact();
    }

    private static BadValueException outside(String amount, String instant) {
        return new BadValueException("timestamp " + amount + " since 1970-01-01T00:00:00Z" + instant
                + " is outside the range Delta readers can hold (" + MICROS_RANGE + ")");
    }

    private static Instant instant(Object v) {
        if (v instanceof Instant i) {
            return i;
        }
        if (v instanceof OffsetDateTime o) {
            return o.toInstant();
        }
        if (v instanceof ZonedDateTime z) {
            return z.toInstant();
        }
        if (v instanceof LocalDateTime l) {
            return l.toInstant(ZoneOffset.UTC);
        }
        if (v instanceof LocalDate d) {
            return d.atStartOfDay().toInstant(ZoneOffset.UTC);
        }
        return null;
    }

    /**
     * ISO-8601 text the JSON scanner read straight to its instant ({@link #isoMicros}): a timestamp
     * column takes its microseconds as they are, whatever its unit (a unit is for numbers only).
     */
    record Read(long micros) {
    }

    /** What {@link #isoMicros} answers for text it leaves to {@link #parseMicros}. */
    static final long NOT_READ = Long.MIN_VALUE;
    private static final int[] NANOS_SCALE = {0, 100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000, 100, 10, 1};

    /**
     * The microseconds of ASCII text {@code b[from, from + length)} of the usual shape,
     * {@code yyyy-MM-ddTHH:mm:ss}, a fraction of 1 to 9 digits after '.' or none, then {@code Z} or an
     * offset {@code +HH:MM} / {@code -HH:MM}, when it names a date and time that exist and Delta readers
     * can hold: what {@link #inRange}({@link #parseMicros}) gives for its String, without the String.
     * {@link #NOT_READ} for anything else (another shape, a bad or out-of-range value), which its
     * String then meets in {@link #parseMicros} with the same result or message as ever.
     */
    static long isoMicros(byte[] b, int from, int length) {
        if (length < 20 || length > 35 || b[from + 4] != '-' || b[from + 7] != '-' || b[from + 10] != 'T'
                || b[from + 13] != ':' || b[from + 16] != ':') {
            return NOT_READ;
        }
        int century = twoDigits(b, from);
        int yearOfCentury = twoDigits(b, from + 2);
        int month = twoDigits(b, from + 5);
        int day = twoDigits(b, from + 8);
        int hour = twoDigits(b, from + 11);
        int minute = twoDigits(b, from + 14);
        int second = twoDigits(b, from + 17);
        if ((century | yearOfCentury | month | day | hour | minute | second) < 0) {
            return NOT_READ;
        }
        int end = from + length;
        int p = from + 19;
        long nanos = 0;
        if (b[p] == '.') {
            int start = ++p;
            while (p < end && b[p] >= '0' && b[p] <= '9') {
                nanos = nanos * 10 + (b[p] - '0');
                p++;
            }
            int count = p - start;
            if (count == 0 || count > 9) {
                return NOT_READ;
            }
            nanos *= NANOS_SCALE[count];
        }
        int offsetSeconds;
        if (p == end - 1 && b[p] == 'Z') {
            offsetSeconds = 0;
        } else if (p == end - 6 && (b[p] == '+' || b[p] == '-') && b[p + 3] == ':') {
            int oh = twoDigits(b, p + 1);
            int om = twoDigits(b, p + 4);
            if (oh < 0 || om < 0 || oh > 18 || om > 59) {
                return NOT_READ;
            }
            offsetSeconds = (b[p] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
        } else {
            return NOT_READ;
        }
        int year = century * 100 + yearOfCentury;
        if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) {
            return NOT_READ;
        }
        if (day > Month.of(month).length(Year.isLeap(year))) {
            return NOT_READ;
        }
        long seconds = epochDay(year, month, day) * 86_400L + hour * 3600L + minute * 60L + second - offsetSeconds;
        long micros = seconds * MICROS_PER_SECOND + nanos / 1000L;
        return micros < MIN_MICROS || micros > MAX_MICROS ? NOT_READ : micros;
    }

    /** The two digits at {@code at} as a number, or -1 (a digit d is 0 to 9: d and 9 - d are not negative). */
    private static int twoDigits(byte[] b, int at) {
        int high = b[at] - '0';
        int low = b[at + 1] - '0';
        return (high | low | 9 - high | 9 - low) < 0 ? -1 : high * 10 + low;
    }

    /** ISO-8601 text (see the class comment) as microseconds since the epoch, not yet checked against the range. */
    static long parseMicros(String text) throws BadValueException {
        String s = text.trim();
        int n = s.length();
        if (n < 10 || s.charAt(4) != '-' || s.charAt(7) != '-') {
            throw notIso();
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 2);
        int day = digits(s, 8, 2);
        long epochDay;
        if (month >= 1 && month <= 12 && day >= 1 && day <= 28) {
            // a day every month has: no LocalDate to validate and count it
            epochDay = epochDay(year, month, day);
        } else {
            try {
                epochDay = LocalDate.of(year, month, day).toEpochDay();
            } catch (DateTimeException e) {
                throw new BadValueException("not a valid date: " + e.getMessage());
            }
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

    /** True for text of only digits, with an optional leading sign. */
    static boolean isInteger(String s) {
        int start = s.startsWith("-") || s.startsWith("+") ? 1 : 0;
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

    /** {@code LocalDate.of(year, month, day).toEpochDay()} for a year 0 to 9999 and a valid month and day. */
    static long epochDay(int year, int month, int day) {
        long total = 365L * year + (year + 3) / 4 - (year + 99) / 100 + (year + 399) / 400;
        total += (367 * month - 362) / 12 + day - 1;
        if (month > 2) {
            total -= Year.isLeap(year) ? 1 : 2;
        }
        return total - DAYS_0000_TO_1970;
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
