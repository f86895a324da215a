package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.storage.StorageSettings;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.FaultyLogStore;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * A table per topic ({@code ${topic}} in table.location) through the session the way the worker
 * drives a task: each topic's rows land in its own table, which holds the positions of that
 * topic's partitions only; a table whose commit fails (or lands while storage reports a failure)
 * drops only its own batch while the other table's lands; a crash between the two tables' commits,
 * and a rebalance that moves one topic's partition to another task, still leave every
 * (topic, partition, offset) exactly once in the tables.
 */
class TablePerTopicTest {
    /** Polled first (the loop polls partitions in topic order). */
    static final String A = "bulbs";
    static final String B = "plugs";
    static final int PARTITIONS = 2;
    static final int PER_PARTITION = 120;

    @RegisterExtension
    final Sessions sessions = Sessions.of("sensors", Map.of("topics", A + "," + B,
            DeltaSinkConfig.COLUMNS, SinkSessionTest.COLUMNS + ", kafka_topic:string=@topic",
            DeltaSinkConfig.HADOOP_PREFIX + FaultyLogStore.KEY, FaultyLogStore.class.getName()));

    private SinkSession session(RecordingContext context) {
        return sessions.create(context, Map.of(DeltaSinkConfig.TABLE_LOCATION,
                sessions.dir().resolve("tables").toString() + "/${topic}"));
    }

    private String table(String topic) {
        return StorageSettings.normalize(sessions.dir().resolve("tables").resolve(topic).toString());
    }

    private static List<TopicPartition> partitions(String... topics) {
        List<TopicPartition> out = new ArrayList<>();
        for (String topic : topics) {
            for (int p = 0; p < PARTITIONS; p++) {
                out.add(new TopicPartition(topic, p));
            }
        }
        return out;
    }

    private static Map<TopicPartition, List<SinkRecord>> log() {
        Map<TopicPartition, List<SinkRecord>> log = new HashMap<>();
        for (TopicPartition tp : partitions(A, B)) {
            List<SinkRecord> records = new ArrayList<>();
            for (long o = 0; o < PER_PARTITION; o++) {
                records.add(SinkRecords.of(tp.topic(), tp.partition(), o,
                        SensorEvents.event(o * PARTITIONS + tp.partition()).json()));
            }
            log.put(tp, records);
        }
        return log;
    }

    /**
     * Each table holds each offset of its own topic's partitions once and nothing of the other
     * topic, and its txn versions are at the end of its own partitions only.
     */
    private void assertExactlyOnce() {
        for (String topic : List.of(A, B)) {
            String other = topic.equals(A) ? B : A;
            Set<String> seen = new HashSet<>();
            for (Map<String, Object> r : DeltaTableReader.readAll(table(topic))) {
                assertEquals(topic, r.get("kafka_topic"), "a row of another topic in " + topic + "'s table: " + r);
                assertTrue(seen.add(r.get("kafka_partition") + "@" + r.get("kafka_offset")), "duplicate row " + r);
            }
            assertEquals(PARTITIONS * PER_PARTITION, seen.size(), topic);
            for (int p = 0; p < PARTITIONS; p++) {
                assertEquals(Optional.of((long) PER_PARTITION),
                        DeltaTableReader.txnVersion(table(topic), "sensors/" + topic + "/" + p), topic + "/" + p);
                assertEquals(Optional.empty(), DeltaTableReader.txnVersion(table(topic), "sensors/" + other + "/" + p),
                        topic + "'s table holds no position of " + other);
            }
        }
    }

    @Test
    void twoTopicsLandInTwoTablesEachWithItsOwnPositions() {
        RecordingContext ctx = new RecordingContext(false);
        Map<TopicPartition, Long> group = new HashMap<>();
        new WorkerLoop(session(ctx), ctx, log(), group, 50, 3).assign(partitions(A, B)).runToEnd(1000);

        assertExactlyOnce();
        for (TopicPartition tp : partitions(A, B)) {
            assertEquals(Long.valueOf(PER_PARTITION), group.get(tp), "the consumer group follows the tables");
        }
        assertFalse(Files.exists(sessions.dir().resolve("tables").resolve("${topic}")), "no table at the template");
    }

    @ParameterizedTest
    @EnumSource(FaultyLogStore.Fault.class)
    void aTableWhoseCommitFailsDropsOnlyItsOwnBatchWhileTheOtherLands(FaultyLogStore.Fault fault) {
        RecordingContext ctx = new RecordingContext(false);
        Map<TopicPartition, Long> group = new HashMap<>();
        SinkSession session = session(ctx);
        WorkerLoop worker = new WorkerLoop(session, ctx, log(), group, 4 * PER_PARTITION, 1000).assign(partitions(A, B));
        worker.poll(); // every record of both topics in one batch
        FaultyLogStore.arm(table(A), fault);
        Map<TopicPartition, OffsetAndMetadata> provided = session.commit(Map.of());

        assertEquals(0, FaultyLogStore.pending(table(A)), "the fault was injected");
        assertEquals(PARTITIONS * PER_PARTITION, DeltaTableReader.readAll(table(B)).size(), "B's batch landed");
        for (TopicPartition tp : partitions(B)) {
            assertEquals(PER_PARTITION, provided.get(tp).offset(), "B's positions are reported at once");
        }
        if (fault == FaultyLogStore.Fault.LOST_BEFORE_WRITE) {
            assertEquals(0, DeltaTableReader.readAll(table(A)).size(), "A's commit was lost");
            partitions(A).forEach(tp -> assertFalse(provided.containsKey(tp), "no position of A yet: " + tp));
            assertEquals(1.0, ctx.metric("delta-dropped-batch-total"), "only A's batch was dropped");
            assertThrows(RetriableException.class, () -> session.put(List.of()), "the worker waits, then redelivers");
            partitions(A).forEach(tp -> assertEquals(0L, ctx.seeks.get(tp), "A is rewound: " + tp));
            partitions(B).forEach(tp -> assertFalse(ctx.seeks.containsKey(tp), "B is not rewound: " + tp));
        }
        worker.runToEnd(1000);
        assertExactlyOnce();
    }

    @Test
    void aCrashBetweenTheTwoTablesCommitsNeitherLosesNorDoublesARow() {
        RecordingContext ctx = new RecordingContext(false);
        Map<TopicPartition, Long> group = new HashMap<>();
        SinkSession first = session(ctx);
        WorkerLoop worker = new WorkerLoop(first, ctx, log(), group, 100, 1000).assign(partitions(A, B));
        for (int i = 0; i < 3; i++) {
            worker.poll(); // A's records and the first of B's
        }
        // B's commit is lost and the task dies right after A's landed, before the worker commits the group
        FaultyLogStore.arm(table(B), FaultyLogStore.Fault.LOST_BEFORE_WRITE);
        first.commit(Map.of());
        assertTrue(DeltaTableReader.readAll(table(A)).size() > 0, "A landed before the crash");
        assertEquals(0, DeltaTableReader.readAll(table(B)).size(), "B did not");
        assertTrue(group.isEmpty(), "the group never heard of the commit");

        RecordingContext next = new RecordingContext(false);
        new WorkerLoop(session(next), next, log(), group, 100, 3).assign(partitions(A, B)).runToEnd(1000);
        assertExactlyOnce();
    }

    @Test
    void aRebalanceMovingOneTopicsPartitionToAnotherTaskKeepsEveryOffsetOnce() {
        TopicPartition moved = new TopicPartition(A, 1);
        RecordingContext ctx1 = new RecordingContext(false);
        Map<TopicPartition, Long> group = new HashMap<>();
        WorkerLoop task1 = new WorkerLoop(session(ctx1), ctx1, log(), group, 70, 2).assign(partitions(A, B));
        for (int i = 0; i < 3; i++) {
            task1.poll(); // a commit after the 2nd poll; the 3rd poll's rows are uncommitted
        }
        // the worker commits before revoking, so the rows of the last poll land before the partition moves
        task1.revoke(List.of(moved));
        long movedAt = DeltaTableReader.txnVersion(table(A), "sensors/" + A + "/1").orElseThrow();
        assertTrue(movedAt > 0 && movedAt < PER_PARTITION, "moved mid-stream: " + movedAt);

        RecordingContext ctx2 = new RecordingContext(false);
        WorkerLoop task2 = new WorkerLoop(session(ctx2), ctx2, log(), group, 70, 2).assign(List.of(moved));
        task2.runToEnd(1000);
        task1.runToEnd(1000);
        assertExactlyOnce();
    }

    @Test
    void theOffsetsApiWritesEachTopicsPositionsIntoItsOwnTable() {
        RecordingContext ctx = new RecordingContext(false);
        new WorkerLoop(session(ctx), ctx, log(), new HashMap<>(), 100, 3).assign(partitions(A, B)).runToEnd(1000);
        Map<String, String> props = sessions.props(Map.of(DeltaSinkConfig.TABLE_LOCATION,
                sessions.dir().resolve("tables").toString() + "/${topic}"));
        DeltaSinkConfig config = new DeltaSinkConfig(props);
        StorageSettings storage = sessions.storage(config);
        Map<TopicPartition, Long> offsets = new HashMap<>();
        offsets.put(new TopicPartition(A, 0), 7L);
        offsets.put(new TopicPartition(B, 1), null); // a reset

        OffsetsOverride.applyPerTable(config, props, storage, "test-engine", ms -> { }, offsets);

        assertEquals(Optional.of(7L), DeltaTableReader.txnVersion(table(A), "sensors/" + A + "/0"));
        assertEquals(Optional.of(-1L), DeltaTableReader.txnVersion(table(B), "sensors/" + B + "/1"));
        assertEquals(Optional.of((long) PER_PARTITION), DeltaTableReader.txnVersion(table(A), "sensors/" + A + "/1"));
        assertEquals(Optional.of((long) PER_PARTITION), DeltaTableReader.txnVersion(table(B), "sensors/" + B + "/0"));
        assertEquals(Optional.empty(), DeltaTableReader.txnVersion(table(A), "sensors/" + B + "/1"),
                "no position of B in A's table");
        assertEquals(Optional.empty(), DeltaTableReader.txnVersion(table(B), "sensors/" + A + "/0"),
                "no position of A in B's table");

        ConnectException none = assertThrows(ConnectException.class,
                () -> OffsetsOverride.applyPerTable(config, props, storage, "test-engine", ms -> { }, Map.of()));
        assertTrue(none.getMessage().contains("named no partition to reset"), none.getMessage());
    }
}
