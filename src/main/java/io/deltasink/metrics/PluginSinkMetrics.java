package io.deltasink.metrics;

import java.util.LinkedHashMap;

import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.MeasurableStat;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Metrics registered through the worker's per-task plugin metrics (KIP-877, Kafka 4.1 and later):
 * the worker tags them with connector and task and removes them when the task stops.
 */
public final class PluginSinkMetrics implements SinkMetrics {
    private static final Logger log = LoggerFactory.getLogger(PluginSinkMetrics.class);
    private final Sensor commits;
    private final Sensor rows;
    private final Sensor files;
    private final Sensor commitTime;
    private final Sensor commitAttempts;
    private final Sensor fenced;
    private final Sensor dropped;
    private final Sensor badRecords;
    private final Sensor tombstones;
    private final Sensor belowPosition;

    PluginSinkMetrics(PluginMetrics metrics) {
        commits = sensor(metrics, "delta-commits", "delta-commit-total", "Delta commits made by this task",
                new CumulativeCount());
        rows = sensor(metrics, "delta-rows", "delta-rows-total", "Rows committed to the table", new CumulativeSum());
        files = sensor(metrics, "delta-files", "delta-files-total", "Data files committed to the table",
                new CumulativeSum());
        commitTime = sensor(metrics, "delta-commit-time", "delta-commit-time-ms-avg",
                "Average time of a flush: close files and commit", new Avg());
        commitTime.add(metrics.metricName("delta-commit-time-ms-max", "Longest time of a flush: close files and commit",
                new LinkedHashMap<>()), new Max());
        commitAttempts = sensor(metrics, "delta-commit-attempts", "delta-commit-attempts-max",
                "Most attempts one commit needed (more than 1: other writers committed first)", new Max());
        fenced = sensor(metrics, "delta-fenced", "delta-fenced-total",
                "Batches refused because another writer moved their partitions", new CumulativeCount());
        dropped = sensor(metrics, "delta-dropped", "delta-dropped-batch-total",
                "Batches dropped after storage or commit failures", new CumulativeCount());
        badRecords = sensor(metrics, "delta-bad-records", "delta-bad-record-total",
                "Records that could not be converted", new CumulativeCount());
        tombstones = sensor(metrics, "delta-tombstones", "delta-tombstone-total",
                "Records with a null value that were skipped", new CumulativeCount());
        belowPosition = sensor(metrics, "delta-below-position", "delta-records-below-position-total",
                "Records skipped as already in the table after the partition's log restarted below the table's "
                        + "position (topic created again, log truncated)", new CumulativeCount());
    }

    private static Sensor sensor(PluginMetrics metrics, String sensorName, String metricName, String description,
                                 MeasurableStat stat) {
        Sensor sensor = metrics.addSensor(sensorName);
        sensor.add(metrics.metricName(metricName, description, new LinkedHashMap<>()), stat);
        return sensor;
    }

    /**
     * Plugin metrics of the task, or {@link SinkMetrics#NOOP} on a worker that has none (before Kafka
     * 4.1), which is logged once per task so an operator looking for the metrics learns why.
     */
    public static SinkMetrics of(SinkTaskContext context) {
        PluginMetrics metrics;
        try {
            metrics = context.pluginMetrics();
        } catch (NoSuchMethodError | AbstractMethodError | UnsupportedOperationException e) {
            metrics = null;
        }
        if (metrics == null) {
            log.info("This Connect worker gives tasks no plugin metrics (KIP-877, Kafka 4.1 or later): the "
                    + "connector's delta-* metrics are not registered; its log reports every commit");
            return NOOP;
        }
        return new PluginSinkMetrics(metrics);
    }

    @Override
    public void committed(int fileCount, long rowCount, long millis, int attempts) {
        commits.record();
        rows.record(rowCount);
        files.record(fileCount);
        commitTime.record(millis);
        commitAttempts.record(attempts);
    }

    @Override
    public void fenced() {
        fenced.record();
    }

    @Override
    public void batchDropped() {
        dropped.record();
    }

    @Override
    public void badRecord() {
        badRecords.record();
    }

    @Override
    public void tombstone() {
        tombstones.record();
    }

    @Override
    public void skippedBelowPosition() {
        belowPosition.record();
    }
}
