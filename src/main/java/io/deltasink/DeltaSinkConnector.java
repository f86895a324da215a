package io.deltasink;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

import io.deltasink.commit.OffsetsOverride;
import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.storage.StorageSettings;

/** Kafka Connect sink connector writing one Delta Lake table, exactly once. */
public class DeltaSinkConnector extends SinkConnector {
    private Map<String, String> props;

    @Override
    public String version() {
        return Version.get();
    }

    @Override
    public void start(Map<String, String> props) {
        new DeltaSinkConfig(props); // fail fast on a bad config
        this.props = new HashMap<>(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return DeltaSinkTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        List<Map<String, String>> configs = new ArrayList<>();
        for (int i = 0; i < maxTasks; i++) {
            Map<String, String> config = new HashMap<>(props);
            config.put(DeltaSinkConfig.TASK_INDEX, Integer.toString(i)); // task 0 compacts and vacuums the table
            configs.add(config);
        }
        return configs;
    }

    @Override
    public void stop() {
    }

    @Override
    public ConfigDef config() {
        return DeltaSinkConfig.configDef();
    }

    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config config = super.validate(connectorConfigs);
        ConnectorValidation.check(connectorConfigs, config);
        return config;
    }

    /**
     * The worker's offsets API (PATCH / DELETE /connectors/&lt;name&gt;/offsets, connector stopped):
     * the offsets live in the table, so they are written there (see {@link OffsetsOverride}) before
     * the worker moves the consumer group. Refuses with a ConnectException, whose message the REST
     * call returns, when that cannot be done safely.
     */
    @Override
    public boolean alterOffsets(Map<String, String> connectorConfig, Map<TopicPartition, Long> offsets) {
        DeltaSinkConfig config = new DeltaSinkConfig(connectorConfig);
        try (StorageSettings storage = StorageSettings.from(config)) {
            OffsetsOverride.applyPerTable(config, connectorConfig, storage, Version.engineInfo(config.connectorName()),
                    Thread::sleep, offsets);
        }
        return true;
    }
}
