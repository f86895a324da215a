package io.deltasink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SinkRecords;

/**
 * {@code @now} through the task: one time for all records of a {@code put()}, read when the put
 * began; the next put reads the clock again.
 */
class ProcessingTimeTest {
    private static final TopicPartition TP = new TopicPartition("events", 0);

    @TempDir
    Path dir;

    private static List<SinkRecord> records(long from, int count) {
        List<SinkRecord> out = new ArrayList<>();
        for (long o = from; o < from + count; o++) {
            out.add(SinkRecords.of(TP.topic(), TP.partition(), o, "{\"id\":" + o + "}"));
        }
        return out;
    }

    @Test
    void everyRecordOfAPutGetsTheTimeThePutBegan() throws InterruptedException {
        String table = dir.resolve("events").toString();
        Map<String, String> props = new HashMap<>();
        props.put("name", "now-per-put");
        props.put(DeltaSinkConfig.TABLE_LOCATION, table);
        props.put(DeltaSinkConfig.COLUMNS, "id:long=id, processed_at:timestamp=@now");
        DeltaSinkTask task = new DeltaSinkTask();
        task.initialize(new RecordingContext(false));
        task.start(props);
        List<Instant[]> windows = new ArrayList<>();
        try {
            task.open(Set.of(TP));
            for (int put = 0; put < 3; put++) {
                Thread.sleep(3); // puts far enough apart for the clock to move
                Instant before = Instant.now();
                task.put(records(put * 300L, 300));
                windows.add(new Instant[] {before, Instant.now()});
            }
            task.preCommit(Map.of());
            task.close(Set.of(TP));
        } finally {
            task.stop();
        }
        Map<Long, Instant> byId = new TreeMap<>();
        for (Map<String, Object> row : DeltaTableReader.readAll(table)) {
            byId.put((Long) row.get("id"), (Instant) row.get("processed_at"));
        }
        assertEquals(900, byId.size());
        Instant previous = null;
        for (int put = 0; put < 3; put++) {
            Instant time = byId.get(put * 300L);
            for (long id = put * 300L; id < put * 300L + 300; id++) {
                assertEquals(time, byId.get(id), "record " + id + " of put " + put);
            }
            Instant[] window = windows.get(put);
            assertTrue(!time.isBefore(window[0].minusNanos(1_000)) && !time.isAfter(window[1]),
                    "put " + put + " at " + time + ", called between " + window[0] + " and " + window[1]);
            assertTrue(previous == null || time.isAfter(previous), "put " + put + " at " + time + " after " + previous);
            previous = time;
        }
    }
}
