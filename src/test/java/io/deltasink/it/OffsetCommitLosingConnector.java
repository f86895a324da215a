package io.deltasink.it;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkRecord;

import io.deltasink.DeltaSinkConnector;
import io.deltasink.DeltaSinkTask;

/**
 * Test-only: the real connector, except that its task hands the worker no offsets to commit.
 * Every Delta commit lands, no consumer-group commit ever does: the situation "the worker stopped
 * after a Delta commit and before Connect's offset commit", made permanent.
 *
 * <p>The task also records, per connector and partition, the lowest offset the worker delivered
 * since the partition was last opened, so a test can see where a restarted task really started
 * reading. The registry is static because the worker instantiates tasks itself.
 */
public class OffsetCommitLosingConnector extends DeltaSinkConnector {

    private static final Map<String, Map<TopicPartition, Long>> LOWEST_DELIVERED = new ConcurrentHashMap<>();

    /** Partition -> lowest offset delivered to a task of {@code connector} since the partition was opened. */
    static Map<TopicPartition, Long> lowestDeliveredSinceOpen(String connector) {
        return Map.copyOf(LOWEST_DELIVERED.getOrDefault(connector, Map.of()));
    }

    @Override
    public Class<? extends Task> taskClass() {
        return LosingTask.class;
    }

    /** The real task; only the offsets it returns to the worker are withheld. */
    public static class LosingTask extends DeltaSinkTask {
        private String connector;

        @Override
        public void start(Map<String, String> props) {
            connector = props.getOrDefault("name", "unnamed");
            super.start(props);
        }

        @Override
        public void open(Collection<TopicPartition> partitions) {
            Map<TopicPartition, Long> lowest = LOWEST_DELIVERED.computeIfAbsent(connector, c -> new ConcurrentHashMap<>());
            partitions.forEach(lowest::remove);
            super.open(partitions);
        }

        @Override
        public void put(Collection<SinkRecord> records) {
            Map<TopicPartition, Long> lowest = LOWEST_DELIVERED.computeIfAbsent(connector, c -> new ConcurrentHashMap<>());
            for (SinkRecord r : records) {
                lowest.merge(new TopicPartition(r.topic(), r.kafkaPartition()), r.kafkaOffset(), Math::min);
            }
            super.put(records);
        }

        @Override
        public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
            super.preCommit(currentOffsets); // the Delta commit happens here
            return Map.of(); // ... and the worker commits nothing to the consumer group
        }
    }
}
