package io.deltasink;

import java.time.Clock;
import java.util.Collection;
import java.util.Map;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

import io.deltasink.commit.SinkSession;
import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.BatchClock;
import io.deltasink.maintenance.AutoMaintenance;
import io.deltasink.metrics.PluginMaintenanceMetrics;
import io.deltasink.storage.StorageSettings;

/**
 * The Connect task: lifecycle only. Records are buffered into Parquet files by {@link SinkSession};
 * each offset commit of the worker ({@link #preCommit}) becomes one Delta commit that also stores
 * the Kafka offsets, and the offsets returned are those now in the table. Task 0 also keeps the
 * table compact and vacuumed when configured ({@link AutoMaintenance}, in a thread of its own).
 */
public class DeltaSinkTask extends SinkTask {
    private StorageSettings storage;
    private SinkSession session;
    private AutoMaintenance maintenance;
    /** The time {@code @now} gives: read once per put. */
    private BatchClock processingTime;

    @Override
    public String version() {
        return Version.get();
    }

    @Override
    public void start(Map<String, String> props) {
        DeltaSinkConfig config = new DeltaSinkConfig(props);
        if (config.maintenanceProblem() != null) {
            throw new ConfigException(config.maintenanceProblem());
        }
        if (config.routeProblem() != null) {
            throw new ConfigException(config.routeProblem());
        }
        storage = StorageSettings.from(config);
        Clock clock = Clock.systemUTC();
        processingTime = new BatchClock(clock);
        session = new SinkSession(config, storage, Converters.factory(config, processingTime), context, clock, Thread::sleep,
                Version.engineInfo(config.connectorName()));
        if (AutoMaintenance.elected(config)) {
            maintenance = AutoMaintenance.start(config, storage, PluginMaintenanceMetrics.of(context), clock);
        }
    }

    @Override
    public void open(Collection<TopicPartition> partitions) {
        session.open(partitions);
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        processingTime.tick(); // @now: one time for the records handed over together
        session.put(records);
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        long landed = session.landedCommits();
        Map<TopicPartition, OffsetAndMetadata> offsets = session.commit(currentOffsets);
        if (maintenance != null && session.landedCommits() > landed) {
            maintenance.committed();
        }
        return offsets;
    }

    @Override
    public void close(Collection<TopicPartition> partitions) {
        session.close(partitions);
    }

    @Override
    public void stop() {
        // the worker calls stop() also after a failed start(): either may be missing
        try {
            if (maintenance != null) {
                maintenance.close(); // bounded: a run still going fails once storage is closed below
            }
            if (session != null) {
                session.stop();
            }
        } finally {
            if (storage != null) {
                storage.close(); // the task's S3 file systems: thread pools, HTTP connections
            }
        }
    }
}
