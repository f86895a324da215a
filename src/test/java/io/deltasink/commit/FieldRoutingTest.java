package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.storage.StorageSettings;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.FaultyLogStore;
import io.deltasink.testing.ListingFaults;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * Routing by a field value ({@code ${route}} in table.location, table.route.field=device_type):
 * one Kafka partition feeds three tables. Each table holds the positions of the partitions that fed
 * it; a record is new for a table by that table's position; the consumer is sought to the lowest
 * position over the tables and the worker told the lowest one. A table's commit failing while two
 * land, a crash after any subset of a round's commits (including the first commit of a table that
 * appears mid-stream), and a restart whose consumer group was moved to the end all leave each
 * (topic, partition, offset) exactly once across the tables.
 */
class FieldRoutingTest {
    static final String TOPIC = "events";
    static final int PARTITIONS = 2;
    static final int PER_PARTITION = 150;
    /** Device types, the third one first seen at offset {@link #LATE}; their folder names below. */
    static final List<String> TYPES = List.of("bulbs", "Plugs", "door.window");
    static final List<String> FOLDERS = List.of("bulbs", "~50lugs", "door~2Ewindow");
    static final long LATE = 60;

    @RegisterExtension
    final Sessions sessions = Sessions.of("sensors", Map.of("topics", TOPIC,
            DeltaSinkConfig.COLUMNS, SinkSessionTest.COLUMNS,
            DeltaSinkConfig.TABLE_ROUTE_FIELD, "device_type",
            DeltaSinkConfig.HADOOP_PREFIX + FaultyLogStore.KEY, FaultyLogStore.class.getName()));

    private SinkSession session(RecordingContext context) {
        return sessions.create(context, Map.of(DeltaSinkConfig.TABLE_LOCATION, root() + "/${route}"));
    }

    private String root() {
        return sessions.dir().resolve("tables").toString();
    }

    private String table(int type) {
        return StorageSettings.normalize(root() + "/" + FOLDERS.get(type));
    }

    private static List<TopicPartition> partitions() {
        List<TopicPartition> out = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            out.add(new TopicPartition(TOPIC, p));
        }
        return out;
    }

    /** The type of a record: the third type only from offset LATE on. */
    static int typeOf(long offset) {
        return offset < LATE ? (int) (offset % 2) : (int) (offset % 3);
    }

    private static Map<TopicPartition, List<SinkRecord>> log() {
        Map<TopicPartition, List<SinkRecord>> log = new HashMap<>();
        for (TopicPartition tp : partitions()) {
            List<SinkRecord> records = new ArrayList<>();
            for (long o = 0; o < PER_PARTITION; o++) {
                records.add(SinkRecords.of(tp.topic(), tp.partition(), o,
                        SensorEvents.event(o * PARTITIONS + tp.partition(), SensorEvents.DAY, TYPES.get(typeOf(o))).json()));
            }
            log.put(tp, records);
        }
        return log;
    }

    /** Each (partition, offset) once across the three tables, each row in the table of its type. */
    private void assertExactlyOnce() {
        Set<String> seen = new HashSet<>();
        for (int type = 0; type < TYPES.size(); type++) {
            for (Map<String, Object> r : DeltaTableReader.readAll(table(type))) {
                assertEquals(TYPES.get(type), r.get("device_type"), "a row in the wrong table: " + r);
                long offset = ((Number) r.get("kafka_offset")).longValue();
                assertEquals(type, typeOf(offset), "row of offset " + offset);
                assertTrue(seen.add(r.get("kafka_partition") + "@" + offset), "duplicate row " + r);
            }
        }
        assertEquals(PARTITIONS * PER_PARTITION, seen.size(), "every offset of every partition");
    }

    @Test
    void onePartitionFeedsThreeTablesEachHoldingItsPositions() {
        RecordingContext ctx = new RecordingContext(false);
        Map<TopicPartition, Long> group = new HashMap<>();
        new WorkerLoop(session(ctx), ctx, log(), group, 50, 2).assign(partitions()).runToEnd(1000);

        assertExactlyOnce();
        for (int type = 0; type < TYPES.size(); type++) {
            for (int p = 0; p < PARTITIONS; p++) {
                Optional<Long> v = DeltaTableReader.txnVersion(table(type), "sensors/" + TOPIC + "/" + p);
                assertTrue(v.isPresent(), "table " + type + " holds the position of partition " + p);
            }
        }
        for (TopicPartition tp : partitions()) {
            assertEquals(Long.valueOf(PER_PARTITION), group.get(tp),
                    "the group reaches the end: tables that got nothing lately are moved up (idle tables)");
        }
        assertFalse(Files.exists(sessions.dir().resolve("tables").resolve("${route}")), "no table at the template");
    }

    @ParameterizedTest
    @EnumSource(FaultyLogStore.Fault.class)
    void oneTablesCommitFailingWhileTwoLandKeepsEveryOffsetOnce(FaultyLogStore.Fault fault) {
        RecordingContext ctx = new RecordingContext(false);
        Map<TopicPartition, Long> group = new HashMap<>();
        SinkSession session = session(ctx);
        WorkerLoop worker = new WorkerLoop(session, ctx, log(), group, 2 * PER_PARTITION, 1000).assign(partitions());
        worker.poll(); // every record in one batch
        FaultyLogStore.arm(table(1), fault);
        var provided = session.commit(Map.of());

        assertEquals(0, FaultyLogStore.pending(table(1)), "the fault was injected");
        assertTrue(DeltaTableReader.readAll(table(0)).size() > 0, "table 0 landed");
        assertTrue(DeltaTableReader.readAll(table(2)).size() > 0, "table 2 landed");
        if (fault == FaultyLogStore.Fault.LOST_BEFORE_WRITE) {
            assertEquals(0, DeltaTableReader.readAll(table(1)).size(), "table 1's commit was lost");
            for (TopicPartition tp : partitions()) {
                assertEquals(1, provided.get(tp).offset(), "the worker is told the lowest position (table 1's claim)");
            }
        }
        worker.runToEnd(1000);
        assertExactlyOnce();
    }

    /**
     * The task dies after some of a round's commits landed, the others not (here: lost), before the
     * worker commits the group; the round holds the first records of the third type.
     */
    @ParameterizedTest
    @ValueSource(strings = {"2", "1,2", "0,1,2", "0", "0,2", "1"})
    void aCrashAfterAnyOfARoundsCommitsNeitherLosesNorDoublesARow(String lost) {
        RecordingContext ctx = new RecordingContext(false);
        Map<TopicPartition, Long> group = new HashMap<>();
        SinkSession first = session(ctx);
        WorkerLoop worker = new WorkerLoop(first, ctx, log(), group, 80, 1000).assign(partitions());
        worker.poll(); // partition 0 up to 80, the first records of type 2 among them
        worker.commit();
        worker.poll(); // partition 0's rest and partition 1's first records
        for (String t : lost.split(",")) {
            FaultyLogStore.arm(table(Integer.parseInt(t)), FaultyLogStore.Fault.LOST_BEFORE_WRITE);
        }
        first.commit(Map.of()); // the worker dies before it commits the group
        first.stop();

        RecordingContext next = new RecordingContext(false);
        new WorkerLoop(session(next), next, log(), group, 70, 3).assign(partitions()).runToEnd(1000);
        assertExactlyOnce();
    }

    @Test
    void aRestartWhoseGroupWasMovedToTheEndResumesFromTheTables() {
        RecordingContext ctx = new RecordingContext(false);
        Map<TopicPartition, Long> group = new HashMap<>();
        SinkSession first = session(ctx);
        WorkerLoop worker = new WorkerLoop(first, ctx, log(), group, 100, 1000).assign(partitions());
        worker.poll();
        worker.commit();
        worker.poll();
        FaultyLogStore.arm(table(2), FaultyLogStore.Fault.LOST_BEFORE_WRITE); // a crash before table 2's commit
        first.commit(Map.of());
        first.stop();
        partitions().forEach(tp -> group.put(tp, (long) PER_PARTITION)); // group lost, reset to latest

        RecordingContext next = new RecordingContext(false);
        SinkSession second = session(next);
        WorkerLoop again = new WorkerLoop(second, next, log(), group, 70, 3).assign(partitions());
        again.runToEnd(1000);
        assertExactlyOnce();
    }

    @Test
    void aRebalanceMovingOnePartitionToAnotherTaskKeepsEveryOffsetOnce() {
        TopicPartition moved = new TopicPartition(TOPIC, 1);
        RecordingContext ctx1 = new RecordingContext(false);
        Map<TopicPartition, Long> group = new HashMap<>();
        WorkerLoop task1 = new WorkerLoop(session(ctx1), ctx1, log(), group, 70, 2).assign(partitions());
        for (int i = 0; i < 3; i++) {
            task1.poll();
        }
        task1.revoke(List.of(moved));

        RecordingContext ctx2 = new RecordingContext(false);
        WorkerLoop task2 = new WorkerLoop(session(ctx2), ctx2, log(), group, 70, 2).assign(List.of(moved));
        task2.runToEnd(1000);
        task1.runToEnd(1000);
        assertExactlyOnce();
    }

    /**
     * The root cannot be listed when the partitions are assigned after a crash (table 2's commit
     * lost, the group moved to the end): open() does not throw, the first put() lists the root
     * before it takes any record, finds the tables and rewinds to table 2's claim. Without that
     * listing table 2's rows would be lost (the consumer stays at the end).
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void aListingFailingInOpenIsDoneByPutBeforeAnyRecord(int failures) {
        RecordingContext ctx = new RecordingContext(false);
        Map<TopicPartition, Long> group = new HashMap<>();
        SinkSession first = listingSession(ctx);
        WorkerLoop worker = new WorkerLoop(first, ctx, log(), group, 100, 1000).assign(partitions());
        worker.poll();
        worker.commit();
        worker.poll();
        FaultyLogStore.arm(table(2), FaultyLogStore.Fault.LOST_BEFORE_WRITE);
        first.commit(Map.of());
        first.stop();
        partitions().forEach(tp -> group.put(tp, PER_PARTITION - 10L)); // the group moved past table 2's claim
        Map<Integer, Long> versions = new HashMap<>();
        for (int type = 0; type < TYPES.size(); type++) {
            versions.put(type, DeltaTableReader.version(table(type)));
        }

        ListingFaults.arm(root(), failures);
        RecordingContext next = new RecordingContext(false);
        SinkSession second = listingSession(next);
        WorkerLoop again = new WorkerLoop(second, next, log(), group, 70, 1000).assign(partitions());
        assertEquals(failures - 1, ListingFaults.pending(root()), "open() listed once, without throwing");
        assertTrue(next.seeks.isEmpty(), "no seek before the tables are known: " + next.seeks);
        for (int i = 1; i < failures; i++) {
            again.poll();
            assertEquals(i, again.retriable, "the listing fails in put() too: the worker waits and delivers again");
            assertTrue(next.seeks.isEmpty(), "no seek while the tables are unknown: " + next.seeks);
            assertTrue(second.commit(Map.of()).isEmpty(), "no position to report while the tables are unknown");
        }
        again.poll(); // lists, places every partition in every table, skips the records ahead of the rewind
        assertEquals(failures - 1, again.retriable);
        assertEquals(0, ListingFaults.pending(root()));
        second.commit(Map.of());
        for (int type = 0; type < TYPES.size(); type++) {
            assertEquals(versions.get(type), DeltaTableReader.version(table(type)), "no record taken before the rewind");
        }
        for (TopicPartition tp : partitions()) {
            assertTrue(next.seeks.getOrDefault(tp, Long.MAX_VALUE) < PER_PARTITION - 10,
                    "rewound to the lowest position over the tables: " + next.seeks);
        }
        again.runToEnd(1000);
        assertExactlyOnce();
    }

    private SinkSession listingSession(RecordingContext context) {
        return sessions.create(context, Map.of(DeltaSinkConfig.TABLE_LOCATION, root() + "/${route}",
                DeltaSinkConfig.HADOOP_PREFIX + ListingFaults.KEY, ListingFaults.class.getName()));
    }

    /**
     * A bad record (no route value) is the last record of a partition: every table is moved past
     * it, and a restart seeks one record early, to it. It was reported once; it is not reported again.
     * Records below every table delivered again (a tombstone among them) are neither reported nor
     * counted, nor fail the task when tombstones now fail it.
     */
    @Test
    void aBadRecordBelowEveryTablesPositionIsNotReportedTwice() {
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        List<SinkRecord> records = new ArrayList<>();
        for (long o = 0; o < 9; o++) {
            records.add(SinkRecords.of(TOPIC, 0, o, SensorEvents.event(o, SensorEvents.DAY, TYPES.get(typeOf(o))).json()));
        }
        records.add(new SinkRecord(TOPIC, 0, null, null, null, null, 9)); // a tombstone
        records.add(SinkRecords.of(TOPIC, 0, 10, "{\"device_id\": \"d\"}"));
        Map<TopicPartition, List<SinkRecord>> log = Map.of(tp, records);
        Map<TopicPartition, Long> group = new HashMap<>();
        Map<String, String> tolerant = Map.of(DeltaSinkConfig.TABLE_LOCATION, root() + "/${route}",
                DeltaSinkConfig.ERRORS_TOLERANCE, "all");
        RecordingContext ctx = new RecordingContext(true);
        SinkSession first = sessions.create(ctx, tolerant);
        new WorkerLoop(first, ctx, log, group, 100, 1).assign(List.of(tp)).runToEnd(100);
        first.stop();
        assertEquals(1, ctx.reported.size(), "reported once");
        assertEquals(1, first.tombstones());
        for (int type = 0; type < 2; type++) {
            assertEquals(Optional.of(11L), DeltaTableReader.txnVersion(table(type), "sensors/" + TOPIC + "/0"),
                    "every table moved past the bad record and the tombstone");
        }

        RecordingContext next = new RecordingContext(true);
        SinkSession second = sessions.create(next, tolerant);
        WorkerLoop again = new WorkerLoop(second, next, log, group, 100, 1).assign(List.of(tp));
        again.runToEnd(100);
        assertEquals(0, next.reported.size(), "the record sought one early is not reported again");
        RecordingContext third = new RecordingContext(true);
        SinkSession last = sessions.create(third, Map.of(DeltaSinkConfig.TABLE_LOCATION, root() + "/${route}",
                DeltaSinkConfig.ERRORS_TOLERANCE, "all", DeltaSinkConfig.NULL_VALUE_BEHAVIOR, "fail"));
        third.assignment.add(tp);
        last.open(List.of(tp));
        last.put(records); // from offset 0 (a rewind): nothing reported, the tombstone does not fail the task
        assertEquals(0, third.reported.size());
        assertEquals(0, last.tombstones(), "nor counted again");
        assertEquals(9, DeltaTableReader.readAll(table(0)).size() + DeltaTableReader.readAll(table(1)).size());
    }

    /**
     * A bad record at or past one table's position (that table's commit was lost) comes again from
     * that lower position: it is reported again (the DLQ is at least once), never dropped.
     */
    @Test
    void aBadRecordAboveOneTablesPositionIsReportedAgain() {
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        List<SinkRecord> records = new ArrayList<>();
        for (long o = 0; o < 4; o++) {
            records.add(o == 2 ? SinkRecords.of(TOPIC, 0, o, "{\"device_id\": \"d\"}")
                    : SinkRecords.of(TOPIC, 0, o, SensorEvents.event(o, SensorEvents.DAY, TYPES.get(typeOf(o))).json()));
        }
        Map<String, String> tolerant = Map.of(DeltaSinkConfig.TABLE_LOCATION, root() + "/${route}",
                DeltaSinkConfig.ERRORS_TOLERANCE, "all");
        RecordingContext ctx = new RecordingContext(true);
        SinkSession first = sessions.create(ctx, tolerant);
        ctx.assignment.add(tp);
        first.open(List.of(tp));
        first.put(records);
        FaultyLogStore.arm(table(1), FaultyLogStore.Fault.LOST_BEFORE_WRITE);
        first.commit(Map.of());
        first.stop();
        assertEquals(1, ctx.reported.size());
        assertEquals(Optional.of(1L), DeltaTableReader.txnVersion(table(1), "sensors/" + TOPIC + "/0"), "the claim");

        RecordingContext next = new RecordingContext(true);
        WorkerLoop again = new WorkerLoop(sessions.create(next, tolerant), next, Map.of(tp, records), new HashMap<>(),
                100, 1).assign(List.of(tp));
        again.runToEnd(100);
        assertEquals(1, next.reported.size(), "reported again from table 1's position");
        assertEquals(1, DeltaTableReader.readAll(table(0)).size(), "offset 0 once");
        assertEquals(2, DeltaTableReader.readAll(table(1)).size(), "offsets 1 and 3 once");
    }

    @Test
    void theOffsetsApiIsRefusedAndChangesNothing() {
        RecordingContext ctx = new RecordingContext(false);
        new WorkerLoop(session(ctx), ctx, log(), new HashMap<>(), 100, 3).assign(partitions()).runToEnd(1000);
        Map<String, String> props = sessions.props(Map.of(DeltaSinkConfig.TABLE_LOCATION, root() + "/${route}"));
        DeltaSinkConfig config = new DeltaSinkConfig(props);
        StorageSettings storage = sessions.storage(config);
        long before = DeltaTableReader.version(table(0));
        ConnectException refused = assertThrows(ConnectException.class, () -> OffsetsOverride.applyPerTable(config,
                props, storage, "test-engine", ms -> { }, Map.of(new TopicPartition(TOPIC, 0), 5L)));
        assertTrue(refused.getMessage().contains("Nothing was changed"), refused.getMessage());
        assertEquals(before, DeltaTableReader.version(table(0)));
        assertEquals(Optional.of((long) PER_PARTITION), DeltaTableReader.txnVersion(table(0), "sensors/" + TOPIC + "/0"));
    }

    @Test
    void badRouteValuesAreBadRecordsAndNoPathLeavesTheRoot() {
        RecordingContext ctx = new RecordingContext(true);
        SinkSession session = sessions.create(ctx, Map.of(DeltaSinkConfig.TABLE_LOCATION, root() + "/${route}",
                DeltaSinkConfig.ERRORS_TOLERANCE, "all", DeltaSinkConfig.COLUMNS_NOT_NULL, "device_id"));
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        ctx.assignment.add(tp);
        session.open(List.of(tp));
        String longType = "x".repeat(RouteField.MAX_FOLDER_CHARS + 1);
        List<SinkRecord> records = List.of(
                SinkRecords.of(TOPIC, 0, 0, "{\"device_id\": \"d\", \"device_type\": null}"),
                SinkRecords.of(TOPIC, 0, 1, "{\"device_id\": \"d\", \"device_type\": \"\"}"),
                SinkRecords.of(TOPIC, 0, 2, "{\"device_id\": \"d\"}"),
                SinkRecords.of(TOPIC, 0, 3, "{\"device_id\": \"d\", \"device_type\": \"" + longType + "\"}"),
                SinkRecords.of(TOPIC, 0, 4, "{\"device_id\": \"d\", \"device_type\": \"..\"}"),
                SinkRecords.of(TOPIC, 0, 5, "{\"device_id\": \"d\", \"device_type\": \"../../escape\"}"),
                SinkRecords.of(TOPIC, 0, 6, "{\"device_id\": \"d\", \"device_type\": \"a/b\"}"));
        session.put(records);
        session.commit(Map.of());

        assertEquals(4, ctx.reported.size(), "null, empty, missing and too long are bad records");
        assertTrue(ctx.reportedErrors.get(0).getMessage().contains("table.route.field 'device_type'"),
                ctx.reportedErrors.get(0).getMessage());
        Path tables = sessions.dir().resolve("tables");
        assertEquals(Set.of("~2E~2E", "~2E~2E~2F~2E~2E~2Fescape", "a~2Fb"), folders(tables));
        assertFalse(Files.exists(sessions.dir().resolve("escape")), "nothing outside the root");
        assertEquals(1, DeltaTableReader.readAll(StorageSettings.normalize(tables.resolve("~2E~2E").toString())).size());
    }

    @Test
    void folderNamesKeepLowerCaseLettersDigitsAndEscapeTheRest() {
        assertEquals("smart_plug-2", RouteField.folderName("smart_plug-2"));
        assertEquals("~50lugs", RouteField.folderName("Plugs"));
        assertEquals("pl~C3~BCg", RouteField.folderName("plüg"));
        assertEquals("50~25", RouteField.folderName("50%"));
        assertEquals("~7E", RouteField.folderName("~"));
        assertTrue(RouteField.isFolderName("pl~C3~BCg"));
        assertFalse(RouteField.isFolderName("Plugs"));
        assertFalse(RouteField.isFolderName(".."));
    }

    @Test
    void routeNeedsItsFieldAndMustBeTheLastFolder() {
        Map<String, String> base = sessions.props(Map.of());
        Map<String, String> p = new HashMap<>(base);
        p.put(DeltaSinkConfig.TABLE_LOCATION, "s3a://b/delta/${route}/x");
        assertThrows(ConfigException.class, () -> new DeltaSinkConfig(p));
        p.put(DeltaSinkConfig.TABLE_LOCATION, "s3a://b/../${route}");
        assertThrows(ConfigException.class, () -> new DeltaSinkConfig(p));
        p.put(DeltaSinkConfig.TABLE_LOCATION, "s3a://b/${topic}/${route}");
        assertThrows(ConfigException.class, () -> new DeltaSinkConfig(p));
        p.put(DeltaSinkConfig.TABLE_LOCATION, "s3a://b/delta/${route}");
        assertNull(new DeltaSinkConfig(p).routeProblem());
        p.put(DeltaSinkConfig.TABLE_ROUTE_FIELD, "");
        assertNotNull(new DeltaSinkConfig(p).routeProblem());
        p.put(DeltaSinkConfig.TABLE_LOCATION, "s3a://b/delta/t");
        p.put(DeltaSinkConfig.TABLE_ROUTE_FIELD, "device_type");
        assertNotNull(new DeltaSinkConfig(p).routeProblem());
    }

    private static Set<String> folders(Path dir) {
        try (var s = Files.list(dir)) {
            Set<String> out = new HashSet<>();
            s.forEach(f -> out.add(f.getFileName().toString()));
            return out;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
