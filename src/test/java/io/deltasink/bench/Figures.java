package io.deltasink.bench;

import java.util.Locale;

/** How the benchmarks print a series of figures. */
final class Figures {
    private Figures() {
    }

    /** The values, each formatted with {@code format} (Locale.ROOT), separated by " / ". */
    static String joined(String format, double... values) {
        StringBuilder out = new StringBuilder();
        for (double value : values) {
            out.append(out.length() == 0 ? "" : " / ").append(String.format(Locale.ROOT, format, value));
        }
        return out.toString();
    }
}
