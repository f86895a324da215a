package io.deltasink.metrics;

import java.util.LinkedHashMap;

import org.apache.kafka.common.metrics.MeasurableStat;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Value;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * The maintenance metrics in the worker's per-task plugin metrics (KIP-877), beside those of
 * {@link PluginSinkMetrics}; only the task that compacts (task 0) registers them.
 */
public final class PluginMaintenanceMetrics implements MaintenanceMetrics {
    private final Sensor files;
    private final Sensor smallFiles;
    private final Sensor compactions;
    private final Sensor filesRemoved;
    private final Sensor bytesRewritten;
    private final Sensor vacuumed;
    private final Sensor lastRun;
    private final Sensor lastRunMs;
    private final Sensor failures;

    PluginMaintenanceMetrics(PluginMetrics metrics) {
        files = sensor(metrics, "delta-table-files", "delta-table-files",
                "Data files in the table after the last maintenance run", new Value());
        smallFiles = sensor(metrics, "delta-table-small-files", "delta-table-small-files",
                "Data files below the compaction's small-file size after the last maintenance run", new Value());
        compactions = sensor(metrics, "delta-compactions", "delta-compaction-total",
                "Compactions committed by this task", new CumulativeCount());
        filesRemoved = sensor(metrics, "delta-compaction-files", "delta-compaction-files-removed-total",
                "Small files replaced by compactions", new CumulativeSum());
        bytesRewritten = sensor(metrics, "delta-compaction-bytes", "delta-compaction-bytes-rewritten-total",
                "Bytes read and rewritten by compactions", new CumulativeSum());
        vacuumed = sensor(metrics, "delta-vacuum-files", "delta-vacuum-files-deleted-total",
                "Files deleted by vacuum", new CumulativeSum());
        lastRun = sensor(metrics, "delta-maintenance-last-run", "delta-maintenance-last-run-timestamp-ms",
                "When the last maintenance run finished (epoch ms)", new Value());
        lastRunMs = sensor(metrics, "delta-maintenance-last-run-time", "delta-maintenance-last-run-time-ms",
                "How long the last maintenance run took", new Value());
        failures = sensor(metrics, "delta-maintenance-failures", "delta-maintenance-failure-total",
                "Compaction or vacuum runs that failed (each logged at WARN); ingestion goes on", new CumulativeCount());
    }

    private static Sensor sensor(PluginMetrics metrics, String sensorName, String metricName, String description,
                                 MeasurableStat stat) {
        Sensor sensor = metrics.addSensor(sensorName);
        sensor.add(metrics.metricName(metricName, description, new LinkedHashMap<>()), stat);
        return sensor;
    }

    /** Plugin metrics of the task, or {@link MaintenanceMetrics#NOOP} on a worker that has none (before Kafka 4.1). */
    public static MaintenanceMetrics of(SinkTaskContext context) {
        try {
            PluginMetrics metrics = context.pluginMetrics();
            return metrics == null ? NOOP : new PluginMaintenanceMetrics(metrics);
        } catch (NoSuchMethodError | AbstractMethodError | UnsupportedOperationException e) {
            return NOOP;
        }
    }

    @Override
    public void tableFiles(long fileCount, long smallFileCount) {
        files.record(fileCount);
        smallFiles.record(smallFileCount);
    }

    @Override
    public void compacted(long removed, long bytes) {
        compactions.record();
        filesRemoved.record(removed);
        bytesRewritten.record(bytes);
    }

    @Override
    public void vacuumed(long filesDeleted) {
        vacuumed.record(filesDeleted);
    }

    @Override
    public void runFinished(long finishedAtMs, long millis) {
        lastRun.record(finishedAtMs);
        lastRunMs.record(millis);
    }

    @Override
    public void runFailed() {
        failures.record();
    }
}
