package io.deltasink.convert;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.model.ColumnType;

/**
 * The field paths of a mapping merged into a tree, so that shared prefixes are walked once per
 * record and each field holding JSON text (the whole value included) is parsed at most once,
 * however many columns read below it.
 */
final class FieldTree {
    private final String segment;
    /** The segment's characters, to compare with a name in a scanner's buffer. */
    private final byte[] segmentBytes;
    /**
     * The segment's first eight bytes and (from nine to sixteen bytes) its last eight, as little-endian
     * longs, and the mask of a segment shorter than eight bytes: a name is compared a word at a time.
     */
    private final long head;
    private final long tail;
    private final long headMask;
    private final int index;
    private final String path;
    private final Map<String, FieldTree> childMap = new LinkedHashMap<>();
    private final List<Integer> valueColumnList = new ArrayList<>();
    private final List<Integer> rawColumnList = new ArrayList<>();
    private final List<String> rawNameList = new ArrayList<>();
    private FieldTree[] children;
    private int[] valueColumns;
    private int[] rawColumns;
    private String[] rawNames;
    /** Name of the first column (mapping order) whose path goes below this node; named when descending fails. */
    private String firstBelow;
    /** Name and path of the first column (mapping order) whose path reaches this node; named when reaching it fails. */
    private String firstColumn;
    private String firstPath;
    /** This node's place among its parent's children. */
    private int position;
    /** True when every child is a list index and no two name the same one ("1" and "01"). */
    private boolean distinctIndexes;
    /** The types of the columns that take this node's value as it is. */
    private final List<ColumnType> valueTypeList = new ArrayList<>();
    /** The one type of every column the node's value goes to (none of them raw(...)); null for none or several. */
    private ColumnType onlyType;

    private FieldTree(String segment, String path) {
        // interned as a JSON parser interns names, so that a child is found by identity first
        this.segment = segment == null ? null : segment.intern();
        this.segmentBytes = segment == null ? null : segment.getBytes(StandardCharsets.UTF_8);
        int length = segmentBytes == null ? 0 : segmentBytes.length;
        this.headMask = length >= Long.BYTES ? -1L : (1L << (Long.BYTES * length)) - 1;
        this.head = length == 0 ? 0 : littleEndian(segmentBytes, 0, Math.min(length, Long.BYTES));
        this.tail = length > Long.BYTES ? littleEndian(segmentBytes, length - Long.BYTES, Long.BYTES) : 0;
        this.path = path;
        this.index = segment != null && !segment.isEmpty() && segment.chars().allMatch(Character::isDigit)
                && segment.length() < 10 ? Integer.parseInt(segment) : -1;
    }

    /** Builds the tree of the {@link Source.Field} sources of {@code specs}; null when there are none. */
    static FieldTree build(List<ColumnSpec> specs) {
        FieldTree root = new FieldTree(null, "");
        boolean any = false;
        for (int col = 0; col < specs.size(); col++) {
            if (specs.get(col).source() instanceof Source.Field f) {
                any = true;
                FieldTree node = root;
                for (String seg : f.path()) {
                    if (node.firstBelow == null) {
                        node.firstBelow = specs.get(col).name();
                    }
                    FieldTree parent = node;
                    node = parent.childMap.computeIfAbsent(seg,
                            s -> new FieldTree(s, parent.path.isEmpty() ? s : parent.path + "." + s));
                    if (node.firstColumn == null) {
                        node.firstColumn = specs.get(col).name();
                        node.firstPath = f.pathText();
                    }
                }
                if (f.raw()) {
                    node.rawColumnList.add(col);
                    node.rawNameList.add(specs.get(col).name());
                } else {
                    node.valueColumnList.add(col);
                    node.valueTypeList.add(specs.get(col).column().type());
                }
            }
        }
        if (!any) {
            return null;
        }
        root.freeze();
        return root;
    }

    private void freeze() {
        children = childMap.values().toArray(new FieldTree[0]);
        valueColumns = valueColumnList.stream().mapToInt(Integer::intValue).toArray();
        rawColumns = rawColumnList.stream().mapToInt(Integer::intValue).toArray();
        rawNames = rawNameList.toArray(new String[0]);
        onlyType = rawColumns.length == 0 && valueTypeList.stream().distinct().count() == 1 ? valueTypeList.get(0) : null;
        distinctIndexes = true;
        for (int i = 0; i < children.length; i++) {
            children[i].position = i;
            for (int j = 0; j < i; j++) {
                distinctIndexes &= children[j].index != children[i].index;
            }
            distinctIndexes &= children[i].index >= 0;
            children[i].freeze();
        }
    }

    FieldTree[] children() {
        return children;
    }

    /** The child named {@code name} (an object's key), or null. */
    FieldTree child(String name) {
        for (FieldTree c : children) {
            if (c.segment == name) {
                return c;
            }
        }
        return childMap.get(name);
    }

    /** True when this node's segment is the UTF-8 text {@code bytes[off, off + len)}. */
    boolean is(byte[] bytes, int off, int len) {
        if (segmentBytes == null || segmentBytes.length != len) {
            return false;
        }
        if (len <= Long.BYTES && off + Long.BYTES <= bytes.length) {
            return ((long) JsonBytes.LONGS.get(bytes, off) & headMask) == head;
        }
        if (len > Long.BYTES && len <= 2 * Long.BYTES) {
            // two words, overlapping when shorter than sixteen bytes; the name lies inside the array
            return (long) JsonBytes.LONGS.get(bytes, off) == head && (long) JsonBytes.LONGS.get(bytes, off + len - Long.BYTES) == tail;
        }
        return Arrays.equals(segmentBytes, 0, len, bytes, off, off + len);
    }

    /** {@code n} bytes from {@code at} as the low bytes of a little-endian long. */
    private static long littleEndian(byte[] bytes, int at, int n) {
        long v = 0;
        for (int k = n - 1; k >= 0; k--) {
            v = v << 8 | (bytes[at + k] & 0xFF);
        }
        return v;
    }

    int position() {
        return position;
    }

    /** The list index this segment names, or -1 when it is not one. */
    int index() {
        return index;
    }

    boolean distinctIndexes() {
        return distinctIndexes;
    }

    /** Columns that take this node's value as it is. */
    int[] valueColumns() {
        return valueColumns;
    }

    /** The type of every column the node's value goes to, when they share one and none is a raw(...); else null. */
    ColumnType onlyType() {
        return onlyType;
    }

    /** Columns that take this node's text ({@code raw(...)}). */
    int[] rawColumns() {
        return rawColumns;
    }

    /**
     * Resolves every path for one record, writing each column's source value (before type
     * conversion) into {@code out}. Columns whose path is missing, or meets null on the way, are
     * left null; a path that has to descend through a scalar fails the record.
     */
    void resolve(SinkRecord record, Object value, Json json, Object[] out) {
        for (int c : valueColumns) {
            out[c] = Json.plain(value);
        }
        for (int i = 0; i < rawColumns.length; i++) {
            try {
                out[rawColumns[i]] = json.rawText(value);
            } catch (BadValueException e) {
                throw new RecordConversionException(record, rawNames[i], value, "raw(" + path + "): " + e.getMessage());
            }
        }
        if (children.length == 0 || isNull(value)) {
            return;
        }
        Object container = container(record, value, json);
        if (isNull(container)) {
            return;
        }
        for (FieldTree child : children) {
            child.resolve(record, child.step(record, this, container, value, json), json, out);
        }
    }

    private static boolean isNull(Object value) {
        return value == null || value instanceof JsonNode n && (n.isNull() || n.isMissingNode());
    }

    /** The value to descend into: JSON text is parsed, anything else is used as it is. */
    private Object container(SinkRecord record, Object value, Json json) {
        Object text = value;
        if (value instanceof JsonNode n) {
            if (!n.isTextual()) {
                return value;
            }
            text = n.textValue();
        } else if (value instanceof ByteBuffer bb) {
            text = Coercions.bytes(bb);
        } else if (!(value instanceof String) && !(value instanceof byte[])) {
            return value;
        }
        try {
            return json.parse(text);
        } catch (Json.NotJsonException e) {
            String problem = segment == null
                    ? "value is not valid JSON (" + e.getMessage() + ")"
                    : "field '" + path + "' holds text that is not JSON (" + e.getMessage() + ")";
            throw new RecordConversionException(record, firstBelow, text, problem);
        }
    }

    /**
     * This node's field of {@code container} (the value of {@code parent}, parsed when it was JSON
     * text), or null when there is none. A name into a list, or any step into a scalar, fails.
     */
    private Object step(SinkRecord record, FieldTree parent, Object container, Object original, Json json) {
        if (container instanceof JsonNode n) {
            if (n.isObject()) {
                return n.get(segment);
            }
            if (n.isArray()) {
                return n.get(listIndex(record, parent, container, json));
            }
        } else if (container instanceof Struct s) {
            Field f = s.schema().field(segment);
            return f == null ? null : s.get(f);
        } else if (container instanceof Map<?, ?> m) {
            Object v = m.get(segment);
            return v != null || m.isEmpty() || m.keySet().iterator().next() instanceof String ? v : byKeyText(m);
        } else if (container instanceof List<?> l) {
            int i = listIndex(record, parent, container, json);
            return i < l.size() ? l.get(i) : null;
        }
        boolean parsed = container != original && !(original instanceof JsonNode n && !n.isTextual());
        throw new RecordConversionException(record, firstColumn, Json.plain(original), "path '" + firstPath + "' goes through "
                + parent.where() + ", which holds " + (parsed ? "JSON text of " : "") + kind(container)
                + (index >= 0 ? ", not an object or a list" : ", not an object"));
    }

    /** The value whose key prints as this segment: a Connect map may be keyed by numbers or booleans. */
    private Object byKeyText(Map<?, ?> map) {
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (segment.equals(String.valueOf(e.getKey()))) {
                return e.getValue();
            }
        }
        return null;
    }

    private int listIndex(SinkRecord record, FieldTree parent, Object list, Json json) {
        if (index < 0) {
            throw new RecordConversionException(record, firstColumn, json.write(list, null), "path '" + firstPath
                    + "' goes through " + parent.where() + ", which holds a list; '" + segment + "' is not a list index");
        }
        return index;
    }

    private String where() {
        return segment == null ? "the record value" : "field '" + path + "'";
    }

    /** A scalar's kind for messages: a boolean, a number, a string, a timestamp ... */
    private static String kind(Object scalar) {
        if (scalar instanceof JsonNode n) {
            return n.isBoolean() ? "a boolean" : n.isNumber() ? "a number" : n.isTextual() ? "a string"
                    : "JSON " + n.getNodeType().name().toLowerCase(Locale.ROOT);
        }
        if (scalar instanceof Boolean) {
            return "a boolean";
        }
        if (scalar instanceof Number) {
            return "a number";
        }
        if (scalar instanceof java.util.Date || scalar instanceof java.time.temporal.Temporal) {
            return "a timestamp";
        }
        return "a " + scalar.getClass().getSimpleName();
    }
}
