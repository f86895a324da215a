package io.deltasink.convert;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The field paths of a mapping merged into a tree, so that shared prefixes are walked once per
 * record and each field holding JSON text (the whole value included) is parsed at most once,
 * however many columns read below it.
 */
final class FieldTree {
    private final String segment;
    private final int index;
    private final String path;
    private final Map<String, FieldTree> childMap = new LinkedHashMap<>();
    private final List<Integer> valueColumnList = new ArrayList<>();
    private final List<Integer> rawColumnList = new ArrayList<>();
    private FieldTree[] children;
    private int[] valueColumns;
    private int[] rawColumns;
    /** Name of the first column (mapping order) whose path goes below this node; named when descending fails. */
    private String firstBelow;

    private FieldTree(String segment, String path) {
        this.segment = segment;
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
                }
                (f.raw() ? node.rawColumnList : node.valueColumnList).add(col);
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
        for (FieldTree c : children) {
            c.freeze();
        }
    }

    /**
     * Resolves every path for one record, writing each column's source value (before type
     * conversion) into {@code out}. Columns whose path is missing are left null.
     */
    void resolve(SinkRecord record, Object value, Json json, Object[] out) {
        for (int c : valueColumns) {
            out[c] = Json.plain(value);
        }
        for (int c : rawColumns) {
            out[c] = json.rawText(value);
        }
        if (children.length == 0 || value == null) {
            return;
        }
        Object container = container(record, value, json);
        for (FieldTree child : children) {
            child.resolve(record, child.step(container), json, out);
        }
    }

    /** The value to descend into: JSON text is parsed, anything else is used as it is. */
    private Object container(SinkRecord record, Object value, Json json) {
        Object text = value;
        if (value instanceof JsonNode n) {
            if (!n.isTextual()) {
                return value;
            }
            text = n.textValue();
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

    /** This node's field of a container, or null when there is none. */
    private Object step(Object container) {
        if (container instanceof JsonNode n) {
            return n.isArray() ? (index >= 0 ? n.get(index) : null) : n.get(segment);
        }
        if (container instanceof Struct s) {
            Field f = s.schema().field(segment);
            return f == null ? null : s.get(f);
        }
        if (container instanceof Map<?, ?> m) {
            return m.get(segment);
        }
        if (container instanceof List<?> l) {
            return index >= 0 && index < l.size() ? l.get(index) : null;
        }
        return null;
    }
}
