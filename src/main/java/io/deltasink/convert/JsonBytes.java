package io.deltasink.convert;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The lexical half of {@link JsonScanner}: a cursor over JSON text as UTF-8 bytes (or, for a
 * String of Latin-1 characters only, as those characters' Latin-1 bytes, {@link #latin1}) that reads
 * strings, numbers and literals as Jackson's parser reads them, skips values checking their
 * grammar, and answers false (or {@link #GIVE_UP}) on whatever it leaves to the parser: control
 * characters in strings, a byte beyond ASCII outside a string, UTF-8 in a string that is not well
 * formed or takes four bytes (a character beyond U+FFFF, a surrogate pair in Java), escapes other
 * than the standard ones or giving a surrogate, numbers longer than {@value #MAX_NUMBER_CHARS}
 * characters, integers beyond 18 digits, floats {@link JsonNumbers} does not take, nesting deeper
 * than {@value #MAX_DEPTH}.
 */
abstract class JsonBytes {
    /** What {@link #scalar} answers for a value left to the parser. */
    static final Object GIVE_UP = new Object();
    static final int MAX_DEPTH = 100;
    static final int MAX_NUMBER_CHARS = 100;
    static final int MAX_STRING_BYTES = 1 << 20;
    /** Well below the parser's limit on names (50,000). */
    static final int MAX_NAME_BYTES = 1000;
    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    static final byte[] NULL = {'n', 'u', 'l', 'l'};
    /** Eight bytes of a byte array as a long, the first byte lowest (also {@link FieldTree}'s names). */
    static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    byte[] c;
    int i;
    int end;
    int depth;
    /** The last string read (without escapes: its start in {@link #c}; with escapes: decoded in {@link #scratch}). */
    int stringStart;
    int stringLength;
    byte[] scratch;
    boolean escaped;
    /** Whether the last string read has a byte beyond ASCII. */
    boolean high;
    /** The text's bytes are Latin-1, one a character; otherwise UTF-8. */
    boolean latin1;
    /** A float's characters for {@link JsonNumbers}. */
    private final char[] number = new char[MAX_NUMBER_CHARS];

    /** The text {@code bytes[off, off + len)} of a string {@link #string()} read. */
    String text(byte[] bytes, int off, int len) {
        return new String(bytes, off, len, latin1 ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
    }

    /** Skips whitespace; false at the end of the text. */
    boolean skipSpace() {
        byte[] a = c;
        int n = end;
        for (int k = i; k < n; k++) {
            byte b = a[k];
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                i = k;
                return true;
            }
        }
        i = n;
        return false;
    }

    /** The scalar at {@code i} as StreamingPaths' plain gives it, or GIVE_UP; {@code i} ends after it. */
    Object scalar() {
        switch (c[i]) {
            case '"':
                if (!string()) {
                    return GIVE_UP;
                }
                return escaped ? text(scratch, 0, stringLength) : text(c, stringStart, stringLength);
            case 't':
                return literal(TRUE) ? Boolean.TRUE : GIVE_UP;
            case 'f':
                return literal(FALSE) ? Boolean.FALSE : GIVE_UP;
            case 'n':
                return literal(NULL) ? null : GIVE_UP;
            default:
                return number();
        }
    }

    boolean literal(byte[] word) {
        int n = word.length;
        if (end - i < n) {
            return false;
        }
        for (int k = 0; k < n; k++) {
            if (c[i + k] != word[k]) {
                return false;
            }
        }
        i += n;
        return i == end || !isWordChar(c[i]);
    }

    /** A byte that would continue a word: a letter, digit, _ or $, or any byte beyond ASCII. */
    private static boolean isWordChar(byte b) {
        return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '_' || b == '$' || b < 0;
    }

    /** Powers of ten a double holds exactly. */
    private static final double[] EXACT_POWERS_OF_TEN = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
    };
    /** Digits of a float read straight to a double: its unscaled value stays below 2^52. */
    private static final int DOUBLE_DIGITS = 15;

    /** A number in JSON's grammar: Integer, Long or BigDecimal as the parser gives them, or GIVE_UP. */
    Object number() {
        return number(false);
    }

    /**
     * {@link #number()}, or with {@code toDouble} a float that only double columns take as the Double
     * its BigDecimal's {@code doubleValue()} is, without the BigDecimal where the double is exact to
     * compute: no exponent, at most {@value #DOUBLE_DIGITS} digits, so the unscaled value and the
     * power of ten are both doubles exactly and their quotient is the correctly rounded value, bit for
     * bit what {@code doubleValue()} gives (it takes the same quotient there). Every other number as
     * {@link #number()} gives it.
     */
    Object number(boolean toDouble) {
        int start = i;
        if (i < end && c[i] == '-') {
            i++;
        }
        if (i >= end || c[i] < '0' || c[i] > '9') {
            return GIVE_UP;
        }
        if (c[i] == '0') {
            i++;
        } else {
            i = digits(i);
        }
        boolean integer = true;
        int point = -1;
        if (i < end && c[i] == '.') {
            integer = false;
            point = i;
            int at = ++i;
            i = digits(i);
            if (i == at) {
                return GIVE_UP;
            }
        }
        boolean exponent = false;
        if (i < end && (c[i] == 'e' || c[i] == 'E')) {
            integer = false;
            exponent = true;
            i++;
            if (i < end && (c[i] == '+' || c[i] == '-')) {
                i++;
            }
            int at = i;
            i = digits(i);
            if (i == at) {
                return GIVE_UP;
            }
        }
        int length = i - start;
        if (length > MAX_NUMBER_CHARS || i < end && (isWordChar(c[i]) || c[i] == '.' || c[i] == '+' || c[i] == '-')) {
            return GIVE_UP;
        }
        if (toDouble && !exponent && point >= 0) {
            int first = c[start] == '-' ? start + 1 : start;
            if (i - first - 1 <= DOUBLE_DIGITS) {
                long unscaled = 0;
                for (int k = first; k < i; k++) {
                    if (k != point) {
                        unscaled = unscaled * 10 + (c[k] - '0');
                    }
                }
                // as BigDecimal.valueOf(-0, scale).doubleValue(): 0.0, never -0.0
                double d = (double) (first > start ? -unscaled : unscaled) / EXACT_POWERS_OF_TEN[i - point - 1];
                return d;
            }
        }
        if (!integer) {
            // ASCII: each byte is its character
            for (int k = 0; k < length; k++) {
                number[k] = (char) c[start + k];
            }
            BigDecimal d = JsonNumbers.decimal(number, 0, length);
            return d == null ? GIVE_UP : d;
        }
        int digits = length - (c[start] == '-' ? 1 : 0);
        if (digits > 18) {
            return GIVE_UP;
        }
        long n = 0;
        for (int k = c[start] == '-' ? start + 1 : start; k < i; k++) {
            n = n * 10 + (c[k] - '0');
        }
        if (c[start] == '-') {
            n = -n;
        }
        return n >= Integer.MIN_VALUE && n <= Integer.MAX_VALUE ? (Object) (int) n : (Object) n;
    }

    private int digits(int from) {
        int k = from;
        while (k < end && c[k] >= '0' && c[k] <= '9') {
            k++;
        }
        return k;
    }

    /**
     * Reads the string at {@code i} (its opening quote): plain, it stays in {@link #c}; with escapes
     * it is decoded into {@link #scratch}. False on what the scanner leaves to the parser.
     */
    boolean string() {
        int start = i + 1;
        // the cursor in locals: the loop runs on registers, not on the fields
        byte[] a = c;
        int n = end;
        high = false;
        int k = start;
        int words = n - Long.BYTES;
        while (true) {
            // eight bytes at a time to the next quote, backslash, control character or byte beyond ASCII
            if (k <= words) {
                long found = quoteEscapeOrBeyond((long) LONGS.get(a, k));
                if (found == 0) {
                    k += Long.BYTES;
                    continue;
                }
                k += Long.numberOfTrailingZeros(found) >>> 3;
            } else if (k >= n) {
                break;
            }
            byte b = a[k];
            if (b == '"') {
                stringStart = start;
                stringLength = k - start;
                escaped = false;
                i = k + 1;
                return stringLength <= MAX_STRING_BYTES;
            }
            if (b == '\\') {
                i = k;
                return escapedString(start);
            }
            if (b < 0x20) { // a control character, or (negative) a byte of a character beyond ASCII
                int next = b >= 0 ? -1 : latin1 ? k + 1 : character(a, k, n);
                if (next < 0) {
                    i = k;
                    return false;
                }
                high = true;
                k = next;
            } else {
                k++;
            }
        }
        i = n;
        return false;
    }

    /**
     * The top bit of each byte of {@code w} (read little-endian: the first byte lowest) that is a
     * quote, a backslash, a control character or beyond ASCII, and maybe of bytes after such a one;
     * zero when there is none. Each test sets the top bit of such a byte: a quote or backslash XORed
     * to zero minus one, a byte below 0x20 minus 0x20, a byte beyond ASCII has it. A subtraction
     * borrows only from a byte that is below what it subtracts, and only into the bytes after it, so
     * the lowest bit set is the first such byte's.
     */
    static long quoteEscapeOrBeyond(long w) {
        long quote = w ^ (ONES * '"');
        long backslash = w ^ (ONES * '\\');
        return ((quote - ONES) & ~quote | (backslash - ONES) & ~backslash | (w - ONES * 0x20) | w) & HIGHS;
    }

    /**
     * The end of the character beyond ASCII whose UTF-8 starts at {@code at}, when it is well formed
     * (no overlong form) and takes two or three bytes, not a surrogate's; otherwise -1.
     */
    static int character(byte[] a, int at, int end) {
        int lead = a[at] & 0xFF;
        if (lead >= 0xC2 && lead <= 0xDF) {
            return at + 1 < end && (a[at + 1] & 0xC0) == 0x80 ? at + 2 : -1;
        }
        if (lead >= 0xE0 && lead <= 0xEF && at + 2 < end) {
            int second = a[at + 1] & 0xFF;
            int low = lead == 0xE0 ? 0xA0 : 0x80; // below: an overlong form
            int top = lead == 0xED ? 0x9F : 0xBF; // above: a surrogate
            return second >= low && second <= top && (a[at + 2] & 0xC0) == 0x80 ? at + 3 : -1;
        }
        return -1;
    }

    boolean escapedString(int start) {
        int n = i - start;
        // decoding never lengthens: an escape of two or six bytes gives one to three
        if (scratch == null || scratch.length < end - start) {
            scratch = new byte[Math.max(64, end - start)];
        }
        byte[] c = this.c;
        byte[] scratch = this.scratch;
        int end = this.end;
        int i = this.i;
        System.arraycopy(c, start, scratch, 0, n);
        int words = end - Long.BYTES;
        while (true) {
            // eight bytes at a time to the next quote, backslash, control character or byte beyond
            // ASCII, each word copied whole: n <= i - start, so the eight bytes at n fit in scratch
            if (i <= words) {
                long w = (long) LONGS.get(c, i);
                LONGS.set(scratch, n, w);
                long found = quoteEscapeOrBeyond(w);
                if (found == 0) {
                    i += Long.BYTES;
                    n += Long.BYTES;
                    continue;
                }
                int plain = Long.numberOfTrailingZeros(found) >>> 3;
                i += plain;
                n += plain;
            } else if (i >= end) {
                break;
            }
            byte b = c[i++];
            if (b == '"') {
                this.i = i;
                stringLength = n;
                escaped = true;
                return n <= MAX_STRING_BYTES;
            }
            if (b == '\\') {
                if (i >= end) {
                    return false;
                }
                byte e = c[i++];
                switch (e) {
                    case '"': case '\\': case '/':
                        b = e;
                        break;
                    case 'b': b = '\b'; break;
                    case 'f': b = '\f'; break;
                    case 'n': b = '\n'; break;
                    case 'r': b = '\r'; break;
                    case 't': b = '\t'; break;
                    case 'u':
                        if (end - i < 4) {
                            return false;
                        }
                        int code = 0;
                        for (int k = 0; k < 4; k++) {
                            int h = hex(c[i++]);
                            if (h < 0) {
                                return false;
                            }
                            code = code << 4 | h;
                        }
                        if (code >= Character.MIN_SURROGATE && code <= Character.MAX_SURROGATE) {
                            return false;
                        }
                        if (code >= 0x80) {
                            high = true;
                            if (!latin1) {
                                n = putUtf8(scratch, n, code);
                                continue;
                            }
                            if (code > 0xFF) {
                                return false;
                            }
                        }
                        b = (byte) code;
                        break;
                    default:
                        return false;
                }
            } else if (b < 0x20) {
                int next = b >= 0 ? -1 : latin1 ? i : character(c, i - 1, end);
                if (next < 0) {
                    return false;
                }
                high = true;
                for (int k = i - 1; k < next; k++) {
                    scratch[n++] = c[k];
                }
                i = next;
                continue;
            }
            scratch[n++] = b;
        }
        return false;
    }

    /** The UTF-8 of {@code code} (0x80 to 0xFFFF, not a surrogate) at {@code n}; the end of it. */
    private static int putUtf8(byte[] out, int n, int code) {
        if (code < 0x800) {
            out[n] = (byte) (0xC0 | code >> 6);
            out[n + 1] = (byte) (0x80 | code & 0x3F);
            return n + 2;
        }
        out[n] = (byte) (0xE0 | code >> 12);
        out[n + 1] = (byte) (0x80 | code >> 6 & 0x3F);
        out[n + 2] = (byte) (0x80 | code & 0x3F);
        return n + 3;
    }

    private static int hex(byte b) {
        return b >= '0' && b <= '9' ? b - '0' : b >= 'a' && b <= 'f' ? b - 'a' + 10 : b >= 'A' && b <= 'F' ? b - 'A' + 10 : -1;
    }

    /** Skips the value at {@code i}, checking its grammar. */
    boolean skip() {
        switch (c[i]) {
            case '{':
            case '[': {
                byte close = c[i] == '{' ? (byte) '}' : (byte) ']';
                boolean isObject = close == '}';
                if (++depth > MAX_DEPTH) {
                    return false;
                }
                i++;
                if (!skipSpace()) {
                    return false;
                }
                if (c[i] == close) {
                    i++;
                    depth--;
                    return true;
                }
                while (true) {
                    if (isObject) {
                        if (c[i] != '"' || !string() || stringLength > MAX_NAME_BYTES || !skipSpace() || c[i] != ':') {
                            return false;
                        }
                        i++;
                        if (!skipSpace()) {
                            return false;
                        }
                    }
                    if (!skip() || !skipSpace()) {
                        return false;
                    }
                    if (c[i] == ',') {
                        i++;
                        if (!skipSpace()) {
                            return false;
                        }
                    } else if (c[i] == close) {
                        i++;
                        depth--;
                        return true;
                    } else {
                        return false;
                    }
                }
            }
            case '"':
                return string();
            default:
                return scalar() != GIVE_UP;
        }
    }
}
