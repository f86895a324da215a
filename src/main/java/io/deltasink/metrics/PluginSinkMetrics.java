package io.deltasink.metrics;

import java.util.LinkedHashMap;

import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * Metrics registered through the worker's per-task plugin metrics (KIP-877, Kafka 4.1 and later):
 * the worker tags them with connector and task and removes them when the task stops.
 */
public final class PluginSinkMetrics implements SinkMetrics {
    private final Sensor commits;
    private final Sensor rows;
    private final Sensor files;
    private final Sensor commitTime;
    private final Sensor commitAttempts;
    private final Sensor fenced;
    private final Sensor dropped;
    private final Sensor badRecords;
    private final Sensor tombstones;

    PluginSinkMetrics(PluginMetrics metrics) {
        LinkedHashMap<String, String> tags = new LinkedHashMap<>();
        commits = metrics.addSensor("delta-commits");
        commits.add(metrics.metricName("delta-commit-total", "Delta commits made by this task", tags), new CumulativeCount());
        rows = metrics.addSensor("delta-rows");
        rows.add(metrics.metricName("delta-rows-total", "Rows committed to the table", tags), new CumulativeSum());
        files = metrics.addSensor("delta-files");
        files.add(metrics.metricName("delta-files-total", "Data files committed to the table", tags), new CumulativeSum());
        commitTime = metrics.addSensor("delta-commit-time");
        commitTime.add(metrics.metricName("delta-commit-time-ms-avg", "Average time of a flush: close files and commit", tags), new Avg());
        commitTime.add(metrics.metricName("delta-commit-time-ms-max", "Longest time of a flush: close files and commit", tags), new Max());
        commitAttempts = metrics.addSensor("delta-commit-attempts");
        commitAttempts.add(metrics.metricName("delta-commit-attempts-max",
                "Most attempts one commit needed (more than 1: other writers committed first)", tags), new Max());
        fenced = metrics.addSensor("delta-fenced");
        fenced.add(metrics.metricName("delta-fenced-total", "Batches refused because another writer moved their partitions", tags), new CumulativeCount());
        dropped = metrics.addSensor("delta-dropped");
        dropped.add(metrics.metricName("delta-dropped-batch-total", "Batches dropped after storage or commit failures", tags), new CumulativeCount());
        badRecords = metrics.addSensor("delta-bad-records");
        badRecords.add(metrics.metricName("delta-bad-record-total", "Records that could not be converted", tags), new CumulativeCount());
        tombstones = metrics.addSensor("delta-tombstones");
        tombstones.add(metrics.metricName("delta-tombstone-total", "Records with a null value that were skipped", tags), new CumulativeCount());
    }

    /** Plugin metrics of the task, or {@link SinkMetrics#NOOP} on a worker that has none (before Kafka 4.1). */
    public static SinkMetrics of(SinkTaskContext context) {
        try {
            PluginMetrics metrics = context.pluginMetrics();
            return metrics == null ? NOOP : new PluginSinkMetrics(metrics);
        } catch (NoSuchMethodError | AbstractMethodError | UnsupportedOperationException e) {
            return NOOP;
        }
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
}
