package io.deltasink.tool;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.config.ConfigData;
import org.apache.kafka.common.config.ConfigTransformer;
import org.apache.kafka.common.config.provider.ConfigProvider;

/**
 * Resolves {@code ${env:NAME}} references in connector settings as a worker with
 * {@code config.providers=env} (Kafka's EnvVarConfigProvider) does, so the shipped presets run
 * as they are. The reference syntax is Kafka's own (ConfigTransformer); the variables come from
 * the environment given, and one that is not set is an error naming it instead of a value left
 * as {@code ${env:...}}. References to other providers are left as they are.
 */
final class EnvReferences {
    private final Map<String, String> environment;

    EnvReferences(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
    }

    Map<String, String> resolve(Map<String, String> settings) {
        ConfigProvider env = new EnvironmentProvider();
        Map<String, String> out = new ConfigTransformer(Map.of("env", env)).transform(settings).data();
        return new HashMap<>(out);
    }

    /** The provider behind {@code ${env:...}}: the environment given, every variable required. */
    private final class EnvironmentProvider implements ConfigProvider {
        @Override
        public ConfigData get(String path) {
            return new ConfigData(environment);
        }

        @Override
        public ConfigData get(String path, Set<String> keys) {
            Map<String, String> found = new HashMap<>();
            for (String key : keys) {
                String value = environment.get(key);
                if (value == null) {
                    throw new UsageException("environment variable " + key + " is not set (the config refers to ${env:"
                            + key + "})");
                }
                found.put(key, value);
            }
            return new ConfigData(found);
        }

        @Override
        public void configure(Map<String, ?> configs) {
        }

        @Override
        public void close() {
        }
    }
}
