package io.deltasink.convert;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.common.config.ConfigException;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;

/** Parses the {@code columns} grammar described on {@link ColumnMapping}. */
final class MappingParser {
    /** Characters a Delta column name may not hold (without column mapping), plus the path and grammar separators. */
    static final String NAME_FORBIDDEN = " ,;{}()\n\t=.:";

    private static final Pattern DECIMAL = Pattern.compile("(?i)decimal\\s*\\(\\s*(\\d{1,3})\\s*(?:,\\s*(\\d{1,3})\\s*)?\\)");
    private static final Pattern TIMESTAMP_UNIT = Pattern.compile("(?i)timestamp\\s*\\((.*)\\)", Pattern.DOTALL);
    private static final Pattern FUNCTION = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)\\s*\\((.*)\\)", Pattern.DOTALL);
    /** The text before a '<' that opens a nested type: ':' then struct, array or map at the end. */
    private static final Pattern NESTED_OPEN = Pattern.compile("(?i):\\s*(struct|array|map)\\s*$");
    private static final String METADATA = "@topic, @partition, @offset, @timestamp, @key, @header.<name>, @now";

    private MappingParser() {
    }

    static ColumnMapping parse(String text, Collection<String> notNullInput) {
        Set<String> notNull = new HashSet<>();
        for (String n : notNullInput) {
            if (n != null && !n.isBlank()) {
                notNull.add(n.trim());
            }
        }
        if (ColumnMapping.isAuto(text)) {
            if (!notNull.isEmpty()) {
                throw new ConfigException(ColumnMapping.NOT_NULL_CONFIG, String.join(",", notNull),
                        "cannot be used with columns=auto: auto columns are all nullable");
            }
            return new ColumnMapping(List.of());
        }
        List<String> entries = split(text == null ? "" : text);
        if (entries.isEmpty()) {
            throw new ConfigException(ColumnMapping.COLUMNS_CONFIG, text,
                    "no columns defined; expected 'auto' or comma-separated entries name:type=source");
        }
        Map<String, ColumnSpec> byName = new LinkedHashMap<>();
        Map<String, String> lowerNames = new HashMap<>();
        for (String entry : entries) {
            ColumnSpec spec = entry(entry, notNull);
            String previous = lowerNames.putIfAbsent(spec.name().toLowerCase(Locale.ROOT), spec.name());
            if (previous != null) {
                throw fail(entry, "column '" + spec.name() + "' is defined twice"
                        + (previous.equals(spec.name()) ? "" : " (as '" + previous + "'; Delta column names ignore case)"));
            }
            byName.put(spec.name(), spec);
        }
        for (ColumnSpec spec : byName.values()) {
            if (spec.source() instanceof Source.DateOf d) {
                checkDateOf(spec, d, byName);
            }
        }
        for (String n : notNull) {
            if (!byName.containsKey(n)) {
                throw new ConfigException(ColumnMapping.NOT_NULL_CONFIG, n,
                        "no column '" + n + "' in columns; defined: " + String.join(", ", byName.keySet()));
            }
        }
        return new ColumnMapping(new ArrayList<>(byName.values()));
    }

    /**
     * Splits at commas outside parentheses and outside the angle brackets of a nested type
     * ({@code struct<}, {@code array<}, {@code map<}); trims; drops empty entries.
     */
    static List<String> split(String text) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        int angles = 0;
        int start = 0;
        for (int i = 0; i <= text.length(); i++) {
            char c = i < text.length() ? text.charAt(i) : ',';
            if (c == '<' && (angles > 0 || NESTED_OPEN.matcher(text.substring(start, i)).find())) {
                angles++;
            } else if (c == '>' && angles > 0) {
                angles--;
            } else if (angles > 0 && i < text.length()) {
                continue;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                if (--depth < 0) {
                    throw new ConfigException(ColumnMapping.COLUMNS_CONFIG, text.substring(start, i + 1).trim(),
                            "')' without a matching '('");
                }
            } else if (c == ',' && (depth == 0 || i == text.length())) {
                if (depth > 0) {
                    throw new ConfigException(ColumnMapping.COLUMNS_CONFIG, text.substring(start).trim(),
                            "'(' without a matching ')'");
                }
                if (angles > 0) {
                    throw new ConfigException(ColumnMapping.COLUMNS_CONFIG, text.substring(start).trim(),
                            "'<' without a matching '>' in a struct, array or map type");
                }
                String entry = text.substring(start, i).trim();
                if (!entry.isEmpty()) {
                    out.add(entry);
                }
                start = i + 1;
            }
        }
        return out;
    }

    private static ColumnSpec entry(String entry, Set<String> notNull) {
        int colon = entry.indexOf(':');
        int eq = entry.indexOf('=');
        if (colon < 0 || (eq >= 0 && eq < colon)) {
            throw fail(entry, "missing ':' between column name and type; expected name:type=source");
        }
        if (eq < 0) {
            throw fail(entry, "missing '=' between type and source; expected name:type=source");
        }
        String name = entry.substring(0, colon).trim();
        String typeText = entry.substring(colon + 1, eq).trim();
        String sourceText = entry.substring(eq + 1).trim();
        checkName(entry, name);
        if (typeText.isEmpty()) {
            throw fail(entry, "missing type after ':'");
        }
        if (sourceText.isEmpty()) {
            throw fail(entry, "missing source after '='");
        }
        EpochUnit unit = null;
        Matcher withUnit = TIMESTAMP_UNIT.matcher(typeText);
        if (withUnit.matches()) {
            unit = unit(entry, withUnit.group(1));
            typeText = "timestamp";
        }
        Column column = column(entry, name, typeText, !notNull.contains(name));
        return new ColumnSpec(column, source(entry, sourceText, column), unit);
    }

    /** The unit in {@code timestamp(<unit>)}. */
    private static EpochUnit unit(String entry, String text) {
        String problem = "timestamp(" + text.trim() + ") names no unit; write timestamp(<unit>) with a unit of "
                + "numbers in this column: " + EpochUnit.COLUMN_NAMES + " (since 1970-01-01T00:00:00Z)";
        EpochUnit unit;
        try {
            unit = EpochUnit.parse(text);
        } catch (IllegalArgumentException e) {
            throw fail(entry, problem);
        }
        if (unit == EpochUnit.NONE) {
            throw fail(entry, problem);
        }
        return unit;
    }

    static void checkName(String entry, String name) {
        if (name.isEmpty()) {
            throw fail(entry, "missing column name before ':'");
        }
        for (int i = 0; i < name.length(); i++) {
            if (NAME_FORBIDDEN.indexOf(name.charAt(i)) >= 0 || Character.isWhitespace(name.charAt(i))) {
                throw fail(entry, "column name '" + name + "' may not contain '" + name.charAt(i)
                        + "' (nor whitespace or any of ,;{}()=.:)");
            }
        }
    }

    private static Column column(String entry, String name, String typeText, boolean nullable) {
        if (NestedTypeParser.isNested(typeText)) {
            try {
                return Column.nested(name, NestedTypeParser.parse(typeText), nullable);
            } catch (IllegalArgumentException e) {
                throw fail(entry, "column '" + name + "': " + e.getMessage());
            }
        }
        Matcher m = DECIMAL.matcher(typeText);
        if (m.matches()) {
            int precision = Integer.parseInt(m.group(1));
            int scale = m.group(2) == null ? 0 : Integer.parseInt(m.group(2));
            try {
                return new Column(name, ColumnType.DECIMAL, precision, scale, nullable);
            } catch (IllegalArgumentException e) {
                throw fail(entry, e.getMessage());
            }
        }
        ColumnType type;
        try {
            type = ColumnType.parse(typeText);
        } catch (IllegalArgumentException e) {
            throw fail(entry, e.getMessage());
        }
        if (type == ColumnType.DECIMAL) {
            throw fail(entry, "type decimal needs a precision and scale, e.g. decimal(10,2)");
        }
        return Column.of(name, type, nullable);
    }

    private static Source source(String entry, String text, Column column) {
        if (text.startsWith("@")) {
            Source.Meta meta = meta(entry, text);
            checkMetaType(entry, meta, column);
            return meta;
        }
        Matcher f = FUNCTION.matcher(text);
        if (f.matches()) {
            String fn = f.group(1);
            String arg = f.group(2).trim();
            switch (fn) {
                case "raw":
                    return new Source.Field(arg.isEmpty() ? List.of() : path(entry, arg), true);
                case "date":
                    if (arg.isEmpty()) {
                        throw fail(entry, "date() needs the name of a timestamp column, e.g. date(event_time)");
                    }
                    if (column.type() != ColumnType.DATE && column.type() != ColumnType.STRING) {
                        throw fail(entry, "date(" + arg + ") gives a date; the column type must be date or string, not "
                                + column.deltaTypeName());
                    }
                    return new Source.DateOf(arg);
                default:
                    throw fail(entry, "unknown function '" + fn + "'; known: raw(<path>), date(<column>)");
            }
        }
        if (text.indexOf('(') >= 0 || text.indexOf(')') >= 0) {
            throw fail(entry, "source '" + text + "' is neither a path nor a function call raw(<path>) / date(<column>)");
        }
        return new Source.Field(path(entry, text), false);
    }

    private static List<String> path(String entry, String text) {
        List<String> segments = List.of(text.split("\\.", -1));
        for (String s : segments) {
            if (s.isEmpty()) {
                throw fail(entry, "path '" + text + "' has an empty segment; expected names separated by single dots");
            }
            if (!s.strip().equals(s)) {
                throw fail(entry, "path '" + text + "' has whitespace around a segment");
            }
        }
        return segments;
    }

    /** Rejects metadata that could never fill the column, e.g. {@code @topic} into an int. */
    private static void checkMetaType(String entry, Source.Meta meta, Column column) {
        ColumnType t = column.type();
        Set<ColumnType> allowed = switch (meta.kind()) {
            case TOPIC -> Set.of(ColumnType.STRING, ColumnType.BINARY);
            case PARTITION, OFFSET -> Set.of(ColumnType.STRING, ColumnType.INT, ColumnType.LONG, ColumnType.SHORT,
                    ColumnType.BYTE, ColumnType.DOUBLE, ColumnType.FLOAT, ColumnType.DECIMAL);
            case TIMESTAMP, NOW -> Set.of(ColumnType.TIMESTAMP, ColumnType.DATE, ColumnType.LONG, ColumnType.STRING);
            case KEY, HEADER -> Set.of(ColumnType.values());
        };
        if (!allowed.contains(t)) {
            throw fail(entry, meta.text() + " cannot fill a column of type " + column.deltaTypeName() + "; use one of: "
                    + allowed.stream().map(ColumnType::deltaName).sorted().toList());
        }
    }

    private static Source.Meta meta(String entry, String text) {
        if (text.startsWith("@header.")) {
            String header = text.substring("@header.".length());
            if (header.isEmpty()) {
                throw fail(entry, "@header. needs a header name, e.g. @header.trace_id");
            }
            return new Source.Meta(Source.Meta.Kind.HEADER, header);
        }
        Source.Meta.Kind kind = switch (text) {
            case "@topic" -> Source.Meta.Kind.TOPIC;
            case "@partition" -> Source.Meta.Kind.PARTITION;
            case "@offset" -> Source.Meta.Kind.OFFSET;
            case "@timestamp" -> Source.Meta.Kind.TIMESTAMP;
            case "@key" -> Source.Meta.Kind.KEY;
            case "@now" -> Source.Meta.Kind.NOW;
            default -> throw fail(entry, "unknown record metadata '" + text + "'; known: " + METADATA);
        };
        return new Source.Meta(kind, null);
    }

    private static void checkDateOf(ColumnSpec spec, Source.DateOf d, Map<String, ColumnSpec> byName) {
        String entry = spec.text();
        ColumnSpec target = byName.get(d.column());
        if (target == null) {
            throw fail(entry, "date(" + d.column() + ") names no column; defined: " + String.join(", ", byName.keySet()));
        }
        if (target.source() instanceof Source.DateOf) {
            throw fail(entry, "date(" + d.column() + ") names a column that is itself derived with date()");
        }
        ColumnType t = target.column().type();
        if (t != ColumnType.TIMESTAMP && t != ColumnType.DATE) {
            throw fail(entry, "date(" + d.column() + ") needs a timestamp or date column, but '" + d.column()
                    + "' is " + target.column().deltaTypeName());
        }
    }

    private static ConfigException fail(String entry, String problem) {
        return new ConfigException(ColumnMapping.COLUMNS_CONFIG, entry, problem);
    }
}
