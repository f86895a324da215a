package io.deltasink.write;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

import io.deltasink.model.Column;

/**
 * Partition values as text: the Delta protocol's serialization (for the {@code add} action's
 * {@code partitionValues}) and the Hive/Spark folder names ({@code col=value}, escaped, ASCII).
 */
final class PartitionFormat {
    /** The folder value Hive and Spark use for a null (or empty) partition value. */
    static final String NULL_FOLDER_VALUE = "__HIVE_DEFAULT_PARTITION__";
    /** The longest file or folder name most file systems accept (ext4, XFS, NTFS, APFS; HDFS by default). */
    static final int MAX_FOLDER_NAME_BYTES = 255;
    /** The longest object key S3 accepts, in bytes: the bound for a data file's whole path below the bucket. */
    static final int MAX_PATH_BYTES = 1024;

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
            case STRUCT, ARRAY, MAP -> throw new IllegalArgumentException(column.deltaTypeName() + " column '"
                    + column.name() + "' cannot be a partition column");
        };
    }

    static String timestamp(long epochMicros) {
        long seconds = Math.floorDiv(epochMicros, 1_000_000L);
        int nanos = (int) Math.floorMod(epochMicros, 1_000_000L) * 1000;
        return LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC).format(TIMESTAMP);
    }

    /**
     * The relative folder of a partition, e.g. {@code a=1/b=x%2Fy/}; empty when there are no
     * partition columns. Each folder name is {@code name=value}, both escaped by
     * {@link #escapePathName}, so it is plain ASCII.
     *
     * @param maxBytes the longest the whole folder may be (what the table's path and a file name
     *                 leave of an object key)
     * @throws RowRejectedException when a folder name would be longer than
     *                              {@value #MAX_FOLDER_NAME_BYTES} bytes, naming its column, or the
     *                              whole folder longer than {@code maxBytes}, naming the column of
     *                              the longest folder name
     */
    static String directory(List<Column> partitionColumns, List<String> serializedValues, int maxBytes) {
        if (partitionColumns.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        int longest = -1;
        int longestLength = 0;
        for (int i = 0; i < partitionColumns.size(); i++) {
            Column column = partitionColumns.get(i);
            String v = serializedValues.get(i);
            int start = sb.length();
            sb.append(escapePathName(column.name())).append('=')
                    .append(v == null ? NULL_FOLDER_VALUE : escapePathName(v));
            int length = sb.length() - start;
            if (length > MAX_FOLDER_NAME_BYTES) {
                throw new RowRejectedException(column.name(), v, "the partition value makes a folder name of "
                        + length + " bytes once escaped ('" + sb.substring(start, start + 40) + "...'), longer than the "
                        + MAX_FOLDER_NAME_BYTES + " bytes file systems accept");
            }
            if (length > longestLength) {
                longest = i;
                longestLength = length;
            }
            sb.append('/');
        }
        if (sb.length() > maxBytes) {
            throw new RowRejectedException(partitionColumns.get(longest).name(), serializedValues.get(longest),
                    "the partition folders would be " + sb.length() + " bytes together, more than the " + maxBytes
                    + " bytes the table's path and a file name leave of the " + MAX_PATH_BYTES
                    + " bytes an object key may have (S3); this column's folder name is the longest");
        }
        return sb.toString();
    }

    /**
     * Percent-encodes what Hive and Spark escape in partition folder names (control characters and
     * {@code "#%'*\/:=?[]^{}}), and every non-ASCII character as its UTF-8 bytes ({@code ü} ->
     * {@code %C3%BC}): folder names are plain ASCII, so the name a file gets on disk does not depend
     * on the JVM's file name encoding (a worker started with {@code LC_ALL=C} cannot create non-ASCII
     * names) and is the one the log names. Readers take partition values from the log, never from
     * folder names. A lone surrogate is encoded as {@code %3F} ("?").
     */
    static String escapePathName(String s) {
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            int next = i + Character.charCount(cp);
            if (cp < 0x80 && !needsEscape((char) cp)) {
                if (sb != null) {
                    sb.append((char) cp);
                }
            } else {
                if (sb == null) {
                    sb = new StringBuilder(s.length() + 16).append(s, 0, i);
                }
                if (cp < 0x80) {
                    appendHex(sb, cp);
                } else {
                    for (byte b : s.substring(i, next).getBytes(StandardCharsets.UTF_8)) {
                        appendHex(sb, b & 0xFF);
                    }
                }
            }
            i = next;
        }
        return sb == null ? s : sb.toString();
    }

    private static void appendHex(StringBuilder sb, int b) {
        sb.append('%').append(HEX.charAt(b >> 4)).append(HEX.charAt(b & 0xF));
    }

    private static boolean needsEscape(char c) {
        return c < 0x20 || c == 0x7F || ESCAPED_PRINTABLE.indexOf(c) >= 0;
    }
}
