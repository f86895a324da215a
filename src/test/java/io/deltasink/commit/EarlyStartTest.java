package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * The table created or checked ahead of the assignment (TableBatch.startEarly): done while the
 * consumer joins its group, never trusted for positions, and a failure there reported by open()
 * as before.
 */
class EarlyStartTest {
    static final String TOPIC = "sensor-events";
    static final TopicPartition TP0 = new TopicPartition(TOPIC, 0);
    static final String START_THREAD = "delta-start-sensors-";

    @RegisterExtension
    final Sessions sessions = Sessions.of("sensors", Map.of(DeltaSinkConfig.COLUMNS, SinkSessionTest.COLUMNS,
            DeltaSinkConfig.COLUMNS_NOT_NULL, "device_id,device_type",
            DeltaSinkConfig.PARTITION_COLUMNS, "device_type,event_date"));

    private static List<SinkRecord> events(long fromOffset, int count) {
        List<SinkRecord> out = new ArrayList<>();
        for (long o = fromOffset; o < fromOffset + count; o++) {
            out.add(SinkRecords.of(TOPIC, 0, o, SensorEvents.event(o * 10).json()));
        }
        return out;
    }

    private static boolean startThreadAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().startsWith(START_THREAD) && t.isAlive());
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
            Thread.sleep(10);
        }
    }

    private boolean tableExists() {
        return Files.exists(Path.of(sessions.dir().resolve("table").toString(), "_delta_log",
                "00000000000000000000.json"));
    }

    private void assertRowsOnce(int expected) {
        List<Map<String, Object>> rows = DeltaTableReader.readAll(sessions.table());
        Set<Long> offsets = new HashSet<>();
        rows.forEach(r -> assertTrue(offsets.add((Long) r.get("kafka_offset")), "duplicate row " + r));
        assertEquals(expected, rows.size());
    }

    @Test
    void theTableIsCreatedBeforeTheAssignmentOnAThreadThatEnds() throws Exception {
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = sessions.create(ctx);
        await(this::tableExists, "the table is created without open()");
        s.open(List.of(TP0));
        assertFalse(startThreadAlive(), "open() waits for the start thread, which ends");
        assertEquals(0, DeltaTableReader.version(sessions.table()), "open() creates no second version 0");
        assertTrue(ctx.seeks.isEmpty(), "a new table has no positions");
        s.put(events(0, 40));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(40)), s.commit(Map.of()));
        assertRowsOnce(40);
        s.stop();
    }

    @Test
    void positionsCommittedAfterTheEarlyStartAreTheOnesOpenSeeksTo() throws Exception {
        RecordingContext ctx = new RecordingContext(false);
        SinkSession late = sessions.create(ctx);
        await(() -> tableExists() && !startThreadAlive(), "the early start is done");

        // the partition's previous owner commits after our start, before our open (a rebalance)
        SinkSession previous = sessions.create(new RecordingContext(false));
        previous.open(List.of(TP0));
        previous.put(events(0, 50));
        previous.commit(Map.of());
        previous.stop();

        late.open(List.of(TP0));
        assertEquals(Map.of(TP0, 49L), ctx.seeks, "open() reads the table as it is now, not as the early start saw it");
        late.put(events(0, 80)); // redelivered from 0: the first 50 are skipped
        assertEquals(Map.of(TP0, new OffsetAndMetadata(80)), late.commit(Map.of()));
        assertRowsOnce(80);
        late.stop();
    }

    @Test
    void aTableThatAppearsAfterAFailedEarlyStartIsFoundByOpen() throws Exception {
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = sessions.create(ctx, Map.of(DeltaSinkConfig.TABLE_AUTO_CREATE, "false"));
        await(() -> !startThreadAlive(), "the early start found no table");
        assertFalse(tableExists());

        // another writer (an auto-creating task of the same connector) creates the table meanwhile
        SinkSession creator = sessions.create(new RecordingContext(false));
        creator.open(List.of(new TopicPartition(TOPIC, 1)));
        creator.stop();
        assertTrue(tableExists());

        s.open(List.of(TP0));
        s.put(events(0, 30));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(30)), s.commit(Map.of()));
        assertRowsOnce(30);
        s.stop();
    }
}
