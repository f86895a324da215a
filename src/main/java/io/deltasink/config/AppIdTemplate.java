package io.deltasink.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The txn appId template ({@code txn.appId.template}): the name under which the table keeps the
 * position of one Kafka partition. It renders appIds, checks that no two Kafka partitions (or
 * two connectors) can ever get the same appId, and recognises appIds that another connector
 * wrote for the same Kafka partition with this template or the default one.
 */
public final class AppIdTemplate {
    public static final String CONNECTOR = "${connector}";
    public static final String TOPIC = "${topic}";
    public static final String PARTITION = "${partition}";
    public static final String DEFAULT = CONNECTOR + "/" + TOPIC + "/" + PARTITION;
    private static final List<String> PLACEHOLDERS = List.of(CONNECTOR, TOPIC, PARTITION);
    /** Characters Kafka allows in topic names; any other character ends a topic name unambiguously. */
    private static final Pattern TOPIC_CHAR = Pattern.compile("[A-Za-z0-9._-]");

    private final String template;

    public AppIdTemplate(String template) {
        this.template = template;
    }

    public String text() {
        return template;
    }

    /** The appId of one Kafka partition for the named connector. */
    public String render(String connector, String topic, int partition) {
        return template.replace(CONNECTOR, connector).replace(TOPIC, topic)
                .replace(PARTITION, Integer.toString(partition));
    }

    /**
     * The connector name encoded in {@code appId} if it is the appId of {@code topic}/{@code partition}
     * under this template or the default one, for some connector; empty otherwise. An appId that
     * matches without naming a connector (a template without ${connector}) gives an empty string.
     */
    public Optional<String> connectorOf(String appId, String topic, int partition) {
        return recogniser(topic, partition).apply(appId);
    }

    /** {@link #connectorOf} for one Kafka partition, its patterns compiled once. */
    public Function<String, Optional<String>> recogniser(String topic, int partition) {
        List<Pattern> patterns = new ArrayList<>();
        for (String t : template.equals(DEFAULT) ? List.of(template) : List.of(template, DEFAULT)) {
            patterns.add(pattern(t, topic, partition));
        }
        return appId -> {
            for (Pattern p : patterns) {
                Matcher m = p.matcher(appId);
                if (m.matches()) {
                    return Optional.of(m.groupCount() > 0 && m.group(1) != null ? m.group(1) : "");
                }
            }
            return Optional.empty();
        };
    }

    private static Pattern pattern(String template, String topic, int partition) {
        StringBuilder regex = new StringBuilder();
        boolean connectorSeen = false;
        for (String token : tokens(template)) {
            switch (token) {
                case CONNECTOR -> {
                    regex.append(connectorSeen ? "\\1" : "(.+)");
                    connectorSeen = true;
                }
                case TOPIC -> regex.append(Pattern.quote(topic));
                case PARTITION -> regex.append(partition);
                default -> regex.append(Pattern.quote(token));
            }
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }

    /** The template split into placeholders and the literal text between them. */
    private static List<String> tokens(String template) {
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < template.length()) {
            int at = template.indexOf("${", i);
            if (at < 0) {
                out.add(template.substring(i));
                break;
            }
            if (at > i) {
                out.add(template.substring(i, at));
            }
            int end = template.indexOf('}', at);
            if (end < 0) {
                out.add(template.substring(at));
                break;
            }
            out.add(template.substring(at, end + 1));
            i = end + 1;
        }
        return out;
    }

    /**
     * What is wrong with a template, naming the offending part; null when it is fine. Beyond
     * known placeholders and the two required ones, the rendered appId must tell every
     * (connector, topic, partition) apart: ${partition} is set apart from the names next to it by
     * a character that is not a digit ({@code ${topic}${partition}} renders t1 + 10 and t11 + 0
     * alike), and ${topic} and ${connector} by a character a topic name cannot contain, such as '/'.
     */
    public static String problem(String template) {
        List<String> tokens = tokens(template);
        for (String token : tokens) {
            if (token.startsWith("${")) {
                if (!token.endsWith("}")) {
                    return "unclosed placeholder '" + token + "': write ${connector}, ${topic} or ${partition}";
                }
                if (!PLACEHOLDERS.contains(token)) {
                    return "unknown placeholder " + token + ": only ${connector}, ${topic} and ${partition} may be "
                            + "used, e.g. " + DEFAULT;
                }
            }
        }
        for (String required : List.of(TOPIC, PARTITION)) {
            if (!tokens.contains(required)) {
                return required + " is missing: the template must contain ${topic} and ${partition} so that each "
                        + "Kafka partition gets its own appId, e.g. " + DEFAULT;
            }
        }
        for (int i = 0; i < tokens.size(); i++) {
            String token = tokens.get(i);
            if (token.equals(PARTITION) && (blurred(tokens, i, -1) || blurred(tokens, i, +1))) {
                return "${partition} must be set apart from ${topic} and ${connector} by a character that is not a "
                        + "digit (e.g. '/'): as written, two different Kafka partitions can get the same appId (topic "
                        + "t1 partition 10 and topic t11 partition 0 both give 't110'), e.g. " + DEFAULT;
            }
            if (token.equals(TOPIC) && (unseparated(tokens, i, -1) || unseparated(tokens, i, +1))) {
                return "${topic} and ${connector} must be separated by a character that cannot be part of a topic "
                        + "name (anything but letters, digits, '.', '_' and '-', e.g. '/'): as written, two "
                        + "connectors can get the same appId, e.g. " + DEFAULT;
            }
        }
        return null;
    }

    /**
     * Whether the digits of the ${partition} at {@code i} can run into a name on side {@code step}:
     * a ${topic} or ${connector} lies that way and the partition's neighbour there is that
     * placeholder itself or text ending (on the partition's side) in a digit. Fixed text alone on
     * that side is harmless: it is the same in every appId.
     */
    private static boolean blurred(List<String> tokens, int i, int step) {
        boolean nameThatWay = false;
        for (int j = i + step; j >= 0 && j < tokens.size(); j += step) {
            nameThatWay |= tokens.get(j).equals(TOPIC) || tokens.get(j).equals(CONNECTOR);
        }
        int j = i + step;
        if (!nameThatWay || j < 0 || j >= tokens.size()) {
            return false;
        }
        String neighbour = tokens.get(j);
        if (neighbour.startsWith("${")) {
            return !neighbour.equals(PARTITION);
        }
        return Character.isDigit(step < 0 ? neighbour.charAt(neighbour.length() - 1) : neighbour.charAt(0));
    }

    /** Whether the ${topic} at {@code i} reaches a ${connector} in direction {@code step} through topic characters only. */
    private static boolean unseparated(List<String> tokens, int i, int step) {
        for (int j = i + step; j >= 0 && j < tokens.size(); j += step) {
            String t = tokens.get(j);
            if (t.equals(CONNECTOR)) {
                return true;
            }
            if (t.startsWith("${")) {
                return false;
            }
            for (int k = 0; k < t.length(); k++) {
                if (!TOPIC_CHAR.matcher(String.valueOf(t.charAt(k))).matches()) {
                    return false;
                }
            }
        }
        return false;
    }
}
