package io.deltasink.bench;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;

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

    /** Puts nothing anywhere. */
    public static final class NullTask extends SinkTask {
        @Override
        public String version() {
            return "bench";
        }

        @Override
        public void start(Map<String, String> props) {
        }

        @Override
        public void put(Collection<SinkRecord> records) {
        }

        @Override
        public void stop() {
        }
    }
}
