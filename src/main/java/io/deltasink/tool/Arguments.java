package io.deltasink.tool;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The parsed command line: {@code <command> [--option value | --option=value | --flag]...}.
 * Which options a command takes is declared here, so a misspelt one is an error rather than
 * silently ignored (a vacuum with a mistyped --dry-run would delete).
 *
 * @param command  inspect, optimize or vacuum; null with --help alone
 * @param values   the options given with a value, by name (--set collected in {@code sets})
 * @param flags    the flags given
 * @param sets     the --set key=value pairs, in order
 */
record Arguments(String command, Map<String, String> values, Set<String> flags, List<String> sets) {

    static final String TABLE = "--table";
    static final String CONFIG = "--config";
    static final String SET = "--set";
    static final String JSON = "--json";
    static final String VERBOSE = "--verbose";
    static final String HELP = "--help";
    static final String DRY_RUN = "--dry-run";
    static final String FORCE = "--force";
    static final String RETENTION = "--retention";
    static final String BOOTSTRAP_SERVERS = "--bootstrap-servers";
    static final String SMALL_FILE_SIZE = "--small-file-size";
    static final String LAST_COMMITS = "--last-commits";
    static final String TARGET_FILE_SIZE = "--target-file-size";
    static final String MIN_FILES = "--min-files";
    static final String MAX_BYTES = "--max-bytes";
    static final String MIN_AGE = "--min-age";
    static final String COMPRESSION = "--compression";

    private static final Set<String> COMMON_VALUES = Set.of(TABLE, CONFIG, SET);
    private static final Set<String> COMMON_FLAGS = Set.of(JSON, VERBOSE, HELP);
    private static final Map<String, Set<String>> COMMAND_VALUES = Map.of(
            "inspect", Set.of(BOOTSTRAP_SERVERS, SMALL_FILE_SIZE, LAST_COMMITS),
            "optimize", Set.of(TARGET_FILE_SIZE, SMALL_FILE_SIZE, MIN_FILES, MAX_BYTES, MIN_AGE, COMPRESSION),
            "vacuum", Set.of(RETENTION));
    private static final Map<String, Set<String>> COMMAND_FLAGS = Map.of(
            "inspect", Set.of(),
            "optimize", Set.of(DRY_RUN),
            "vacuum", Set.of(DRY_RUN, FORCE));

    static Arguments parse(String... args) {
        String command = null;
        Map<String, String> values = new LinkedHashMap<>();
        Set<String> flags = new LinkedHashSet<>();
        List<String> sets = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                if (command != null) {
                    throw new UsageException("unexpected argument '" + arg + "'");
                }
                if (!COMMAND_VALUES.containsKey(arg)) {
                    throw new UsageException("unknown command '" + arg + "': use inspect, optimize or vacuum");
                }
                command = arg;
                continue;
            }
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg : arg.substring(0, eq);
            if (takesValue(command, name)) {
                String value;
                if (eq >= 0) {
                    value = arg.substring(eq + 1);
                } else if (i + 1 < args.length) {
                    value = args[++i];
                } else {
                    throw new UsageException(name + " needs a value");
                }
                if (SET.equals(name)) {
                    sets.add(value);
                } else if (values.putIfAbsent(name, value) != null) {
                    throw new UsageException(name + " is given twice");
                }
            } else if (isFlag(command, name)) {
                if (eq >= 0) {
                    throw new UsageException(name + " takes no value");
                }
                flags.add(name);
            } else {
                throw new UsageException("unknown option " + name
                        + (command == null ? " (options follow the command)" : " for " + command));
            }
        }
        if (command == null && !flags.contains(HELP)) {
            throw new UsageException("no command: use inspect, optimize or vacuum");
        }
        Arguments parsed = new Arguments(command, Map.copyOf(values), Set.copyOf(flags), List.copyOf(sets));
        if (command != null && !parsed.help() && !values.containsKey(TABLE) && !values.containsKey(CONFIG)) {
            throw new UsageException(command + " needs --table <location> or --config <file>");
        }
        return parsed;
    }

    boolean help() {
        return flags.contains(HELP);
    }

    boolean json() {
        return flags.contains(JSON);
    }

    boolean verbose() {
        return flags.contains(VERBOSE);
    }

    boolean flag(String name) {
        return flags.contains(name);
    }

    String value(String name) {
        return values.get(name);
    }

    private static boolean takesValue(String command, String name) {
        return COMMON_VALUES.contains(name) || command != null && COMMAND_VALUES.get(command).contains(name);
    }

    private static boolean isFlag(String command, String name) {
        return COMMON_FLAGS.contains(name) || command != null && COMMAND_FLAGS.get(command).contains(name);
    }
}
