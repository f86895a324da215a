package io.deltasink.convert;

import java.util.Locale;

/**
 * The unit of a number in a timestamp column: what one step of the number since
 * 1970-01-01T00:00:00Z is. {@link #NONE} takes no number at all: without a unit a number is
 * ambiguous (epoch seconds read as milliseconds land in January 1970), so it is a bad record.
 * Named per column in the mapping type ({@code timestamp(seconds)}) or for the connector by
 * {@code timestamp.numeric.unit}.
 */
public enum EpochUnit {
    NONE(0),
    SECONDS(6),
    MILLIS(3),
    MICROS(0),
    NANOS(-3);

    /** Valid names for the connector setting, in order. */
    public static final String NAMES = "none, seconds, millis, micros, nanos";
    /** Valid names inside a column type, e.g. {@code timestamp(millis)}. */
    static final String COLUMN_NAMES = "seconds, millis, micros or nanos";

    /** Decimal places to move right to turn a number in this unit into microseconds. */
    final int microsShift;

    EpochUnit(int microsShift) {
        this.microsShift = microsShift;
    }

    /**
     * Parses a unit name, ignoring case and surrounding whitespace.
     *
     * @throws IllegalArgumentException naming the valid units
     */
    public static EpochUnit parse(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        for (EpochUnit u : values()) {
            if (u.toString().equals(n)) {
                return u;
            }
        }
        throw new IllegalArgumentException("unknown unit '" + (name == null ? "" : name.trim()) + "'; valid: " + NAMES);
    }

    /** The name in the grammar and the setting: none, seconds, millis, micros, nanos. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
