package io.deltasink.convert;

import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * A record that cannot be converted. The message names the record's coordinates
 * (topic/partition/offset), the column and a shortened excerpt of the offending value.
 */
public class RecordConversionException extends DataException {
    static final int EXCERPT_CHARS = 120;

    private final String column;

    public RecordConversionException(SinkRecord record, String column, Object value, String problem) {
        this(record, column, value, problem, null);
    }

    public RecordConversionException(SinkRecord record, String column, Object value, String problem, Throwable cause) {
        super(message(record, column, value, problem), cause);
        this.column = column;
    }

    /** The output column being filled when conversion failed, or null when the record as a whole failed. */
    public String column() {
        return column;
    }

    static String message(SinkRecord record, String column, Object value, String problem) {
        StringBuilder sb = new StringBuilder("Cannot convert record ")
                .append(record.topic()).append('/').append(record.kafkaPartition()).append('@').append(record.kafkaOffset());
        if (column != null) {
            sb.append(", column '").append(column).append('\'');
        }
        sb.append(": ").append(problem);
        if (value != null) {
            sb.append("; value: ").append(excerpt(value));
        }
        return Unicode.escape(sb.toString());
    }

    /**
     * A value shortened for a message: at most {@value #EXCERPT_CHARS} characters, bytes as UTF-8
     * text, unpaired surrogates as escapes (backslash, u, four hex digits) so that the message is valid Unicode.
     */
    public static String excerpt(Object value) {
        if (value instanceof byte[] b) {
            String s = new String(b, java.nio.charset.StandardCharsets.UTF_8);
            return excerpt(s);
        }
        String s = Unicode.escape(String.valueOf(value).replace('\n', ' ').replace('\r', ' '));
        if (s.length() <= EXCERPT_CHARS) {
            return "'" + s + "'";
        }
        int cut = Character.isHighSurrogate(s.charAt(EXCERPT_CHARS - 1)) ? EXCERPT_CHARS - 1 : EXCERPT_CHARS;
        return "'" + s.substring(0, cut) + "...' (" + s.length() + " chars)";
    }
}
