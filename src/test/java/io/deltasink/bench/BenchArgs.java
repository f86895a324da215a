package io.deltasink.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Command-line arguments of a benchmark: positional values, and {@code key=value} options whose
 * value may list several choices separated by commas ({@code tasks=1,2,3}). {@link #runs(List)}
 * gives every combination of the listed options, one map per run, the first option varying slowest.
 */
final class BenchArgs {
    private final List<String> positional = new ArrayList<>();
    private final Map<String, List<String>> options = new LinkedHashMap<>();

    private BenchArgs() {
    }

    static BenchArgs parse(String... args) {
        BenchArgs out = new BenchArgs();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq < 0) {
                out.positional.add(arg);
                continue;
            }
            String key = arg.substring(0, eq).trim();
            if (key.isEmpty()) {
                throw new IllegalArgumentException("Option without a name: '" + arg + "'");
            }
            List<String> values = new ArrayList<>();
            for (String v : arg.substring(eq + 1).split(",", -1)) {
                if (v.isBlank()) {
                    throw new IllegalArgumentException("Empty value in '" + arg + "'");
                }
                values.add(v.trim());
            }
            if (out.options.put(key, values) != null) {
                throw new IllegalArgumentException("Option '" + key + "' given twice");
            }
        }
        return out;
    }

    /** {@link #parse(String...)}, refusing any option not in {@code known}. */
    static BenchArgs parse(List<String> known, String... args) {
        BenchArgs out = parse(args);
        List<String> unknown = out.unknown(known);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("Unknown options " + unknown + "; known: " + known);
        }
        return out;
    }

    /** The positional argument at {@code index} as a count (underscores allowed: 1_000_000), else the default. */
    long count(int index, long dflt) {
        return index < positional.size() ? Long.parseLong(positional.get(index).replace("_", "")) : dflt;
    }

    String positional(int index, String dflt) {
        return index < positional.size() ? positional.get(index) : dflt;
    }

    /** The single value of an option, else the default; refuses a list. */
    String single(String key, String dflt) {
        List<String> v = options.get(key);
        if (v == null) {
            return dflt;
        }
        if (v.size() != 1) {
            throw new IllegalArgumentException("Option '" + key + "' takes one value: " + v);
        }
        return v.get(0);
    }

    /** The values of an option, else those of {@code dflt} (comma-separated). */
    List<String> list(String key, String dflt) {
        return options.getOrDefault(key, List.of(dflt.split(",")));
    }

    /** The options not in {@code known}; a benchmark refuses them rather than ignore a typo. */
    List<String> unknown(List<String> known) {
        List<String> out = new ArrayList<>(options.keySet());
        out.removeAll(known);
        return out;
    }

    /**
     * Every combination of the values of {@code keys} (each with its default when not given), in
     * the order of {@code keys}, the last varying fastest.
     */
    List<Map<String, String>> runs(Map<String, String> keysAndDefaults) {
        List<Map<String, String>> out = new ArrayList<>();
        out.add(new LinkedHashMap<>());
        for (Map.Entry<String, String> key : keysAndDefaults.entrySet()) {
            List<String> values = options.getOrDefault(key.getKey(), List.of(key.getValue()));
            List<Map<String, String>> next = new ArrayList<>();
            for (Map<String, String> run : out) {
                for (String value : values) {
                    Map<String, String> copy = new LinkedHashMap<>(run);
                    copy.put(key.getKey(), value);
                    next.add(copy);
                }
            }
            out = next;
        }
        return out;
    }
}
