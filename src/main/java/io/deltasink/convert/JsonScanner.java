package io.deltasink.convert;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import io.deltasink.model.ColumnType;

/**
 * The common case of {@link StreamingPaths} without a general JSON parser: one pass over the bytes
 * of strict, plain JSON (the value's own UTF-8, or a String's Latin-1 or UTF-8) that hands each
 * wanted scalar to its columns as {@link StreamingPaths} would: text as a String, integers as
 * Integer or Long, floats as their exact BigDecimal ({@link JsonNumbers}), booleans, null. A float
 * that only double columns take may come as the Double its BigDecimal gives
 * ({@link JsonBytes#number(boolean)}): the same value once the column's type applies.
 *
 * <p>It gives up (returns false) on everything else, before deciding anything: a byte beyond ASCII
 * outside a string, UTF-8 in a string that is not well formed or stands for a character beyond
 * U+FFFF, a String with an unpaired surrogate, a string escape other than the standard ones or one
 * giving a surrogate, an escaped key, an integer beyond a long, a float {@link JsonNumbers} leaves
 * to the parser, a number or string longer than any seen in events, deep nesting, an object or list
 * a column takes whole, a {@code raw(...)} of anything but text or null, and whatever the JSON
 * grammar does not allow (the parser and the tree path then say what is wrong). So what it accepts,
 * Jackson accepts too and reads into the same values.
 */
final class JsonScanner extends JsonBytes {
    private final Json json;
    private Object[] out;
    /** The field texts of this value still to read: {@code textCount} nodes, each with its text's length. */
    private FieldTree[] textNodes = new FieldTree[2];
    private int[] textLengths = new int[2];
    private int textCount;
    /** Per field text of a value (in the order of {@link #textNodes}), its bytes, kept for the next value. */
    private byte[][] textBuffers = new byte[2][];
    /** The value's bytes, kept for the next value. */
    private byte[] own = new byte[0];
    /**
     * Per column (its first column of a node), the last text read and its bytes: a value equal to
     * the last one is the same String again, neither decoded nor allocated anew.
     */
    private String[] lastText;
    private byte[][] lastBytes;
    /** Per column, reuses of the last text minus misses; caching stops below {@link #GIVE_UP_REUSE}. */
    private int[] reuseScore;
    private static final int GIVE_UP_REUSE = -64;
    private static final int MAX_REUSE_BYTES = 64;

    /**
     * Whether a value that only columns of one type take ({@link FieldTree#onlyType}) is read straight
     * to that type where it is exact to: a float for double columns as its Double
     * ({@link JsonBytes#number(boolean)}), ISO text for timestamp columns as its instant
     * ({@link Timestamps#isoMicros}).
     */
    private final boolean typed;

    /** A scanner to read one value after another on one thread; its buffers are kept between values. */
    JsonScanner(Json json) {
        this(json, false);
    }

    /** @param typed true to read a value that only columns of one type take straight to that type (see the field) */
    JsonScanner(Json json, boolean typed) {
        this.json = json;
        this.typed = typed;
    }

    /**
     * Resolves the children of {@code root} in {@code value} (a String or UTF-8 bytes) into {@code out}.
     *
     * @return false when {@link StreamingPaths} has to read this value; {@code out} may then hold
     *         values of some columns
     */
    static boolean resolve(FieldTree root, Object value, Json json, Object[] out) {
        return new JsonScanner(json).read(root, value, out);
    }

    /** {@link #resolve(FieldTree, Object, Json, Object[])} with this scanner's buffers. */
    boolean read(FieldTree root, Object value, Object[] out) {
        this.out = out;
        textCount = 0;
        if (lastText == null || lastText.length != out.length) {
            lastText = new String[out.length];
            lastBytes = new byte[out.length][];
            reuseScore = new int[out.length];
        }
        byte[] bytes;
        boolean wasLatin1 = latin1;
        if (value instanceof String s) {
            bytes = bytesOf(s);
        } else {
            bytes = (byte[]) value;
            latin1 = false;
        }
        if (latin1 != wasLatin1) {
            // the last texts' bytes were of the other encoding: equal bytes may be other characters
            Arrays.fill(lastBytes, null);
        }
        if (bytes == null) {
            return false;
        }
        int length = bytes.length;
        // scanned in a buffer of the scanner's own: a long-lived object that pointed at each value
        // would cost the collector's write barriers (G1's) more than the copy
        if (own.length < length) {
            own = new byte[Math.max(length, own.length * 2)];
        }
        System.arraycopy(bytes, 0, own, 0, length);
        if (!document(root, own, length)) {
            return false;
        }
        // a text read here can add texts of its own: textCount is read again each time
        for (int k = 0; k < textCount; k++) {
            if (!document(textNodes[k], textBuffers[k], textLengths[k])) {
                return false;
            }
        }
        return true;
    }

    /**
     * The bytes of a String to scan: its Latin-1 when every character is one ({@link #latin1} set),
     * else its UTF-8; null for a String with an unpaired surrogate (left to the parser). Java writes '?' for a character it cannot encode, so the bytes are taken only when they
     * read back as the String.
     */
    private byte[] bytesOf(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.ISO_8859_1);
        if (s.equals(new String(bytes, StandardCharsets.ISO_8859_1))) {
            latin1 = true;
            return bytes;
        }
        latin1 = false;
        // a surrogate pair would be four bytes of UTF-8, which the scanner leaves to the parser anyway
        if (Unicode.unpaired(s) >= 0) {
            return null;
        }
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A whole JSON text as the value of {@code node}, which has children: an object, a list or null, nothing after it. */
    private boolean document(FieldTree node, byte[] bytes, int length) {
        c = bytes;
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
                return literal(NULL);
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
            if (c[i] != '"' || !string() || escaped || stringLength > MAX_NAME_BYTES) {
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
        if (children.length > 8 || high && latin1) { // the tree's names are UTF-8 bytes
            return node.child(text(c, stringStart, stringLength));
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
        byte t = c[i];
        if (t == '{' || t == '[') {
            return node.valueColumns().length == 0 && node.rawColumns().length == 0 && container(node);
        }
        if (hasChildren && t == '"') {
            // JSON text in a field: decoded once, for its columns and to be read after this text
            if (!string()) {
                return false;
            }
            // the k-th text of a value keeps its buffer from value to value: never the one being read
            int slot = textCount;
            if (slot == textBuffers.length) {
                textBuffers = Arrays.copyOf(textBuffers, slot * 2);
                textNodes = Arrays.copyOf(textNodes, slot * 2);
                textLengths = Arrays.copyOf(textLengths, slot * 2);
            }
            byte[] text;
            if (escaped) {
                // the decoded text is this field's: the next escaped string decodes into the slot's last buffer
                text = scratch;
                scratch = textBuffers[slot];
                textBuffers[slot] = text;
            } else {
                text = textBuffers[slot];
                if (text == null || text.length < stringLength) {
                    text = new byte[Math.max(64, stringLength)];
                    textBuffers[slot] = text;
                }
                System.arraycopy(c, stringStart, text, 0, stringLength);
            }
            int length = stringLength;
            if ((node.valueColumns().length > 0 || node.rawColumns().length > 0)
                    && !assign(node, text(text, 0, length))) {
                return false;
            }
            textNodes[slot] = node;
            textLengths[slot] = length;
            textCount = slot + 1;
            return true;
        }
        Object plain = t == '"' && !hasChildren ? text(node)
                : (t == '-' || t >= '0' && t <= '9') ? number(typed && node.onlyType() == ColumnType.DOUBLE) : scalar();
        // below a number or boolean no path goes on; below null every column is null
        return plain != GIVE_UP && assign(node, plain) && (!hasChildren || plain == null);
    }

    /** The string at {@code i} as {@link #scalar} gives it, the last String of the node's column again when equal. */
    private Object text(FieldTree node) {
        if (!string()) {
            return GIVE_UP;
        }
        byte[] bytes = escaped ? scratch : c;
        int from = escaped ? 0 : stringStart;
        if (typed && node.onlyType() == ColumnType.TIMESTAMP) {
            // ISO text of the usual shape to timestamp columns only: read straight to its instant
            long micros = Timestamps.isoMicros(bytes, from, stringLength);
            if (micros != Timestamps.NOT_READ) {
                return new Timestamps.Read(micros);
            }
        }
        int[] columns = node.valueColumns().length > 0 ? node.valueColumns() : node.rawColumns();
        int col = columns.length > 0 ? columns[0] : -1;
        if (col < 0 || stringLength > MAX_REUSE_BYTES || reuseScore[col] < GIVE_UP_REUSE) {
            return text(bytes, from, stringLength);
        }
        byte[] last = lastBytes[col];
        if (last != null && Arrays.equals(last, 0, last.length, bytes, from, from + stringLength)) {
            if (reuseScore[col] < 0) {
                reuseScore[col]++;
            }
            return lastText[col];
        }
        reuseScore[col]--;
        String text = text(bytes, from, stringLength);
        lastText[col] = text;
        lastBytes[col] = Arrays.copyOfRange(bytes, from, from + stringLength);
        return text;
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
