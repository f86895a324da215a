package io.deltasink.tool;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;

import io.deltasink.config.DeltaSinkConfig;

/**
 * The credential values of a run, blanked out of everything the command prints. The connector's
 * own code never puts them in a message, but an error from a library (S3A, the AWS SDK, a parser)
 * can quote what it was given; the command's output is the last place to stop that. Credentials
 * are the PASSWORD keys of the connector's config and pass-through Hadoop keys that name a secret.
 */
final class Secrets {
    static final String HIDDEN = "[hidden]";
    private static final List<String> SECRET_WORDS = List.of("secret", "password", "access.key", "token", "credential");

    private final List<String> values;

    private Secrets(List<String> values) {
        this.values = values;
    }

    static Secrets none() {
        return new Secrets(List.of());
    }

    static Secrets in(Map<String, String> settings) {
        Map<String, ConfigDef.ConfigKey> keys = DeltaSinkConfig.configDef().configKeys();
        List<String> found = new ArrayList<>();
        settings.forEach((key, value) -> {
            ConfigDef.ConfigKey def = keys.get(key);
            boolean secret = def != null ? def.type == ConfigDef.Type.PASSWORD : looksSecret(key);
            if (secret && value != null && !value.isBlank()) {
                found.add(value.trim());
            }
        });
        found.sort(Comparator.comparingInt(String::length).reversed());
        return new Secrets(List.copyOf(found));
    }

    /** {@code text} with every credential value replaced by [hidden]. */
    String blank(String text) {
        String out = text;
        for (String value : values) {
            out = out.replace(value, HIDDEN);
        }
        return out;
    }

    private static boolean looksSecret(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        return k.startsWith(DeltaSinkConfig.HADOOP_PREFIX) && SECRET_WORDS.stream().anyMatch(k::contains);
    }
}
