package io.deltasink.convert;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.deltasink.model.ColumnType;
import io.deltasink.model.NestedType;

/**
 * Parses a nested column type in Spark DDL: {@code struct<name:type,...>}, {@code array<type>},
 * {@code map<string,type>}, nesting allowed, leaves any flat type of the grammar. Map keys are
 * strings only. A problem is an {@link IllegalArgumentException} naming the position (from 1) in
 * the type text; the caller adds the column.
 */
final class NestedTypeParser {
    private static final Pattern DECIMAL = Pattern.compile("(?i)decimal\\s*\\(\\s*(\\d{1,3})\\s*(?:,\\s*(\\d{1,3})\\s*)?\\)");
    private static final Pattern NESTED = Pattern.compile("(?is)\\s*(struct|array|map)\\s*<.*");

    /** Deeper types are refused: no reader needs them, and the parser and converter recurse per level. */
    static final int MAX_DEPTH = 32;
    private final String text;
    private int pos;
    private int depth;

    private NestedTypeParser(String text) {
        this.text = text;
    }

    /** True when the type text starts as a nested type ({@code struct<}, {@code array<}, {@code map<}). */
    static boolean isNested(String typeText) {
        return NESTED.matcher(typeText).matches();
    }

    static NestedType parse(String typeText) {
        NestedTypeParser p = new NestedTypeParser(typeText);
        NestedType t = p.type();
        p.skipSpace();
        if (p.pos < typeText.length()) {
            throw p.fail("unexpected '" + typeText.substring(p.pos) + "' after the type");
        }
        if (t instanceof NestedType.Leaf) {
            throw p.fail("expected struct<...>, array<...> or map<string,...>");
        }
        return t;
    }

    private NestedType type() {
        skipSpace();
        int start = pos;
        String word = word();
        if (++depth > MAX_DEPTH) {
            pos = start;
            throw fail("nested deeper than " + MAX_DEPTH + " levels");
        }
        try {
            return typeAt(start, word);
        } finally {
            depth--;
        }
    }

    private NestedType typeAt(int start, String word) {
        switch (word.toLowerCase(Locale.ROOT)) {
            case "struct":
                open(word);
                return struct();
            case "array": {
                open(word);
                NestedType element = type();
                close("array");
                return new NestedType.Array(element);
            }
            case "map": {
                open(word);
                skipSpace();
                int keyAt = pos;
                NestedType key = type();
                if (!(key instanceof NestedType.Leaf l) || l.type() != ColumnType.STRING) {
                    pos = keyAt;
                    throw fail("map keys must be string (map<string,type>), not " + key.ddl());
                }
                expect(',', "',' between the key and value types of map");
                NestedType value = type();
                close("map");
                return new NestedType.MapOf(value);
            }
            default:
                return leaf(start, word);
        }
    }

    private NestedType struct() {
        List<NestedType.Field> fields = new ArrayList<>();
        Set<String> names = new HashSet<>();
        skipSpace();
        if (peek() == '>') {
            throw fail("struct<> has no fields; write struct<name:type,...>");
        }
        while (true) {
            skipSpace();
            int nameAt = pos;
            while (pos < text.length() && ":,<>".indexOf(text.charAt(pos)) < 0) {
                pos++;
            }
            String name = text.substring(nameAt, pos).trim();
            if (name.isEmpty()) {
                pos = nameAt;
                throw fail("missing field name in struct");
            }
            for (int i = 0; i < name.length(); i++) {
                char c = name.charAt(i);
                if (MappingParser.NAME_FORBIDDEN.indexOf(c) >= 0 || Character.isWhitespace(c)) {
                    pos = nameAt;
                    throw fail("struct field name '" + name + "' may not contain '" + c
                            + "' (nor whitespace or any of ,;{}()=.:)");
                }
            }
            if (!names.add(name.toLowerCase(Locale.ROOT))) {
                pos = nameAt;
                throw fail("struct field '" + name + "' is defined twice (field names ignore case)");
            }
            expect(':', "':' between struct field '" + name + "' and its type");
            fields.add(new NestedType.Field(name, type()));
            skipSpace();
            if (peek() == ',') {
                pos++;
                continue;
            }
            close("struct");
            return new NestedType.Struct(fields);
        }
    }

    private NestedType leaf(int start, String word) {
        if (word.isEmpty()) {
            pos = start;
            throw fail(pos >= text.length() ? "missing type at the end" : "expected a type, found '" + text.charAt(pos) + "'");
        }
        if (word.equalsIgnoreCase("decimal")) {
            int end = text.indexOf(')', pos);
            Matcher m = end < 0 ? null : DECIMAL.matcher(text.substring(start, end + 1));
            if (m == null || !m.matches()) {
                pos = start;
                throw fail("type decimal needs a precision and scale, e.g. decimal(10,2)");
            }
            int precision = Integer.parseInt(m.group(1));
            int scale = m.group(2) == null ? 0 : Integer.parseInt(m.group(2));
            if (precision < 1 || precision > 38 || scale > precision) {
                pos = start;
                throw fail("decimal(" + precision + "," + scale + ") is invalid: precision 1..38, scale 0..precision");
            }
            pos = end + 1;
            return new NestedType.Leaf(ColumnType.DECIMAL, precision, scale);
        }
        ColumnType type;
        try {
            type = ColumnType.parse(word);
        } catch (IllegalArgumentException e) {
            pos = start;
            throw fail(e.getMessage() + ", struct<...>, array<...>, map<string,...>");
        }
        return new NestedType.Leaf(type, 0, 0);
    }

    private String word() {
        int start = pos;
        while (pos < text.length() && (Character.isLetterOrDigit(text.charAt(pos)) || text.charAt(pos) == '_')) {
            pos++;
        }
        return text.substring(start, pos);
    }

    private void open(String word) {
        expect('<', "'<' after " + word.toLowerCase(Locale.ROOT));
    }

    private void close(String what) {
        skipSpace();
        if (pos >= text.length()) {
            throw fail("'<' of " + what + " without a matching '>'");
        }
        expect('>', "'>' closing " + what);
    }

    private void expect(char c, String what) {
        skipSpace();
        if (peek() != c) {
            throw fail("expected " + what + (pos < text.length() ? ", found '" + text.charAt(pos) + "'" : ", found the end"));
        }
        pos++;
    }

    private char peek() {
        return pos < text.length() ? text.charAt(pos) : 0;
    }

    private void skipSpace() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private IllegalArgumentException fail(String problem) {
        return new IllegalArgumentException("type '" + text + "' at position " + (pos + 1) + ": " + problem);
    }
}
