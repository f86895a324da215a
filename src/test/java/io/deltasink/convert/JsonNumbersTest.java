package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.math.BigDecimal;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** The fast float reading against {@code new BigDecimal(text)}: the same unscaled value and scale, or no answer. */
class JsonNumbersTest {

    @Test
    void givesTheDecimalOfTheTextExactly() {
        for (String text : List.of("80.1", "229.10", "0.345", "-12.000", "1e5", "1E+5", "1e-5", "2.5E-3", "-0.0",
                "0.0000", "0e0", "1.", "1e400", "-1e400", "1e-400", "5e-324", "4.9e-324", "2.2250738585072011e-308", "3.4e39", "1.0e-500",
                "123456789012345678", "-999999999999999999", "0.000000000000000000000123456789012345678",
                "1750000000123.5", "92233720368547758.5")) {
            assertSame(text);
        }
    }

    @Test
    void leavesLongNumbersAndExponentsToTheParser() {
        for (String text : List.of("1234567890123456789", "0.1000000000000000000000000000000000000001",
                "-9223372036854775808.0", "1e10000", "1e-99999", "NaN", "-", "e5", "1e",
                "1e+", "1.5x")) {
            assertNull(JsonNumbers.decimal(text.toCharArray(), 0, text.length()), text);
        }
    }

    @Test
    void randomNumbersGiveTheSameDecimal() {
        Random random = new Random(10);
        for (int n = 0; n < 100_000; n++) {
            StringBuilder sb = new StringBuilder();
            if (random.nextBoolean()) {
                sb.append('-');
            }
            int whole = random.nextInt(10);
            sb.append(whole == 0 ? "0" : String.valueOf(1 + random.nextInt(9)));
            for (int i = 1; i < whole; i++) {
                sb.append(random.nextInt(10));
            }
            if (random.nextInt(4) > 0) {
                sb.append('.');
                for (int i = random.nextInt(12); i >= 0; i--) {
                    sb.append(random.nextInt(10));
                }
            }
            if (random.nextInt(3) == 0) {
                sb.append(random.nextBoolean() ? 'e' : 'E').append(List.of("", "+", "-").get(random.nextInt(3)))
                        .append(random.nextInt(400));
            }
            String text = sb.toString();
            BigDecimal fast = JsonNumbers.decimal(text.toCharArray(), 0, text.length());
            if (fast != null) {
                assertEquals(new BigDecimal(text), fast, text);
                assertEquals(new BigDecimal(text).scale(), fast.scale(), text);
            } else {
                assertEquals(true, text.split("[eE]")[0].replaceAll("[^0-9]", "").replaceFirst("^0+", "").length() > 18, text);
            }
        }
    }

    private static void assertSame(String text) {
        char[] padded = ("[" + text + ",").toCharArray();
        BigDecimal fast = JsonNumbers.decimal(padded, 1, text.length());
        BigDecimal exact = new BigDecimal(text);
        assertEquals(exact, fast, text);
        assertEquals(exact.scale(), fast.scale(), text);
        assertEquals(exact.doubleValue(), fast.doubleValue(), text);
        assertEquals(exact.toString(), fast.toString(), text);
    }
}
