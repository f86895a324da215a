package io.deltasink.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AppIdTemplateTest {
    /** Topic and connector names that make collisions likely: digits at the ends, topic characters as separators. */
    static final List<String> TOPICS = List.of("t", "t1", "t11", "t9", "1", "11", "t-1", "t.1", "t_1", "a-b", "a", "b");
    static final List<String> CONNECTORS = List.of("c", "c1", "c-t", "c.", "c/1", "1", "2c", "1c", "11c", "1_c", "t_1");

    /**
     * The (connector, topic, partition) pairs that render to the same appId, or null if none do. A
     * template without ${connector} gives every connector the same appIds on purpose (they share
     * positions): only one connector is looked at then.
     */
    private static String collision(String template) {
        AppIdTemplate t = new AppIdTemplate(template);
        Map<String, String> seen = new HashMap<>();
        for (String c : template.contains(AppIdTemplate.CONNECTOR) ? CONNECTORS : List.of("c")) {
            for (String topic : TOPICS) {
                for (int p = 0; p <= 100; p++) {
                    String key = c + " | " + topic + " | " + p;
                    String previous = seen.put(t.render(c, topic, p), key);
                    if (previous != null) {
                        return previous + " and " + key + " both give '" + t.render(c, topic, p) + "'";
                    }
                }
            }
        }
        return null;
    }

    @ParameterizedTest
    @ValueSource(strings = {"${topic}${partition}", "${connector}/${topic}${partition}", "${partition}${topic}",
            "${topic}/${partition}${connector}", "${connector}${topic}/${partition}", "${connector}-${topic}/${partition}",
            "${topic}/${partition}1${connector}", "${topic}_${connector}/${partition}", "${topic}9${partition}"})
    void templatesThatCanGiveTwoPartitionsOneAppIdAreRefused(String template) {
        String problem = AppIdTemplate.problem(template);
        assertNotNull(problem, template + " must be refused");
        assertNotNull(collision(template), "the refusal is justified: " + template + " has a collision");
    }

    @ParameterizedTest
    @ValueSource(strings = {AppIdTemplate.DEFAULT, "${topic}/${partition}", "${connector}:${topic}:${partition}",
            "${topic}-${partition}", "lake/${connector}/${topic}.${partition}", "${partition}@${topic}",
            "${connector}/${topic}-p${partition}x", "${topic}/x${partition}1", "${connector}/${topic}/${partition}${partition}"})
    void acceptedTemplatesNeverGiveTwoPartitionsOneAppId(String template) {
        assertNull(AppIdTemplate.problem(template), template);
        assertNull(collision(template), template);
    }

    @Test
    void theIssuesExampleIsRefusedNamingTheCollision() {
        String problem = AppIdTemplate.problem("${topic}${partition}");
        assertTrue(problem.contains("t110"), problem);
    }

    @Test
    void appIdsOfOtherConnectorsForTheSamePartitionAreRecognised() {
        AppIdTemplate template = new AppIdTemplate(AppIdTemplate.DEFAULT);
        assertEquals(Optional.of("old-name"), template.connectorOf("old-name/sensor-events/3", "sensor-events", 3));
        assertEquals(Optional.of("a/b"), template.connectorOf("a/b/sensor-events/3", "sensor-events", 3));
        assertEquals(Optional.empty(), template.connectorOf("old-name/sensor-events/13", "sensor-events", 3));
        assertEquals(Optional.empty(), template.connectorOf("old-name/other/3", "sensor-events", 3));
        // a custom template also recognises the default one (appIds written before the template changed)
        AppIdTemplate custom = new AppIdTemplate("lake:${connector}:${topic}:${partition}");
        assertEquals(Optional.of("x"), custom.connectorOf("lake:x:sensor-events:0", "sensor-events", 0));
        assertEquals(Optional.of("y"), custom.connectorOf("y/sensor-events/0", "sensor-events", 0));
    }
}
