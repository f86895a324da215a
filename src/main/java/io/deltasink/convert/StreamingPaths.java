package io.deltasink.convert;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.kafka.connect.sink.SinkRecord;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;

/**
 * Resolves a {@link FieldTree} in JSON text (a String or UTF-8 bytes) without building a tree of
 * the text: one pass of a parser hands each wanted scalar to its columns, skips unwanted subtrees,
 * and a field holding JSON text is read after that, with a parser of its own. An object or list that a column
 * takes whole (as JSON text, or raw) is read as a tree, and its paths below it resolved as
 * {@link FieldTree#resolve} does.
 *
 * <p>Optimistic: it gives up (returns false) on anything the tree path would report or decide in
 * its own order: text that is not JSON, a wanted key given twice (the tree keeps the last), a path
 * through a scalar or a name into a list, a list index named twice. The caller then resolves the
 * record with {@link FieldTree#resolve}, so rows and error messages are those of the tree path.
 * The whole text is always read, so that text the tree path rejects is never accepted here.
 */
final class StreamingPaths {
    private final FieldTree root;
    private final Json json;
    /** One scanner per thread, so its buffers serve value after value while the converter stays safe to share. */
    private final ThreadLocal<JsonScanner> scanners;
    /**
     * The scanner of the thread that used this converter last, found without the thread-local
     * look-up while that thread keeps converting (a task's thread does). Immutable, so another
     * thread reading it sees either its own scanner or another thread's owner and takes the
     * thread-local one.
     */
    private Owned last;

    private record Owned(Thread thread, JsonScanner scanner) {
    }

    StreamingPaths(FieldTree root, Json json) {
        this(root, json, false);
    }

    /** @param typed true to read a value that only columns of one type take straight to that type (see {@link JsonScanner}) */
    StreamingPaths(FieldTree root, Json json, boolean typed) {
        this.root = root;
        this.json = json;
        this.scanners = ThreadLocal.withInitial(() -> new JsonScanner(json, typed));
    }

    private JsonScanner scanner() {
        Owned owned = last;
        Thread thread = Thread.currentThread();
        if (owned != null && owned.thread == thread) {
            return owned.scanner;
        }
        JsonScanner scanner = scanners.get();
        last = new Owned(thread, scanner);
        return scanner;
    }

    /**
     * Writes each column's source value into {@code out}, as {@link FieldTree#resolve} would.
     *
     * @param value JSON text, a String or UTF-8 bytes
     * @return false when the tree path has to resolve this value; {@code out} may then hold
     *         values of some columns, to be cleared
     */
    boolean resolve(SinkRecord record, Object value, Object[] out) {
        if (!rootColumns(value, out)) {
            return false;
        }
        if (root.children().length == 0 || scanner().read(root, value, out)) {
            return true;
        }
        // the scanner left this text to the parser: start again
        Arrays.fill(out, null);
        rootColumns(value, out);
        Walk walk = new Walk(record, out);
        try {
            try (JsonParser p = json.parser(value)) {
                if (!walk.document(root, p)) {
                    return false;
                }
            }
            // JSON text in fields: read after the text holding it, when its parser's buffers are free again
            for (int i = 0; walk.texts != null && i < walk.texts.size(); i += 2) {
                try (JsonParser p = json.parser(walk.texts.get(i + 1))) {
                    if (!walk.document((FieldTree) walk.texts.get(i), p)) {
                        return false;
                    }
                }
            }
            return true;
        } catch (IOException | RecordConversionException | NumberFormatException e) {
            // NumberFormatException: a number the parser's decimal rejects (an exponent like 1e99999999999)
            return false;
        }
    }

    /** The columns of the whole value; false when its text is bad. */
    private boolean rootColumns(Object value, Object[] out) {
        for (int c : root.valueColumns()) {
            out[c] = value;
        }
        try {
            for (int c : root.rawColumns()) {
                out[c] = json.rawText(value);
            }
        } catch (BadValueException e) {
            return false;
        }
        return true;
    }

    /** One value's pass. */
    private final class Walk {
        private final SinkRecord record;
        private final Object[] out;
        /** Pairs of a node and the JSON text it holds, still to read. */
        private List<Object> texts;

        Walk(SinkRecord record, Object[] out) {
            this.record = record;
            this.out = out;
        }

        /** Reads a whole JSON text as the value of {@code node}, which has children; false when it holds no value or more than one. */
        boolean document(FieldTree node, JsonParser p) throws IOException {
            JsonToken t = p.nextToken();
            return t != null && container(node, p, t, false) && p.nextToken() == null;
        }

        /**
         * Descends into the value at token {@code t}, of a node that has children.
         *
         * @param mayBeText true when text is JSON text to descend into; false for the content of JSON text
         */
        private boolean container(FieldTree node, JsonParser p, JsonToken t, boolean mayBeText) throws IOException {
            switch (t) {
                case START_OBJECT:
                    return object(node, p);
                case START_ARRAY:
                    return list(node, p);
                case VALUE_NULL:
                    return true;
                case VALUE_STRING:
                    if (!mayBeText) {
                        return false;
                    }
                    if (texts == null) {
                        texts = new ArrayList<>(4);
                    }
                    texts.add(node);
                    texts.add(p.getText());
                    return true;
                default:
                    return false;
            }
        }

        private boolean object(FieldTree node, JsonParser p) throws IOException {
            FieldTree[] children = node.children();
            SeenChildren seen = new SeenChildren(children.length);
            for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
                FieldTree child = node.child(p.currentName());
                JsonToken v = p.nextToken();
                if (child == null) {
                    p.skipChildren();
                    continue;
                }
                if (!seen.first(child.position())) {
                    return false;
                }
                if (!field(child, p, v)) {
                    return false;
                }
            }
            return true;
        }

        private boolean list(FieldTree node, JsonParser p) throws IOException {
            if (!node.distinctIndexes()) {
                return false;
            }
            FieldTree[] children = node.children();
            int i = 0;
            for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken(), i++) {
                FieldTree wanted = null;
                for (FieldTree c : children) {
                    if (c.index() == i) {
                        wanted = c;
                    }
                }
                if (wanted == null) {
                    p.skipChildren();
                } else if (!field(wanted, p, t)) {
                    return false;
                }
            }
            return true;
        }

        /** The value of {@code node}, at token {@code t}: to its columns, then to its children. */
        private boolean field(FieldTree node, JsonParser p, JsonToken t) throws IOException {
            int[] values = node.valueColumns();
            int[] raws = node.rawColumns();
            if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                if (values.length == 0 && raws.length == 0) {
                    return container(node, p, t, true);
                }
                node.resolve(record, json.subtree(p), json, out);
                return true;
            }
            if (values.length > 0) {
                Object plain = plain(p, t);
                for (int c : values) {
                    out[c] = plain;
                }
            }
            if (raws.length > 0) {
                JsonNode scalar = scalar(p, t);
                for (int c : raws) {
                    try {
                        out[c] = json.rawText(scalar);
                    } catch (BadValueException e) {
                        return false;
                    }
                }
            }
            return node.children().length == 0 || container(node, p, t, true);
        }
    }

    /** A scalar as {@link Json#plain} gives the tree's node of it. */
    private static Object plain(JsonParser p, JsonToken t) throws IOException {
        switch (t) {
            case VALUE_STRING:
                return p.getText();
            case VALUE_NUMBER_INT:
                switch (p.getNumberType()) {
                    case INT:
                        return p.getIntValue();
                    case LONG:
                        return p.getLongValue();
                    default:
                        return p.getBigIntegerValue();
                }
            case VALUE_NUMBER_FLOAT:
                return JsonNumbers.decimal(p);
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return null;
            default:
                throw new IOException("unexpected token " + t);
        }
    }

    /** The tree's node of a scalar. */
    private static JsonNode scalar(JsonParser p, JsonToken t) throws IOException {
        Object plain = plain(p, t);
        if (plain == null) {
            return NullNode.getInstance();
        }
        if (plain instanceof String s) {
            return TextNode.valueOf(s);
        }
        if (plain instanceof Boolean b) {
            return BooleanNode.valueOf(b);
        }
        if (plain instanceof Integer i) {
            return IntNode.valueOf(i);
        }
        if (plain instanceof Long l) {
            return LongNode.valueOf(l);
        }
        if (plain instanceof java.math.BigInteger bi) {
            return BigIntegerNode.valueOf(bi);
        }
        return DecimalNode.valueOf((java.math.BigDecimal) plain);
    }
}
