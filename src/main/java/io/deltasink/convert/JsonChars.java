package io.deltasink.convert;

import java.math.BigDecimal;

/**
 * The lexical half of {@link JsonScanner}: a cursor over JSON text in a char array that reads
 * strings, numbers and literals as Jackson's parser reads them, skips values checking their
 * grammar, and answers false (or {@link #GIVE_UP}) on whatever it leaves to the parser: control
 * characters and surrogates in strings, escapes other than the standard ones or giving a
 * surrogate, numbers longer than {@value #MAX_NUMBER_CHARS} characters, integers beyond 18 digits,
 * floats {@link JsonNumbers} does not take, nesting deeper than {@value #MAX_DEPTH}.
 */
abstract class JsonChars {
    /** What {@link #scalar} answers for a value left to the parser. */
    static final Object GIVE_UP = new Object();
    static final int MAX_DEPTH = 100;
    static final int MAX_NUMBER_CHARS = 100;
    static final int MAX_STRING_CHARS = 1 << 20;
    /** Well below the parser's limit on names (50,000). */
    static final int MAX_NAME_CHARS = 1000;

    char[] c;
    int i;
    int end;
    int depth;
    /** The last string read (without escapes: its start in {@link #c}; with escapes: decoded in {@link #scratch}). */
    int stringStart;
    int stringLength;
    char[] scratch;
    boolean escaped;

    /** Skips whitespace; false at the end of the text. */
    boolean skipSpace() {
        char[] a = c;
        int n = end;
        for (int k = i; k < n; k++) {
            char ch = a[k];
            if (ch != ' ' && ch != '\n' && ch != '\r' && ch != '\t') {
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
                return escaped ? new String(scratch, 0, stringLength) : new String(c, stringStart, stringLength);
            case 't':
                return literal("true") ? Boolean.TRUE : GIVE_UP;
            case 'f':
                return literal("false") ? Boolean.FALSE : GIVE_UP;
            case 'n':
                return literal("null") ? null : GIVE_UP;
            default:
                return number();
        }
    }

    boolean literal(String word) {
        if (end - i < word.length()) {
            return false;
        }
        for (int k = 0; k < word.length(); k++) {
            if (c[i + k] != word.charAt(k)) {
                return false;
            }
        }
        i += word.length();
        return i == end || !isWordChar(c[i]);
    }

    private static boolean isWordChar(char ch) {
        return ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch == '_' || ch == '$'
                || ch >= 0x80;
    }

    /** A number in JSON's grammar: Integer, Long or BigDecimal as the parser gives them, or GIVE_UP. */
    Object number() {
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
        if (i < end && c[i] == '.') {
            integer = false;
            int at = ++i;
            i = digits(i);
            if (i == at) {
                return GIVE_UP;
            }
        }
        if (i < end && (c[i] == 'e' || c[i] == 'E')) {
            integer = false;
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
        if (!integer) {
            BigDecimal d = JsonNumbers.decimal(c, start, length);
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
        char[] a = c;
        int n = end;
        for (int k = start; k < n; k++) {
            char ch = a[k];
            if (ch == '"') {
                stringStart = start;
                stringLength = k - start;
                escaped = false;
                i = k + 1;
                return stringLength <= MAX_STRING_CHARS;
            }
            if (ch == '\\') {
                i = k;
                return escapedString(start);
            }
            if (ch < 0x20 || ch >= Character.MIN_SURROGATE && ch <= Character.MAX_SURROGATE) {
                i = k;
                return false;
            }
        }
        i = n;
        return false;
    }

    boolean escapedString(int start) {
        int n = i - start;
        if (scratch == null || scratch.length < end - start) {
            scratch = new char[Math.max(64, end - start)];
        }
        char[] c = this.c;
        char[] scratch = this.scratch;
        int end = this.end;
        int i = this.i;
        System.arraycopy(c, start, scratch, 0, n);
        while (i < end) {
            char ch = c[i++];
            if (ch == '"') {
                this.i = i;
                stringLength = n;
                escaped = true;
                return n <= MAX_STRING_CHARS;
            }
            if (ch == '\\') {
                if (i >= end) {
                    return false;
                }
                char e = c[i++];
                switch (e) {
                    case '"': case '\\': case '/':
                        ch = e;
                        break;
                    case 'b': ch = '\b'; break;
                    case 'f': ch = '\f'; break;
                    case 'n': ch = '\n'; break;
                    case 'r': ch = '\r'; break;
                    case 't': ch = '\t'; break;
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
                        ch = (char) code;
                        if (Character.isSurrogate(ch)) {
                            return false;
                        }
                        break;
                    default:
                        return false;
                }
            } else if (ch < 0x20 || ch >= Character.MIN_SURROGATE && ch <= Character.MAX_SURROGATE) {
                return false;
            }
            scratch[n++] = ch;
        }
        return false;
    }

    private static int hex(char ch) {
        return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
    }

    /** Skips the value at {@code i}, checking its grammar. */
    boolean skip() {
        switch (c[i]) {
            case '{':
            case '[': {
                char close = c[i] == '{' ? '}' : ']';
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
                        if (c[i] != '"' || !string() || stringLength > MAX_NAME_CHARS || !skipSpace() || c[i] != ':') {
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
