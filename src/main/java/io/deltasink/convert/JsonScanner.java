package io.deltasink.convert;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The common case of {@link StreamingPaths} without a general JSON parser: one pass over the
 * characters of strict, plain JSON (ASCII bytes, or a String without surrogates) that hands each
 * wanted scalar to its columns as {@link StreamingPaths} would: text as a String, integers as
 * Integer or Long, floats as their exact BigDecimal ({@link JsonNumbers}), booleans, null.
 *
 * <p>It gives up (returns false) on everything else, before deciding anything: any byte above
 * ASCII, surrogates, a string escape other than the standard ones or one giving a surrogate, an
 * escaped key, an integer beyond a long, a float {@link JsonNumbers} leaves to the parser, a
 * number or string longer than any seen in events, deep nesting, an object or list a column takes
 * whole, a {@code raw(...)} of anything but text or null, and whatever the JSON grammar does not
 * allow (the parser and the tree path then say what is wrong). So what it accepts, Jackson accepts
 * too and reads into the same values.
 */
final class JsonScanner extends JsonChars {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private final Json json;
    private final Object[] out;
    /** Triples of a node, the JSON text it holds (char[]) and the text's length, still to read. */
    private List<Object> texts;

    private JsonScanner(Json json, Object[] out) {
        this.json = json;
        this.out = out;
    }

    /**
     * Resolves the children of {@code root} in {@code value} (a String or UTF-8 bytes) into {@code out}.
     *
     * @return false when {@link StreamingPaths} has to read this value; {@code out} may then hold
     *         values of some columns
     */
    static boolean resolve(FieldTree root, Object value, Json json, Object[] out) {
        char[] chars;
        if (value instanceof String s) {
            chars = s.toCharArray();
        } else {
            byte[] b = (byte[]) value;
            if (!ascii(b)) {
                // a byte beyond ASCII: UTF-8 is left to the parser
                return false;
            }
            // Latin-1 bytes as a String (a copy), then widened into chars: both loops the JVM vectorizes
            chars = new char[b.length];
            new String(b, StandardCharsets.ISO_8859_1).getChars(0, b.length, chars, 0);
        }
        JsonScanner s = new JsonScanner(json, out);
        if (!s.document(root, chars, chars.length)) {
            return false;
        }
        for (int k = 0; s.texts != null && k < s.texts.size(); k += 3) {
            if (!s.document((FieldTree) s.texts.get(k), (char[]) s.texts.get(k + 1), (Integer) s.texts.get(k + 2))) {
                return false;
            }
        }
        return true;
    }

    /** True when every byte is ASCII (below 0x80): eight at a time, then the rest. */
    static boolean ascii(byte[] b) {
        int k = 0;
        long all = 0;
        for (int last = b.length - Long.BYTES; k <= last; k += Long.BYTES) {
            all |= (long) LONGS.get(b, k);
        }
        for (; k < b.length; k++) {
            all |= b[k];
        }
        return (all & 0x8080808080808080L) == 0;
    }

    /** A whole JSON text as the value of {@code node}, which has children: an object, a list or null, nothing after it. */
    private boolean document(FieldTree node, char[] chars, int length) {
        c = chars;
        i = 0;
        end = length;
        depth = 0;
        if (!skipSpace()) {
            return false;
        }
        if (!container(node)) {
            return false;
        }
        return !skipSpace();
    }

    /** Descends into the object, list or null at {@code i} of a node that has children (see StreamingPaths' container). */
    private boolean container(FieldTree node) {
        switch (c[i]) {
            case '{':
                return object(node);
            case '[':
                return list(node);
            case 'n':
                return literal("null");
            default:
                return false;
        }
    }

    private boolean object(FieldTree node) {
        if (++depth > MAX_DEPTH) {
            return false;
        }
        i++;
        if (!skipSpace()) {
            return false;
        }
        FieldTree[] children = node.children();
        SeenChildren seen = new SeenChildren(children.length);
        if (c[i] == '}') {
            i++;
            depth--;
            return true;
        }
        while (true) {
            if (c[i] != '"' || !string() || escaped || stringLength > MAX_NAME_CHARS) {
                return false;
            }
            FieldTree child = child(children, node);
            if (!skipSpace() || c[i] != ':') {
                return false;
            }
            i++;
            if (!skipSpace()) {
                return false;
            }
            if (child == null) {
                if (!skip()) {
                    return false;
                }
            } else {
                if (!seen.first(child.position())) {
                    return false;
                }
                if (!field(child)) {
                    return false;
                }
            }
            if (!skipSpace()) {
                return false;
            }
            if (c[i] == ',') {
                i++;
                if (!skipSpace()) {
                    return false;
                }
            } else if (c[i] == '}') {
                i++;
                depth--;
                return true;
            } else {
                return false;
            }
        }
    }

    /** The child named by the key just read, or null. */
    private FieldTree child(FieldTree[] children, FieldTree node) {
        if (children.length > 8) {
            return node.child(new String(c, stringStart, stringLength));
        }
        for (FieldTree child : children) {
            if (child.is(c, stringStart, stringLength)) {
                return child;
            }
        }
        return null;
    }

    private boolean list(FieldTree node) {
        if (!node.distinctIndexes() || ++depth > MAX_DEPTH) {
            return false;
        }
        i++;
        if (!skipSpace()) {
            return false;
        }
        if (c[i] == ']') {
            i++;
            depth--;
            return true;
        }
        FieldTree[] children = node.children();
        for (int index = 0; ; index++) {
            FieldTree wanted = null;
            for (FieldTree child : children) {
                if (child.index() == index) {
                    wanted = child;
                }
            }
            if (!(wanted == null ? skip() : field(wanted)) || !skipSpace()) {
                return false;
            }
            if (c[i] == ',') {
                i++;
                if (!skipSpace()) {
                    return false;
                }
            } else if (c[i] == ']') {
                i++;
                depth--;
                return true;
            } else {
                return false;
            }
        }
    }

    /** The value at {@code i} of {@code node}: to its columns, then to its children. */
    private boolean field(FieldTree node) {
        boolean hasChildren = node.children().length > 0;
        char t = c[i];
        if (t == '{' || t == '[') {
            return node.valueColumns().length == 0 && node.rawColumns().length == 0 && container(node);
        }
        if (hasChildren && t == '"') {
            // JSON text in a field: decoded once, for its columns and to be read after this text
            if (!string()) {
                return false;
            }
            char[] text;
            if (escaped) {
                // the decoded text is this field's: the next escaped string gets a buffer of its own
                text = scratch;
                scratch = null;
            } else {
                text = Arrays.copyOfRange(c, stringStart, stringStart + stringLength);
            }
            int length = stringLength;
            if ((node.valueColumns().length > 0 || node.rawColumns().length > 0)
                    && !assign(node, new String(text, 0, length))) {
                return false;
            }
            if (texts == null) {
                texts = new ArrayList<>(6);
            }
            texts.add(node);
            texts.add(text);
            texts.add(length);
            return true;
        }
        Object plain = scalar();
        // below a number or boolean no path goes on; below null every column is null
        return plain != GIVE_UP && assign(node, plain) && (!hasChildren || plain == null);
    }

    /** A scalar to the node's columns; false for a raw(...) of anything but text or null. */
    private boolean assign(FieldTree node, Object plain) {
        for (int col : node.valueColumns()) {
            out[col] = plain;
        }
        int[] raws = node.rawColumns();
        if (raws.length > 0) {
            if (plain != null && !(plain instanceof String)) {
                return false;
            }
            for (int col : raws) {
                try {
                    out[col] = json.rawText(plain);
                } catch (BadValueException e) {
                    return false;
                }
            }
        }
        return true;
    }

}
