package io.deltasink.write;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

import io.deltasink.model.Column;

/**
 * Partition values as text: the Delta protocol's serialization (for the {@code add} action's
 * {@code partitionValues}) and the Hive/Spark folder names ({@code col=value}, escaped).
 */
final class PartitionFormat {
    /** The folder value Hive and Spark use for a null (or empty) partition value. */
    static final String NULL_FOLDER_VALUE = "__HIVE_DEFAULT_PARTITION__";

    private static final DateTimeFormatter TIMESTAMP =
            DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS");
    private static final String HEX = "0123456789ABCDEF";
    /** Printable characters percent-encoded in folder names, as Hive and Spark do (plus all control characters). */
    private static final String ESCAPED_PRINTABLE = "\"#%'*/:=?\\{[]^";

    private PartitionFormat() {
    }

    /**
     * The Delta protocol text of a partition value: strings as is, numbers in decimal text,
     * booleans true/false, dates {@code yyyy-MM-dd}, timestamps {@code yyyy-MM-dd HH:mm:ss.SSSSSS}
     * in UTC, decimals as plain strings. Null stays null; so does an empty string, as in Spark,
     * since a folder cannot tell an empty value from a missing one.
     */
    static String serialize(Column column, Object value) {
        if (value == null) {
            return null;
        }
        return switch (column.type()) {
            case STRING -> ((String) value).isEmpty() ? null : (String) value;
            case INT, LONG, SHORT, BYTE, DOUBLE, FLOAT, BOOLEAN -> value.toString();
            case DATE -> LocalDate.ofEpochDay((Integer) value).toString();
            case TIMESTAMP -> timestamp((Long) value);
            case DECIMAL -> ((BigDecimal) value).toPlainString();
            case BINARY -> throw new IllegalArgumentException("binary column '" + column.name()
                    + "' cannot be a partition column");
        };
    }

    static String timestamp(long epochMicros) {
        long seconds = Math.floorDiv(epochMicros, 1_000_000L);
        int nanos = (int) Math.floorMod(epochMicros, 1_000_000L) * 1000;
        return LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC).format(TIMESTAMP);
    }

    /** The relative folder of a partition, e.g. {@code a=1/b=x%2Fy}; empty when there are no partition columns. */
    static String directory(List<Column> partitionColumns, List<String> serializedValues) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < partitionColumns.size(); i++) {
            String v = serializedValues.get(i);
            sb.append(escapePathName(partitionColumns.get(i).name())).append('=')
                    .append(v == null ? NULL_FOLDER_VALUE : escapePathName(v)).append('/');
        }
        return sb.toString();
    }

    /** Percent-encodes the characters Hive and Spark escape in partition folder names. */
    static String escapePathName(String s) {
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (needsEscape(c)) {
                if (sb == null) {
                    sb = new StringBuilder(s.length() + 8).append(s, 0, i);
                }
                sb.append('%').append(HEX.charAt(c >> 4)).append(HEX.charAt(c & 0xF));
            } else if (sb != null) {
                sb.append(c);
            }
        }
        return sb == null ? s : sb.toString();
    }

    private static boolean needsEscape(char c) {
        return c < 0x20 || c == 0x7F || ESCAPED_PRINTABLE.indexOf(c) >= 0;
    }
}
