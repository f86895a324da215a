package io.deltasink.tool;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

import io.deltasink.DeltaSinkTask;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * Test fixture: a table as the connector leaves it after some offset commits, written through
 * {@link DeltaSinkTask} with the given connector settings: each commit adds one small file per
 * table partition (smart_plug and door_window on one day), the small-file problem the command fixes.
 */
final class SmallFilesTable {
    static final String TOPIC = "sensor-events";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    private SmallFilesTable() {
    }

    /** {@code commits} commits of {@code rowsPerCommit} events each; returns the rows written. */
    static long write(Map<String, String> connectorSettings, int commits, int rowsPerCommit) {
        DeltaSinkTask task = new DeltaSinkTask();
        task.initialize(new RecordingContext(false));
        task.start(connectorSettings);
        try {
            task.open(List.of(TP));
            long offset = 0;
            for (int c = 0; c < commits; c++) {
                List<SinkRecord> records = new ArrayList<>();
                for (int i = 0; i < rowsPerCommit; i++, offset++) {
                    records.add(SinkRecords.of(TOPIC, 0, offset, SensorEvents.event(offset).json()));
                }
                task.put(records);
                Map<TopicPartition, OffsetAndMetadata> committed = task.preCommit(Map.of());
                if (committed.get(TP) == null || committed.get(TP).offset() != offset) {
                    throw new IllegalStateException("commit " + c + " did not reach offset " + offset + ": " + committed);
                }
            }
            task.close(List.of(TP));
            return offset;
        } finally {
            task.stop();
        }
    }

    /**
     * One commit of events at offsets {@code [0, n)} of each partition {@code p -> n} of {@code topic},
     * so that the table's position of each is {@code n}.
     */
    static void writeUpTo(Map<String, String> connectorSettings, String topic, Map<Integer, Long> positions) {
        DeltaSinkTask task = new DeltaSinkTask();
        task.initialize(new RecordingContext(false));
        task.start(connectorSettings);
        try {
            List<TopicPartition> partitions = positions.keySet().stream().map(p -> new TopicPartition(topic, p)).toList();
            task.open(partitions);
            List<SinkRecord> records = new ArrayList<>();
            positions.forEach((p, n) -> {
                for (long o = 0; o < n; o++) {
                    records.add(SinkRecords.of(topic, p, o, SensorEvents.event(o).json()));
                }
            });
            task.put(records);
            Map<TopicPartition, OffsetAndMetadata> committed = task.preCommit(Map.of());
            positions.forEach((p, n) -> {
                OffsetAndMetadata at = committed.get(new TopicPartition(topic, p));
                if (at == null || at.offset() != n) {
                    throw new IllegalStateException("partition " + p + " did not reach offset " + n + ": " + committed);
                }
            });
            task.close(partitions);
        } finally {
            task.stop();
        }
    }
}
