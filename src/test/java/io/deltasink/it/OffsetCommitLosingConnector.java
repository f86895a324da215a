package io.deltasink.it;

import java.util.Map;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.connector.Task;

/**
 * Test-only: the real connector (recording delivered offsets like {@link RecordingDeltaSinkConnector}),
 * except that its task hands the worker no offsets to commit. Every Delta commit lands, no
 * consumer-group commit ever does: the situation "the worker stopped after a Delta commit and
 * before Connect's offset commit", made permanent.
 */
public class OffsetCommitLosingConnector extends RecordingDeltaSinkConnector {

    @Override
    public Class<? extends Task> taskClass() {
        return LosingTask.class;
    }

    /** The real task; only the offsets it returns to the worker are withheld. */
    public static class LosingTask extends RecordingTask {
        @Override
        public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
            super.preCommit(currentOffsets); // the Delta commit happens here
            return Map.of(); // ... and the worker commits nothing to the consumer group
        }
    }
}
