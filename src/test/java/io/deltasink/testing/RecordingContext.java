package io.deltasink.testing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;

/** The one SinkTaskContext stub of the tests: records what the task asked of the worker (seeks, commit requests, bad records). */
public final class RecordingContext implements SinkTaskContext {
    public final Map<TopicPartition, Long> seeks = new HashMap<>();
    public final Set<TopicPartition> assignment = new HashSet<>();
    public final List<SinkRecord> reported = new ArrayList<>();
    public final List<Throwable> reportedErrors = new ArrayList<>();
    public int commitRequests;
    /** Every wait the task asked for with timeout(), in order. */
    public final List<Long> timeouts = new ArrayList<>();
    /** The worker's metrics registry as a real worker would hand it out (per-task plugin metrics). */
    public final org.apache.kafka.common.metrics.Metrics metrics = new org.apache.kafka.common.metrics.Metrics();
    private final boolean withReporter;

    public RecordingContext(boolean withReporter) {
        this.withReporter = withReporter;
    }

    @Override
    public Map<String, String> configs() {
        return Map.of();
    }

    @Override
    public void offset(Map<TopicPartition, Long> offsets) {
        seeks.putAll(offsets);
    }

    @Override
    public void offset(TopicPartition tp, long offset) {
        seeks.put(tp, offset);
    }

    @Override
    public void timeout(long timeoutMs) {
        timeouts.add(timeoutMs);
    }

    @Override
    public Set<TopicPartition> assignment() {
        return assignment;
    }

    @Override
    public void pause(TopicPartition... partitions) {
    }

    @Override
    public void resume(TopicPartition... partitions) {
    }

    @Override
    public void requestCommit() {
        commitRequests++;
    }

    @Override
    public ErrantRecordReporter errantRecordReporter() {
        if (!withReporter) {
            return null;
        }
        return new ErrantRecordReporter() {
            @Override
            public Future<Void> report(SinkRecord record, Throwable error) {
                reported.add(record);
                reportedErrors.add(error);
                return CompletableFuture.completedFuture(null);
            }
        };
    }

    @Override
    public PluginMetrics pluginMetrics() {
        return new org.apache.kafka.common.metrics.internals.PluginMetricsImpl(metrics,
                Map.of("connector", "sensors", "task", "0"));
    }

    /** The value of one of the task's plugin metrics, by name. */
    public double metric(String name) {
        return metrics.metrics().entrySet().stream().filter(e -> e.getKey().name().equals(name))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .findFirst().orElseThrow(() -> new AssertionError("no metric " + name));
    }
}
