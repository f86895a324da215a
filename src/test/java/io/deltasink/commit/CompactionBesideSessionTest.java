package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.maintenance.CompactionOptions;
import io.deltasink.maintenance.CompactionResult;
import io.deltasink.maintenance.Compactor;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.FaultyLogStore;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * A compaction that commits while a session is committing: the session loses the race for the
 * version, sees that its txn versions did not move (a compaction writes none) and commits on the
 * new snapshot: no fencing, no rewind, every row once.
 */
class CompactionBesideSessionTest {
    private static final TopicPartition TP0 = new TopicPartition(SinkSessionTest.TOPIC, 0);

    @RegisterExtension
    final Sessions sessions = Sessions.of("sensors", Map.of(DeltaSinkConfig.COLUMNS, SinkSessionTest.COLUMNS,
            DeltaSinkConfig.COLUMNS_NOT_NULL, "device_id,device_type",
            DeltaSinkConfig.PARTITION_COLUMNS, "device_type,event_date",
            "delta.hadoop." + FaultyLogStore.KEY, FaultyLogStore.class.getName()));

    private static List<SinkRecord> events(long fromOffset, int count) {
        List<SinkRecord> out = new ArrayList<>();
        for (long o = fromOffset; o < fromOffset + count; o++) {
            out.add(SinkRecords.of(SinkSessionTest.TOPIC, 0, o, SensorEvents.event(o).json()));
        }
        return out;
    }

    @Test
    void aCompactionCommittingFirstIsAHarmlessConflictForTheSession() {
        RecordingContext context = new RecordingContext(false);
        SinkSession session = sessions.create(context);
        session.open(List.of(TP0));
        for (int c = 0; c < 3; c++) {
            session.put(events(c * 50L, 50));
            session.commit(Map.of());
        }
        String table = sessions.table();
        long before = DeltaTableReader.version(table);
        List<CompactionResult> compaction = new ArrayList<>();
        Compactor compactor = new Compactor(sessions.storage(new DeltaSinkConfig(sessions.props(Map.of()))),
                Clock.systemUTC());
        FaultyLogStore.beforeNextCommit(table, () -> compaction.add(compactor.run(
                CompactionOptions.defaults().withMinAge(Duration.ZERO).withMinFiles(2))));

        session.put(events(150, 50));
        Map<TopicPartition, OffsetAndMetadata> offsets = session.commit(Map.of());

        assertEquals("committed", compaction.get(0).outcome(), compaction.get(0).toText());
        assertEquals(before + 1, compaction.get(0).version(), "the compaction took the session's version");
        assertEquals(before + 2, DeltaTableReader.version(table), "the session committed on top of it");
        assertEquals(Map.of(TP0, new OffsetAndMetadata(200)), offsets, "not fenced");
        assertTrue(context.seeks.isEmpty(), "no rewind: " + context.seeks);
        assertEquals(Long.valueOf(200), DeltaTableReader.txnVersion(table, "sensors/sensor-events/0").orElseThrow());
        List<Map<String, Object>> rows = DeltaTableReader.readAll(table);
        Set<Object> offsetsInTable = new HashSet<>();
        rows.forEach(r -> assertTrue(offsetsInTable.add(r.get("kafka_offset")), "row twice: " + r));
        assertEquals(200, rows.size());
        session.stop();
    }
}
