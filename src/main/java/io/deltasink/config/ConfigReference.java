package io.deltasink.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.types.Password;

/**
 * Generates the configuration reference (docs/config-reference.md) from the ConfigDef, so the
 * docs cannot drift from the code: a test fails when the checked-in file is stale.
 * Run: {@code mvn -q compile exec:java -Dexec.classpathScope=compile -Dexec.mainClass=io.deltasink.config.ConfigReference}
 */
public final class ConfigReference {
    public static final String DEFAULT_FILE = "docs/config-reference.md";

    private ConfigReference() {
    }

    public static void main(String[] args) throws IOException {
        Path out = Paths.get(args.length > 0 ? args[0] : DEFAULT_FILE);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, render(), StandardCharsets.UTF_8);
        System.out.println("wrote " + out);
    }

    public static String render() {
        ConfigDef def = DeltaSinkConfig.configDef();
        StringBuilder sb = new StringBuilder();
        sb.append("# Configuration reference\n\n")
                .append("Generated from the connector's ConfigDef by `io.deltasink.config.ConfigReference`; ")
                .append("do not edit by hand.\n\n")
                .append("Besides these keys, the worker's usual connector keys apply (`name`, `connector.class`, ")
                .append("`tasks.max`, `topics`/`topics.regex`, converters, `errors.tolerance`, ")
                .append("`errors.deadletterqueue.topic.name`, ...). With `errors.tolerance=all` bad records go to ")
                .append("the dead letter queue; otherwise a bad record fails the task.\n");
        List<String> groups = new ArrayList<>(def.groups());
        for (String[] prefix : DeltaSinkConfig.PREFIXES) {
            if (!groups.contains(prefix[1])) {
                groups.add(prefix[1]);
            }
        }
        for (String group : groups) {
            sb.append("\n## ").append(group).append("\n\n")
                    .append("| Key | Type | Default | Valid values | Importance | Description |\n")
                    .append("|---|---|---|---|---|---|\n");
            for (ConfigDef.ConfigKey key : def.configKeys().values()) {
                if (!group.equals(key.group)) {
                    continue;
                }
                sb.append("| `").append(key.name).append("` | ").append(key.type.name().toLowerCase())
                        .append(" | ").append(defaultText(key))
                        .append(" | ").append(key.validator == null ? "" : escape(key.validator.toString()))
                        .append(" | ").append(key.importance.name().toLowerCase())
                        .append(" | ").append(escape(key.documentation)).append(" |\n");
            }
            for (String[] prefix : DeltaSinkConfig.PREFIXES) {
                if (group.equals(prefix[1])) {
                    sb.append("| `").append(prefix[0]).append("` | string | | any | medium | ")
                            .append(escape(prefix[2])).append(" |\n");
                }
            }
        }
        return sb.toString();
    }

    private static String defaultText(ConfigDef.ConfigKey key) {
        if (!key.hasDefault()) {
            return "(required)";
        }
        Object v = key.defaultValue;
        if (v == null) {
            return "null";
        }
        if (v instanceof Password p) {
            return p.value() == null || p.value().isEmpty() ? "\"\"" : "[hidden]";
        }
        String s = v instanceof List<?> l ? String.join(",", l.stream().map(Object::toString).toList()) : v.toString();
        return s.isEmpty() ? "\"\"" : "`" + escape(s) + "`";
    }

    private static String escape(String s) {
        return s.replace("|", "\\|").replace("\n", " ");
    }
}
