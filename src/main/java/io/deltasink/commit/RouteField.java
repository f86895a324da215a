package io.deltasink.commit;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;

import org.apache.kafka.connect.sink.SinkRecord;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.ColumnMapping;
import io.deltasink.convert.EpochUnit;
import io.deltasink.convert.MappingConverter;
import io.deltasink.convert.RecordConversionException;

/**
 * The table a record goes to with {@code ${route}} in table.location: the value of
 * table.route.field, read by the mapping's path grammar, made a folder name. Lower-case letters,
 * digits, '_' and '-' are kept; every other byte of the value's UTF-8 form becomes '~' and two
 * upper-case hex digits, so distinct values give distinct folders (also on case-insensitive file
 * systems), and no folder name is empty, '.', '..' or holds '/'. A null or empty value,
 * or a folder name longer than {@link #MAX_FOLDER_CHARS}, makes the record a bad record.
 */
final class RouteField {
    static final int MAX_FOLDER_CHARS = 200;
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private final String field;
    private final MappingConverter reader;

    RouteField(DeltaSinkConfig config, Clock clock) {
        this.field = config.routeField();
        this.reader = new MappingConverter(ColumnMapping.parse("route:string=" + field, List.of()), clock,
                EpochUnit.parse(config.timestampNumericUnit()));
    }

    /** The folder of the record's table; throws a {@link RecordConversionException} naming the field. */
    String folder(SinkRecord record) {
        Object value = reader.convert(record)[0];
        if (value == null) {
            throw problem(record, null, "is null or missing");
        }
        String text = value.toString();
        if (text.isEmpty()) {
            throw problem(record, text, "is empty");
        }
        String folder = folderName(text);
        if (folder.length() > MAX_FOLDER_CHARS) {
            throw problem(record, text, "makes a folder name of " + folder.length() + " characters, more than "
                    + MAX_FOLDER_CHARS);
        }
        return folder;
    }

    private RecordConversionException problem(SinkRecord record, String value, String what) {
        return new RecordConversionException(record, null, value, DeltaSinkConfig.TABLE_ROUTE_FIELD + " '" + field
                + "' " + what + ", so the record names no table");
    }

    /** The folder name of a route value (see the class comment). */
    static String folderName(String value) {
        StringBuilder out = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-') {
                out.append(c);
            } else {
                out.append('~').append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
            }
        }
        return out.toString();
    }

    /** Whether a folder under the root can be a route's table: only what {@link #folderName} makes. */
    static boolean isFolderName(String name) {
        return !name.isEmpty() && name.length() <= MAX_FOLDER_CHARS && name.matches("([a-z0-9_-]|~[0-9A-F]{2})+");
    }
}
