package io.deltasink.commit;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

import org.apache.kafka.common.TopicPartition;

import io.deltasink.config.AppIdTemplate;

/**
 * Who keeps positions of a Kafka partition in the table besides this connector. Another appId for
 * the same Kafka partition (this connector under an earlier name, or a second connector writing
 * the same topic into the same table) means that both would write every record: refused, unless
 * the other connector is named in {@code txn.adopt.connectors}, whose position is then taken over.
 * Pure: decides from the table's txn versions, no I/O.
 */
final class Ownership {

    /** What to do with one Kafka partition. */
    sealed interface Claim permits Own, Adopt, Refuse {
    }

    /** No other appId holds a position of the partition. */
    record Own() implements Claim {
    }

    /**
     * Continue from the position another appId (of an adopted connector) holds, and retire that
     * appId in the first commit.
     *
     * @param appId      the other connector's appId
     * @param version    its position, where this connector resumes
     * @param ownVersion what the table holds under this connector's own appId (empty, or a reset)
     */
    record Adopt(String appId, long version, Optional<Long> ownVersion) implements Claim {
    }

    /** Other appIds hold positions of the partition: appId -> version. */
    record Refuse(Map<String, Long> others) implements Claim {
    }

    private final AppIdTemplate template;
    private final String connector;
    private final List<String> adoptable;

    Ownership(AppIdTemplate template, String connector, List<String> adoptable) {
        this.template = template;
        this.connector = connector;
        this.adoptable = List.copyOf(adoptable);
    }

    /**
     * @param tp         the Kafka partition
     * @param ownVersion the table's version under this connector's appId for it (if any)
     * @param txn        every appId the table holds with its version
     */
    Claim claim(TopicPartition tp, Optional<Long> ownVersion, Map<String, Long> txn) {
        String own = template.render(connector, tp.topic(), tp.partition());
        Map<String, Long> others = new TreeMap<>();
        Map<String, Long> adoptableOthers = new TreeMap<>();
        Function<String, Optional<String>> connectorOf = template.recogniser(tp.topic(), tp.partition());
        for (Map.Entry<String, Long> e : txn.entrySet()) {
            if (e.getKey().equals(own) || !PartitionPositions.isPosition(e.getValue())) {
                continue; // retired (-1) or reset appIds keep no position
            }
            Optional<String> name = connectorOf.apply(e.getKey());
            if (name.isEmpty()) {
                continue;
            }
            others.put(e.getKey(), e.getValue());
            if (adoptable.contains(name.get())) {
                adoptableOthers.put(e.getKey(), e.getValue());
            }
        }
        if (others.isEmpty()) {
            return new Own();
        }
        boolean ownPosition = ownVersion.filter(PartitionPositions::isPosition).isPresent();
        if (!ownPosition && adoptableOthers.size() == 1 && others.size() == 1) {
            Map.Entry<String, Long> adopted = adoptableOthers.entrySet().iterator().next();
            return new Adopt(adopted.getKey(), adopted.getValue(), ownVersion);
        }
        return new Refuse(others);
    }

    /** The connector names behind appIds, for messages ("" when an appId names none). */
    String connectorsOf(TopicPartition tp, Iterable<String> appIds) {
        Set<String> names = new TreeSet<>();
        Function<String, Optional<String>> connectorOf = template.recogniser(tp.topic(), tp.partition());
        for (String id : appIds) {
            connectorOf.apply(id).filter(n -> !n.isEmpty()).ifPresent(names::add);
        }
        return String.join(",", names);
    }
}
