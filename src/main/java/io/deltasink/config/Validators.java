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
            String problem = AppIdTemplate.problem(value == null ? "" : value.toString());
            if (problem != null) {
                throw new ConfigException(name, value, problem);
            }
        }

        @Override
        public String toString() {
            return "text with ${topic} and ${partition}, optionally ${connector}, each set apart by a separator "
                    + "such as '/'";
        }
    };

    /** A local path or a URI with a scheme (and, for object stores, a bucket). */
    static final ConfigDef.Validator TABLE_LOCATION = new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
            if (value == null) {
                return; // a missing value is reported as missing by ConfigDef
            }
            String v = value.toString().trim();
            if (v.isEmpty()) {
                throw new ConfigException(name, value, "must be a local path or a URI, e.g. /data/delta/events "
                        + "or s3a://bucket/delta/events");
            }
            int scheme = v.indexOf("://");
            if (scheme == 0) {
                throw new ConfigException(name, value, "has no scheme before '://'; write e.g. s3a://bucket/path "
                        + "or file:///data/delta/events");
            }
            if (scheme > 0 && !v.regionMatches(true, 0, "file", 0, scheme)) {
                String rest = v.substring(scheme + 3);
                if (rest.isEmpty() || rest.startsWith("/")) {
                    throw new ConfigException(name, value, "names no bucket or host after '" + v.substring(0, scheme)
                            + "://'; write e.g. " + v.substring(0, scheme) + "://bucket/path");
                }
            }
            int route = v.indexOf(DeltaSinkConfig.ROUTE_VARIABLE);
            if (route >= 0) {
                String root = v.substring(0, route);
                if (v.contains(DeltaSinkConfig.TOPIC_VARIABLE) || route != v.length() - DeltaSinkConfig.ROUTE_VARIABLE.length()
                        || v.substring(0, route).contains("${")) {
                    throw new ConfigException(name, value, DeltaSinkConfig.ROUTE_VARIABLE + " must be the last folder "
                            + "and the only variable, e.g. s3a://bucket/delta/${route}");
                }
                if (!root.endsWith("/") || root.endsWith("://") || (scheme > 0 && root.indexOf('/', scheme + 3) < 0)) {
                    throw new ConfigException(name, value, "must name a folder before " + DeltaSinkConfig.ROUTE_VARIABLE
                            + ", e.g. /data/delta/${route} or s3a://bucket/delta/${route}");
                }
                for (String segment : root.split("/")) {
                    if (segment.equals(".") || segment.equals("..")) {
                        throw new ConfigException(name, value, "may not hold '.' or '..' folders with "
                                + DeltaSinkConfig.ROUTE_VARIABLE + ": every table must stay under the folder before it");
                    }
                }
                return;
            }
            String withoutTopic = v.replace(DeltaSinkConfig.TOPIC_VARIABLE, "t");
            if (withoutTopic.contains("${")) {
                throw new ConfigException(name, value, "may hold only the variable " + DeltaSinkConfig.TOPIC_VARIABLE);
            }
            int topic = v.indexOf(DeltaSinkConfig.TOPIC_VARIABLE);
            if (topic >= 0) {
                String root = v.substring(0, topic);
                if (root.isEmpty() || root.endsWith("://") || (scheme > 0 && root.indexOf('/', scheme + 3) < 0)) {
                    throw new ConfigException(name, value, "must name a folder before " + DeltaSinkConfig.TOPIC_VARIABLE
                            + ", e.g. /data/delta/${topic} or s3a://bucket/delta/${topic}");
                }
                for (String segment : v.split("/")) {
                    if (segment.equals(".") || segment.equals("..")) {
                        throw new ConfigException(name, value, "may not hold '.' or '..' folders with "
                                + DeltaSinkConfig.TOPIC_VARIABLE + ": every table must stay under the folder before it");
                    }
                }
            }
        }

        @Override
        public String toString() {
            return "a local path or a URI such as s3a://bucket/path, optionally with ${topic} for a table per topic or a last "
                    + "folder ${route} for a table per value of table.route.field";
        }
    };

    /** Whether {@code name} is a legal Kafka topic name (so it cannot lead a path out of its folder). */
    static boolean isTopicName(String name) {
        return name != null && !name.isEmpty() && name.length() <= 249 && !name.equals(".") && !name.equals("..")
                && name.chars().allMatch(c -> (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '.' || c == '_' || c == '-');
    }

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
