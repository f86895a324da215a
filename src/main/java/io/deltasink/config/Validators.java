package io.deltasink.config;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** Per-key validators; each toString() says what is valid, for the generated reference. */
final class Validators {
    private Validators() {
    }

    static ConfigDef.Validator oneOf(String... values) {
        List<String> valid = Arrays.asList(values);
        return new ConfigDef.Validator() {
            @Override
            public void ensureValid(String name, Object value) {
                String v = value == null ? null : value.toString().trim().toLowerCase(Locale.ROOT);
                if (!valid.contains(v)) {
                    throw new ConfigException(name, value, "must be one of " + String.join(", ", valid));
                }
            }

            @Override
            public String toString() {
                return "one of " + String.join(", ", valid);
            }
        };
    }

    static final ConfigDef.Validator APP_ID_TEMPLATE = new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
            String v = value == null ? "" : value.toString();
            if (!v.contains("${topic}") || !v.contains("${partition}")) {
                throw new ConfigException(name, value, "must contain ${topic} and ${partition} so that each Kafka "
                        + "partition gets its own appId");
            }
            String rest = v.replace("${topic}", "").replace("${partition}", "").replace("${connector}", "");
            if (rest.contains("${")) {
                throw new ConfigException(name, value, "only ${connector}, ${topic} and ${partition} may be used");
            }
        }

        @Override
        public String toString() {
            return "text with ${topic} and ${partition}, optionally ${connector}";
        }
    };

    static final ConfigDef.Validator COLUMNS = new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
            String v = value == null ? "" : value.toString();
            if (v.trim().isEmpty()) {
                throw new ConfigException(name, value, "must be 'auto' or a list of name:type=source entries");
            }
        }

        @Override
        public String toString() {
            return "'auto' or name:type=source, ...";
        }
    };

}
