package io.deltasink.convert;

import java.io.IOException;
import java.math.BigDecimal;

import com.fasterxml.jackson.core.JsonParser;

/**
 * A JSON float read as the exact {@link BigDecimal} that {@code new BigDecimal(text)} gives (the
 * same unscaled value and scale, so equal by {@code equals} and alike in every coercion after it),
 * without parsing the text twice: up to 18 significant digits become the unscaled long directly.
 * Anything longer, or an exponent of more than 4 digits, is left to the parser's own decimal.
 */
final class JsonNumbers {
    /** Digits a long holds whatever they are. */
    private static final int MAX_DIGITS = 18;
    private static final int MAX_EXPONENT_DIGITS = 4;

    private JsonNumbers() {
    }

    /** The float at the parser's current token ({@code VALUE_NUMBER_FLOAT}) as an exact BigDecimal. */
    static BigDecimal decimal(JsonParser p) throws IOException {
        BigDecimal fast = decimal(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
        return fast != null ? fast : p.getDecimalValue();
    }

    /**
     * The number in {@code chars[off, off + len)} (JSON's grammar: optional minus, digits, optional
     * fraction and exponent), or null when it has more than {@value #MAX_DIGITS} significant digits,
     * an exponent of more than {@value #MAX_EXPONENT_DIGITS} digits, or is not in that form.
     */
    static BigDecimal decimal(char[] chars, int off, int len) {
        int i = off;
        int end = off + len;
        boolean negative = i < end && chars[i] == '-';
        if (negative) {
            i++;
        }
        long unscaled = 0;
        int significant = 0;
        int fraction = 0;
        boolean digits = false;
        boolean point = false;
        for (; i < end; i++) {
            char c = chars[i];
            if (c >= '0' && c <= '9') {
                digits = true;
                if (point) {
                    fraction++;
                }
                if (significant > 0 || c != '0') {
                    if (++significant > MAX_DIGITS) {
                        return null;
                    }
                    unscaled = unscaled * 10 + (c - '0');
                }
            } else if (c == '.' && !point) {
                point = true;
            } else {
                break;
            }
        }
        if (!digits) {
            return null;
        }
        long exponent = 0;
        if (i < end) {
            if (chars[i] != 'e' && chars[i] != 'E') {
                return null;
            }
            i++;
            boolean negativeExponent = i < end && chars[i] == '-';
            if (i < end && (chars[i] == '-' || chars[i] == '+')) {
                i++;
            }
            int start = i;
            for (; i < end; i++) {
                char c = chars[i];
                if (c < '0' || c > '9' || i - start >= MAX_EXPONENT_DIGITS) {
                    return null;
                }
                exponent = exponent * 10 + (c - '0');
            }
            if (i == start) {
                return null;
            }
            if (negativeExponent) {
                exponent = -exponent;
            }
        }
        return BigDecimal.valueOf(negative ? -unscaled : unscaled, Math.toIntExact(fraction - exponent));
    }
}
