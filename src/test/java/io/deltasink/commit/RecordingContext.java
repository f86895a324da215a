package io.deltasink.commit;

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

/** A SinkTaskContext that records what the task asked of the worker (seeks, commit requests, bad records). */
final class RecordingContext implements SinkTaskContext {
    final Map<TopicPartition, Long> seeks = new HashMap<>();
    final Set<TopicPartition> assignment = new HashSet<>();
    final List<SinkRecord> reported = new ArrayList<>();
    final List<Throwable> reportedErrors = new ArrayList<>();
    int commitRequests;
    /** Every wait the task asked for with timeout(), in order. */
    final List<Long> timeouts = new ArrayList<>();
    /** The worker's metrics registry as a real worker would hand it out (per-task plugin metrics). */
    final org.apache.kafka.common.metrics.Metrics metrics = new org.apache.kafka.common.metrics.Metrics();
    private final boolean withReporter;

    RecordingContext(boolean withReporter) {
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
    double metric(String name) {
        return metrics.metrics().entrySet().stream().filter(e -> e.getKey().name().equals(name))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .findFirst().orElseThrow(() -> new AssertionError("no metric " + name));
    }
}
