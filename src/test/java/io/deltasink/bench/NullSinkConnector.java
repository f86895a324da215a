package io.deltasink.bench;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * A sink that drops every record: what a worker's consumer and Connect's per-record work cost on
 * their own, for {@link WorkerCeilingBench}. Its task keeps no state, so the offsets the worker
 * commits are simply those of the records it handed over.
 */
public final class NullSinkConnector extends SinkConnector {
    private Map<String, String> props = Map.of();

    @Override
    public void start(Map<String, String> props) {
        this.props = Map.copyOf(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return NullTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return Collections.nCopies(maxTasks, props);
    }

    @Override
    public void stop() {
    }

    @Override
    public ConfigDef config() {
        return new ConfigDef();
    }

    @Override
    public String version() {
        return "bench";
    }

    /**
     * Puts nothing anywhere. Once drained it asks for the offset commit as the Delta sink's task does
     * ({@code commit.EarlyCommit}: a short poll after records, a commit on the empty poll that follows),
     * so the two benchmarks end alike instead of this one waiting for the worker's flush timer.
     */
    public static final class NullTask extends SinkTask {
        /** The Delta sink's short poll (commit.EarlyCommit's). */
        private static final long SHORT_POLL_MS = 100;
        private boolean recordsSinceCommit;

        @Override
        public String version() {
            return "bench";
        }

        @Override
        public void start(Map<String, String> props) {
        }

        @Override
        public void put(Collection<SinkRecord> records) {
            if (!records.isEmpty()) {
                recordsSinceCommit = true;
                context.timeout(SHORT_POLL_MS);
            } else if (recordsSinceCommit) {
                context.requestCommit();
            }
        }

        @Override
        public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
            recordsSinceCommit = false;
            return offsets;
        }

        @Override
        public void stop() {
        }
    }
}
