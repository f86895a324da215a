package io.deltasink.convert;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.NestedType;

/**
 * Converts a value into a struct, array or map column's form ({@link NestedType}): from Connect
 * Structs, Lists and Maps, from JSON trees, and from JSON text (a String or bytes, parsed once at
 * any level). Leaves follow the flat rules ({@link Coercions}); null is allowed at every level
 * (fields, elements, map values). Fields of the source that the struct type does not name are not
 * kept, as a flat mapping keeps only what it names. A wrong shape or a bad leaf is a
 * {@link BadValueException} naming the path inside the column, e.g. {@code at address.zip}.
 */
final class NestedCoercion implements Coercions.Coercion {
    private final Node root;
    private final Json json;

    private NestedCoercion(Node root, Json json) {
        this.root = root;
        this.json = json;
    }

    static NestedCoercion of(ColumnSpec spec, EpochUnit numericUnit, Json json) {
        return new NestedCoercion(node(spec, spec.column().nested(), numericUnit, json), json);
    }

    @Override
    public Object apply(Object value) throws BadValueException {
        return root.convertOrNull(value, "", this);
    }

    private abstract static class Node {
        final NestedType type;

        Node(NestedType type) {
            this.type = type;
        }

        /** Converts a non-null value found at {@code path} ("" for the column itself). */
        abstract Object convert(Object v, String path, NestedCoercion c) throws BadValueException;

        Object convertOrNull(Object v, String path, NestedCoercion c) throws BadValueException {
            Object plain = Json.plain(v);
            return plain == null ? null : convert(plain, path, c);
        }

        BadValueException shape(Object v, String path, String expected) {
            return bad(path, "expected " + expected + " for "
                    + type.ddl() + ", got " + kind(v));
        }
    }

    private static Node node(ColumnSpec spec, NestedType type, EpochUnit unit, Json json) {
        if (type instanceof NestedType.Leaf l) {
            Column leaf = new Column(spec.name(), l.type(), l.precision(), l.scale(), true);
            return new LeafNode(l, Coercions.of(new ColumnSpec(leaf, spec.source()), unit, json));
        }
        if (type instanceof NestedType.Array a) {
            return new ArrayNode(a, node(spec, a.element(), unit, json));
        }
        if (type instanceof NestedType.MapOf m) {
            return new MapNode(m, node(spec, m.value(), unit, json));
        }
        NestedType.Struct s = (NestedType.Struct) type;
        Node[] fields = new Node[s.fields().size()];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = node(spec, s.fields().get(i).type(), unit, json);
        }
        return new StructNode(s, fields);
    }

    /** JSON text (a String, bytes, or a JSON string node) parsed to a tree; anything else as it is. */
    private Object container(Object v, String path) throws BadValueException {
        Object text = v;
        if (v instanceof JsonNode n) {
            if (!n.isTextual()) {
                return v;
            }
            text = n.textValue();
        } else if (v instanceof ByteBuffer bb) {
            text = Coercions.bytes(bb);
        } else if (!(v instanceof String) && !(v instanceof byte[])) {
            return v;
        }
        try {
            JsonNode parsed = json.parse(text);
            return parsed.isNull() ? null : parsed;
        } catch (Json.NotJsonException e) {
            throw bad(path, "text that is not JSON ("
                    + e.getMessage() + ")");
        }
    }

    private static String kind(Object v) {
        if (v instanceof JsonNode n) {
            return n.isObject() ? "an object" : n.isArray() ? "a list" : "JSON " + n.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
        }
        if (v instanceof Struct) {
            return "a struct";
        }
        if (v instanceof Map) {
            return "a map";
        }
        if (v instanceof List) {
            return "a list";
        }
        return v.getClass().getSimpleName();
    }

    /** A bad value inside a nested column: the message, after the path to the value when there is one. */
    private static BadValueException bad(String path, String message) {
        return new BadValueException((path.isEmpty() ? "" : "at " + path + ": ") + message);
    }

    private static String child(String path, String name) {
        return path.isEmpty() ? name : path + "." + name;
    }

    private static final class LeafNode extends Node {
        private final Coercions.Coercion coercion;

        LeafNode(NestedType.Leaf type, Coercions.Coercion coercion) {
            super(type);
            this.coercion = coercion;
        }

        @Override
        Object convert(Object v, String path, NestedCoercion c) throws BadValueException {
            if (v instanceof JsonNode n && n.isContainerNode() && ((NestedType.Leaf) type).type() != ColumnType.STRING) {
                throw shape(v, path, "a scalar");
            }
            try {
                return coercion.apply(v);
            } catch (BadValueException e) {
                throw path.isEmpty() ? e : bad(path, e.getMessage());
            }
        }
    }

    private static final class StructNode extends Node {
        private final Node[] fields;
        private final String[] names;

        StructNode(NestedType.Struct type, Node[] fields) {
            super(type);
            this.fields = fields;
            this.names = type.fields().stream().map(NestedType.Field::name).toArray(String[]::new);
        }

        @Override
        Object convert(Object v, String path, NestedCoercion c) throws BadValueException {
            Object in = c.container(v, path);
            if (in == null) {
                return null;
            }
            Object[] out = new Object[fields.length];
            for (int i = 0; i < fields.length; i++) {
                Object fv;
                if (in instanceof Struct s) {
                    Field f = s.schema().field(names[i]);
                    fv = f == null ? null : s.get(f);
                } else if (in instanceof Map<?, ?> m) {
                    fv = m.get(names[i]);
                } else if (in instanceof JsonNode n && n.isObject()) {
                    fv = n.get(names[i]);
                } else {
                    throw shape(in, path, "an object");
                }
                out[i] = fields[i].convertOrNull(fv, child(path, names[i]), c);
            }
            return out;
        }
    }

    private static final class ArrayNode extends Node {
        private final Node element;

        ArrayNode(NestedType.Array type, Node element) {
            super(type);
            this.element = element;
        }

        @Override
        Object convert(Object v, String path, NestedCoercion c) throws BadValueException {
            Object in = c.container(v, path);
            if (in == null) {
                return null;
            }
            List<Object> out = new ArrayList<>();
            Iterator<?> it;
            if (in instanceof List<?> l) {
                it = l.iterator();
            } else if (in instanceof Object[] a) {
                it = Arrays.asList(a).iterator();
            } else if (in instanceof JsonNode n && n.isArray()) {
                it = n.elements();
            } else {
                throw shape(in, path, "a list");
            }
            for (int i = 0; it.hasNext(); i++) {
                out.add(element.convertOrNull(it.next(), path + "[" + i + "]", c));
            }
            return out;
        }
    }

    private static final class MapNode extends Node {
        private final Node value;

        MapNode(NestedType.MapOf type, Node value) {
            super(type);
            this.value = value;
        }

        @Override
        Object convert(Object v, String path, NestedCoercion c) throws BadValueException {
            Object in = c.container(v, path);
            if (in == null) {
                return null;
            }
            Map<String, Object> out = new LinkedHashMap<>();
            if (in instanceof Map<?, ?> m) {
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    if (e.getKey() == null) {
                        throw bad(path, "a map key is null");
                    }
                    String key = Coercions.text(e.getKey(), c.json);
                    if (out.containsKey(key)) {
                        throw bad(path, "two map keys read as '"
                                + key + "'");
                    }
                    out.put(key, value.convertOrNull(e.getValue(), path + "[" + key + "]", c));
                }
            } else if (in instanceof JsonNode n && n.isObject()) {
                for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext();) {
                    Map.Entry<String, JsonNode> e = it.next();
                    String key = Unicode.valid(e.getKey());
                    out.put(key, value.convertOrNull(e.getValue(), path + "[" + key + "]", c));
                }
            } else {
                throw shape(in, path, "a map or an object");
            }
            return out;
        }
    }
}
