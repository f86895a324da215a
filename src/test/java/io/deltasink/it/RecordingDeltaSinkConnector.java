package io.deltasink.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkRecord;

import io.deltasink.DeltaSinkConnector;
import io.deltasink.DeltaSinkTask;

/**
 * Test-only: the real connector, whose task also records, per connector and partition, the lowest
 * offset the worker delivered to it since the partition was last opened. A test reads it to see
 * where a (re)started task really began reading: the table's offsets, or something below them.
 * The registry is static because the worker instantiates tasks itself; entries are per connector
 * name, so tests sharing a worker do not see each other's.
 */
public class RecordingDeltaSinkConnector extends DeltaSinkConnector {

    private static final Map<String, Map<TopicPartition, Long>> LOWEST_DELIVERED = new ConcurrentHashMap<>();

    /** Partition -> lowest offset delivered to a task of {@code connector} since the partition was opened. */
    static Map<TopicPartition, Long> lowestDeliveredSinceOpen(String connector) {
        return Map.copyOf(LOWEST_DELIVERED.getOrDefault(connector, Map.of()));
    }

    /**
     * Asserts that since its partitions were last opened, the connector's task was given no record
     * of {@code topic} below {@code tableOffsets} (partition -> the table's txn version when the
     * task was restarted) but the one just before it, i.e. open() positioned the consumer from the
     * table (a position {@code T > 0} is sought at {@code T - 1}: one record the table holds is read
     * again and skipped, so that the worker commits the group's offset).
     */
    static void assertNothingReadBelow(String connector, String topic, Map<Integer, Long> tableOffsets) {
        Map<TopicPartition, Long> lowest = lowestDeliveredSinceOpen(connector);
        for (Map.Entry<Integer, Long> e : tableOffsets.entrySet()) {
            TopicPartition tp = new TopicPartition(topic, e.getKey());
            assertTrue(lowest.containsKey(tp), "no record of " + tp + " was delivered after the restart");
            long sought = e.getValue() > 0 ? e.getValue() - 1 : 0;
            assertTrue(lowest.get(tp) >= sought, "after the restart " + tp + " was read from offset "
                    + lowest.get(tp) + ", below the table's " + e.getValue() + ": open() did not seek from the table");
        }
    }

    @Override
    public Class<? extends Task> taskClass() {
        return RecordingTask.class;
    }

    /** The real task, noting the offsets it is given. */
    public static class RecordingTask extends DeltaSinkTask {
        private Map<TopicPartition, Long> lowest;

        @Override
        public void start(Map<String, String> props) {
            lowest = LOWEST_DELIVERED.computeIfAbsent(props.getOrDefault("name", "unnamed"),
                    c -> new ConcurrentHashMap<>());
            super.start(props);
        }

        @Override
        public void open(Collection<TopicPartition> partitions) {
            partitions.forEach(lowest::remove);
            super.open(partitions);
        }

        @Override
        public void put(Collection<SinkRecord> records) {
            for (SinkRecord r : records) {
                lowest.merge(new TopicPartition(r.topic(), r.kafkaPartition()), r.kafkaOffset(), Math::min);
            }
            super.put(records);
        }
    }
}
