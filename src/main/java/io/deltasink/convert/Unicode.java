package io.deltasink.convert;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;

/**
 * Text that will be written as UTF-8 must be valid Unicode: no unpaired UTF-16 surrogate (the
 * JSON escape for U+D800 without its pair gives one), and bytes read as text must be UTF-8.
 * Java would silently write '?' or U+FFFD instead, and a file's data and its statistics could
 * then disagree.
 */
final class Unicode {
    private Unicode() {
    }

    /** {@code s} when it is valid UTF-16 (every surrogate paired); otherwise the value is bad. */
    static String valid(String s) throws BadValueException {
        int at = unpaired(s);
        if (at >= 0) {
            throw new BadValueException("text is not valid Unicode: an unpaired UTF-16 surrogate " + escape(s.charAt(at))
                    + " at index " + at + " (e.g. from a JSON escape \\u" + Integer.toHexString(s.charAt(at))
                    + " without its pair) cannot be written as UTF-8");
        }
        return s;
    }

    /** UTF-8 bytes as text; bytes that are not UTF-8 make the value bad. */
    static String utf8(byte[] bytes) throws BadValueException {
        int i = 0;
        while (i < bytes.length && bytes[i] >= 0) {
            i++;
        }
        if (i == bytes.length) {
            return new String(bytes, StandardCharsets.US_ASCII);
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (MalformedInputException e) {
            throw new BadValueException("bytes are not valid UTF-8 (malformed at byte " + malformedAt(bytes) + ")");
        } catch (CharacterCodingException e) {
            throw new BadValueException("bytes are not valid UTF-8");
        }
    }

    private static int malformedAt(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .decode(in, CharBuffer.allocate(bytes.length), true);
        return in.position();
    }

    /** {@code s} with every unpaired surrogate written as an escape (backslash, u, four hex digits), for messages. */
    static String escape(String s) {
        int at = unpaired(s);
        if (at < 0) {
            return s;
        }
        StringBuilder out = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                out.append(c).append(s.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                out.append(escape(c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static String escape(char c) {
        return String.format("\\u%04X", (int) c);
    }

    /** Index of the first unpaired surrogate, or -1. */
    static int unpaired(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    return i;
                }
            }
        }
        return -1;
    }
}
