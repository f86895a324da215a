package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.deltasink.config.AppIdTemplate;
import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * The table knows who writes it: another connector's positions of the same Kafka partitions
 * (a renamed connector, a second connector on the same table) stop the task unless it was told
 * to take them over, and taking over retires the old appIds.
 */
class OwnershipTest {
    static final String TOPIC = SinkSessionTest.TOPIC;
    static final TopicPartition TP0 = SinkSessionTest.TP0;
    static final TopicPartition TP1 = SinkSessionTest.TP1;

    @RegisterExtension
    final Sessions sessions = Sessions.of("sensors", Map.of("topics", TOPIC, DeltaSinkConfig.COLUMNS, SinkSessionTest.COLUMNS,
            DeltaSinkConfig.PARTITION_COLUMNS, "device_type,event_date"));

    /** A session of the connector named {@code name}. */
    private SinkSession session(String name, RecordingContext ctx, Map<String, String> extra) {
        Map<String, String> settings = new HashMap<>(extra);
        settings.put(DeltaSinkConfig.CONNECTOR_NAME, name);
        return sessions.create(ctx, settings);
    }

    private String table() {
        return sessions.table();
    }

    private static Map<TopicPartition, List<SinkRecord>> topic(int perPartition) {
        Map<TopicPartition, List<SinkRecord>> log = new HashMap<>();
        for (TopicPartition tp : List.of(TP0, TP1)) {
            List<SinkRecord> records = new ArrayList<>();
            for (long o = 0; o < perPartition; o++) {
                records.add(SinkRecords.of(TOPIC, tp.partition(), o, SensorEvents.event(o * 2 + tp.partition()).json()));
            }
            log.put(tp, records);
        }
        return log;
    }

    private Set<String> rowsOnce() {
        Set<String> seen = new HashSet<>();
        for (Map<String, Object> r : DeltaTableReader.readAll(table())) {
            assertTrue(seen.add(r.get("kafka_partition") + "@" + r.get("kafka_offset")), "duplicate row " + r);
        }
        return seen;
    }

    /** The connector "old" writes the first 30 records of each partition. */
    private Map<TopicPartition, List<SinkRecord>> oldConnectorWrote30() {
        Map<TopicPartition, List<SinkRecord>> log = topic(30);
        RecordingContext ctx = new RecordingContext(false);
        new WorkerLoop(session("old", ctx, Map.of()), ctx, log, new HashMap<>(), 100, 1).assign(List.of(TP0, TP1))
                .runToEnd(50);
        return log;
    }

    @Test
    void aRenamedConnectorRefusesToWriteEveryRecordAgain() {
        oldConnectorWrote30();
        long version = DeltaTableReader.version(table());
        SinkSession renamed = session("new", new RecordingContext(false), Map.of());
        ConnectException e = assertThrows(ConnectException.class, () -> renamed.open(List.of(TP0, TP1)));
        assertTrue(e.getMessage().contains("old/sensor-events/0") && e.getMessage().contains("old/sensor-events/1"),
                e.getMessage());
        assertTrue(e.getMessage().contains("txn.adopt.connectors=old"), e.getMessage());
        assertThrows(ConnectException.class, () -> renamed.put(topic(30).get(TP0)), "the task stays failed");
        assertEquals(version, DeltaTableReader.version(table()), "nothing was written");
    }

    @Test
    void aSecondConnectorOnTheSameTableIsRefusedToo() {
        oldConnectorWrote30();
        // a second connector that already wrote one partition of its own before the first one showed up
        RecordingContext ctx = new RecordingContext(false);
        SinkSession second = session("second", ctx, Map.of());
        ConnectException e = assertThrows(ConnectException.class, () -> second.open(List.of(TP1)));
        assertTrue(e.getMessage().contains("old/sensor-events/1"), e.getMessage());
    }

    @Test
    void adoptingTheOldNameContinuesFromItsPositionsAndRetiresItsAppIds() {
        Map<TopicPartition, List<SinkRecord>> log = oldConnectorWrote30();
        Map<TopicPartition, List<SinkRecord>> more = topic(50); // 20 more records per partition arrived
        log.putAll(more);
        RecordingContext ctx = new RecordingContext(false);
        new WorkerLoop(session("new", ctx, Map.of(DeltaSinkConfig.TXN_ADOPT_CONNECTORS, "old")), ctx, log,
                new HashMap<>(), 100, 1).assign(List.of(TP0, TP1)).runToEnd(50);

        assertEquals(100, rowsOnce().size(), "each of the 50 + 50 records once");
        for (int p = 0; p < 2; p++) {
            assertEquals(Optional.of(50L), DeltaTableReader.txnVersion(table(), "new/sensor-events/" + p));
            assertEquals(Optional.of(-1L), DeltaTableReader.txnVersion(table(), "old/sensor-events/" + p),
                    "the old appId is retired");
        }
        // restarted without the setting: the old appIds keep no position, nothing to refuse
        RecordingContext again = new RecordingContext(false);
        session("new", again, Map.of()).open(List.of(TP0, TP1));
        assertEquals(Map.of(TP0, 49L, TP1, 49L), again.seeks);
    }

    @Test
    void theOldConnectorStillRunningIsFencedAfterTheTakeOver() {
        Map<TopicPartition, List<SinkRecord>> log = oldConnectorWrote30();
        RecordingContext zombieCtx = new RecordingContext(false);
        SinkSession zombie = session("old", zombieCtx, Map.of());
        zombie.open(List.of(TP0)); // still running, at position 30

        RecordingContext ctx = new RecordingContext(false);
        log.putAll(topic(40));
        new WorkerLoop(session("new", ctx, Map.of(DeltaSinkConfig.TXN_ADOPT_CONNECTORS, "old")), ctx, log,
                new HashMap<>(), 100, 1).assign(List.of(TP0, TP1)).runToEnd(50);

        zombie.put(log.get(TP0).subList(30, 40));
        zombie.commit(Map.of());
        assertEquals(1.0, zombieCtx.metric("delta-fenced-total"), "the old connector's commit is fenced");
        assertEquals(80, rowsOnce().size());
    }

    @Test
    void theNewConnectorStopsWhenTheOldOneCommitsAfterTheTakeOverStarted() {
        Map<TopicPartition, List<SinkRecord>> log = oldConnectorWrote30();
        log.putAll(topic(40));
        RecordingContext ctx = new RecordingContext(false);
        SinkSession adopter = session("new", ctx, Map.of(DeltaSinkConfig.TXN_ADOPT_CONNECTORS, "old"));
        adopter.open(List.of(TP0));
        adopter.put(log.get(TP0).subList(30, 40));

        SinkSession old = session("old", new RecordingContext(false), Map.of());
        old.open(List.of(TP0));
        old.put(log.get(TP0).subList(30, 35));
        old.commit(Map.of()); // the old connector was not stopped

        adopter.commit(Map.of());
        ConnectException e = assertThrows(ConnectException.class, () -> adopter.put(List.of()));
        assertTrue(e.getMessage().contains("old/sensor-events/0") && e.getMessage().contains("still runs"),
                e.getMessage());
        assertEquals(65, rowsOnce().size(),
                "30 + 30 by the old connector, then its 5 more; the adopter's batch was dropped");
    }

    @Test
    void claimsDecideFromTheTablesAppIdsAlone() {
        Ownership ownership = new Ownership(new AppIdTemplate(AppIdTemplate.DEFAULT), "new", List.of("old"));
        assertInstanceOf(Ownership.Own.class, ownership.claim(TP0, Optional.empty(), Map.of("new/sensor-events/0", 5L,
                "old/sensor-events/10", 3L, "old/other-topic/0", 3L)));
        assertInstanceOf(Ownership.Own.class, ownership.claim(TP0, Optional.empty(),
                Map.of("old/sensor-events/0", -1L)), "a retired appId keeps no position");
        assertEquals(new Ownership.Adopt("old/sensor-events/0", 7L, Optional.empty()),
                ownership.claim(TP0, Optional.empty(), Map.of("old/sensor-events/0", 7L)));
        assertEquals(new Ownership.Adopt("old/sensor-events/0", 7L, Optional.of(-1L)),
                ownership.claim(TP0, Optional.of(-1L), Map.of("old/sensor-events/0", 7L)), "after a reset of ours");
        assertEquals(new Ownership.Refuse(Map.of("old/sensor-events/0", 7L)),
                ownership.claim(TP0, Optional.of(9L), Map.of("old/sensor-events/0", 7L, "new/sensor-events/0", 9L)),
                "both hold positions: someone still writes");
        assertEquals(new Ownership.Refuse(Map.of("other/sensor-events/0", 7L)),
                ownership.claim(TP0, Optional.empty(), Map.of("other/sensor-events/0", 7L)), "not adopted");
        assertInstanceOf(Ownership.Refuse.class, ownership.claim(TP0, Optional.empty(),
                Map.of("old/sensor-events/0", 7L, "older/sensor-events/0", 3L)));
    }
}
