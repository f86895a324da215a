package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.ColumnMapping;
import io.deltasink.convert.MappingConverter;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.FaultyLogStore;
import io.deltasink.testing.LogFaults;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * Offsets set through the offsets API land in a real table as txn-only commits, and sessions
 * opened afterwards resume there; a reset makes a partition start over from start.position, and
 * writers that opened before the change are fenced.
 */
class OffsetsOverrideTest {
    static final String TOPIC = SinkSessionTest.TOPIC;
    static final TopicPartition TP0 = SinkSessionTest.TP0;
    static final TopicPartition TP1 = SinkSessionTest.TP1;
    static final String APP0 = "sensors/sensor-events/0";
    static final String APP1 = "sensors/sensor-events/1";

    @TempDir
    Path dir;

    @AfterEach
    void stopFaults() {
        LogFaults.stop(table());
    }

    private Map<String, String> props(Map<String, String> extra) {
        Map<String, String> p = new HashMap<>();
        p.put("name", "sensors");
        p.put("topics", "other-events, " + TOPIC);
        p.put(DeltaSinkConfig.TABLE_LOCATION, dir.resolve("table").toString());
        p.put(DeltaSinkConfig.COLUMNS, SinkSessionTest.COLUMNS);
        p.put(DeltaSinkConfig.PARTITION_COLUMNS, "device_type,event_date");
        p.put(DeltaSinkConfig.COMMIT_RETRY_BACKOFF_MS, "1");
        // the connector's local log store, through which another writer can be made to commit first
        p.put(DeltaSinkConfig.HADOOP_PREFIX + FaultyLogStore.KEY, FaultyLogStore.class.getName());
        p.putAll(extra);
        return p;
    }

    private SinkSession session(RecordingContext context, Map<String, String> extra) {
        DeltaSinkConfig config = new DeltaSinkConfig(props(extra));
        ColumnMapping mapping = ColumnMapping.parse(config.columns(), config.notNullColumns());
        return new SinkSession(config, StorageSettings.from(config), r -> new MappingConverter(mapping, Clock.systemUTC()),
                context, Clock.systemUTC(), ms -> { }, "test-engine connector=sensors");
    }

    private void override(Map<TopicPartition, Long> offsets, Map<String, String> extra) {
        override(offsets, extra, ms -> { });
    }

    private void override(Map<TopicPartition, Long> offsets, Map<String, String> extra,
                          TableCommitter.Sleeper sleeper) {
        Map<String, String> props = props(extra);
        DeltaSinkConfig config = new DeltaSinkConfig(props);
        try (StorageSettings storage = StorageSettings.from(config)) {
            new OffsetsOverride(config, props, new DeltaTable(storage.createEngine(), storage.tableUri()),
                    "test-engine connector=sensors", sleeper).apply(offsets);
        }
    }

    private String table() {
        return StorageSettings.normalize(dir.resolve("table").toString());
    }

    private static List<SinkRecord> events(int partition, long fromOffset, int count) {
        List<SinkRecord> out = new ArrayList<>();
        for (long o = fromOffset; o < fromOffset + count; o++) {
            out.add(SinkRecords.of(TOPIC, partition, o, SensorEvents.event(o * 10 + partition).json()));
        }
        return out;
    }

    /** A first session writes offsets 0..49 of partition 0 and 0..29 of partition 1. */
    private void firstRun() {
        SinkSession first = session(new RecordingContext(false), Map.of());
        first.open(List.of(TP0, TP1));
        first.put(events(0, 0, 50));
        first.put(events(1, 0, 30));
        first.commit(Map.of());
        first.stop();
    }

    private static Map<TopicPartition, Long> offsets(TopicPartition tp, Long offset) {
        Map<TopicPartition, Long> out = new HashMap<>();
        out.put(tp, offset);
        return out;
    }

    @Test
    void aPatchedOffsetIsWhereTheNextSessionResumes() {
        firstRun();
        long before = DeltaTableReader.version(table());

        override(offsets(TP0, 20L), Map.of());

        long version = DeltaTableReader.version(table());
        assertEquals(before + 1, version, "one commit for the request");
        List<JsonNode> actions = DeltaTableReader.actions(table(), version);
        assertTrue(actions.stream().allMatch(a -> a.has("txn") || a.has("commitInfo")), actions.toString());
        assertEquals(Optional.of(20L), DeltaTableReader.txnVersion(table(), APP0));
        assertEquals(Optional.of(30L), DeltaTableReader.txnVersion(table(), APP1), "untouched");

        RecordingContext ctx = new RecordingContext(false);
        SinkSession next = session(ctx, Map.of());
        next.open(List.of(TP0, TP1));
        assertEquals(Map.of(TP0, 19L, TP1, 29L), ctx.seeks, "the positions set, each sought one record early");
        next.put(events(0, 20, 40));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(60), TP1, new OffsetAndMetadata(30)), next.commit(Map.of()));
        assertEquals(50 + 40 + 30, DeltaTableReader.readAll(table()).size(),
                "offsets 20..49 of partition 0 were written again, as asked");
    }

    @Test
    void aResetPartitionStartsOverFromStartPosition() {
        firstRun();

        override(offsets(TP0, null), Map.of());
        assertEquals(Optional.of(-1L), DeltaTableReader.txnVersion(table(), APP0));

        RecordingContext earliest = new RecordingContext(false);
        SinkSession next = session(earliest, Map.of(DeltaSinkConfig.START_POSITION, "earliest"));
        next.open(List.of(TP0, TP1));
        assertEquals(Map.of(TP0, 0L, TP1, 29L), earliest.seeks, "TP0 from its start, TP1 one record before its position");
        assertEquals(Map.of(TP1, new OffsetAndMetadata(30)), next.commit(Map.of()), "no offset reported for a reset partition");
        next.stop();

        RecordingContext group = new RecordingContext(false);
        SinkSession byGroup = session(group, Map.of());
        byGroup.open(List.of(TP0, TP1));
        assertEquals(Map.of(TP1, 29L), group.seeks, "start.position=group: the consumer group decides for partition 0");
        byGroup.put(events(0, 0, 50));
        assertEquals(new OffsetAndMetadata(50), byGroup.commit(Map.of()).get(TP0));
        assertEquals(Optional.of(50L), DeltaTableReader.txnVersion(table(), APP0));
        assertEquals(50 + 50 + 30, DeltaTableReader.readAll(table()).size());
    }

    @Test
    void writersThatOpenedBeforeTheChangeAreFenced() {
        // opened while the table did not know partition 0 at all
        SinkSession early = session(new RecordingContext(false), Map.of());
        early.open(List.of(TP0));
        firstRun();
        // opened at offset 50
        RecordingContext lateCtx = new RecordingContext(false);
        SinkSession late = session(lateCtx, Map.of());
        late.open(List.of(TP0));

        override(offsets(TP0, null), Map.of());

        late.put(events(0, 50, 10));
        late.commit(Map.of());
        early.put(events(0, 0, 10));
        early.commit(Map.of());
        assertEquals(Optional.of(-1L), DeltaTableReader.txnVersion(table(), APP0), "neither zombie moved the reset");
        assertEquals(80, DeltaTableReader.readAll(table()).size(), "neither zombie added rows");
        late.put(List.of());
        assertEquals(50L, lateCtx.seeks.get(TP0), "the fenced writer rewinds to its batch start, never to -1");
    }

    @Test
    void unchangedOffsetsMakeNoCommit() {
        firstRun();
        long before = DeltaTableReader.version(table());
        Map<TopicPartition, Long> same = offsets(TP0, 50L);
        same.put(new TopicPartition(TOPIC, 2), null); // never seen: resetting it changes nothing
        override(same, Map.of());
        assertEquals(before, DeltaTableReader.version(table()));
    }

    @Test
    void offsetsOfATopicTheConnectorDoesNotReadAreRefused() {
        firstRun();
        long before = DeltaTableReader.version(table());
        ConnectException e = assertThrows(ConnectException.class,
                () -> override(offsets(new TopicPartition("audit-log", 0), 5L), Map.of()));
        assertTrue(e.getMessage().contains("'audit-log' is not one the connector reads (topics=other-events,"
                + "sensor-events)"), e.getMessage());
        assertEquals(before, DeltaTableReader.version(table()));

        Map<String, String> byRegex = new HashMap<>();
        byRegex.put("topics", "");
        byRegex.put("topics.regex", "sensor-.*");
        override(offsets(TP1, 3L), byRegex);
        assertEquals(Optional.of(3L), DeltaTableReader.txnVersion(table(), APP1));
        e = assertThrows(ConnectException.class, () -> override(offsets(new TopicPartition("other-events", 0), 5L),
                byRegex));
        assertTrue(e.getMessage().contains("topics.regex=sensor-.*"), e.getMessage());
    }

    @Test
    void withoutATableOnlyAResetIsAccepted() {
        override(offsets(TP0, null), Map.of());
        override(Map.of(), Map.of());
        assertFalse(dir.resolve("table").toFile().exists(), "a reset creates no table");

        ConnectException e = assertThrows(ConnectException.class, () -> override(offsets(TP0, 10L), Map.of()));
        assertTrue(e.getMessage().contains("there is no Delta table at") && e.getMessage().contains("Resume the connector"),
                e.getMessage());
    }

    @Test
    void aResetNamingNoPartitionIsRefusedWhenTheTableExists() {
        firstRun();
        long before = DeltaTableReader.version(table());
        ConnectException e = assertThrows(ConnectException.class, () -> override(Map.of(), Map.of()));
        assertTrue(e.getMessage().contains("consumer group has no committed offsets")
                && e.getMessage().contains("PATCH /connectors/sensors/offsets"), e.getMessage());
        assertEquals(before, DeltaTableReader.version(table()));
    }
    @Test
    void aSessionThatJustCommittedIsFencedByOffsetsSetRightAfter() {
        // the session's own commit is the latest version, so it knows its txn versions without the log
        RecordingContext ctx = new RecordingContext(false);
        SinkSession running = session(ctx, Map.of());
        running.open(List.of(TP0));
        running.put(events(0, 0, 50));
        running.commit(Map.of());
        running.put(events(0, 50, 10));
        running.commit(Map.of());
        assertEquals(Optional.of(60L), DeltaTableReader.txnVersion(table(), APP0));

        override(offsets(TP0, 20L), Map.of());

        running.put(events(0, 60, 10));
        running.commit(Map.of());
        assertEquals(Optional.of(20L), DeltaTableReader.txnVersion(table(), APP0), "the running task did not move it");
        assertEquals(60, DeltaTableReader.readAll(table()).size(), "its batch was fenced");
        running.put(List.of());
        assertTrue(ctx.seeks.containsKey(TP0), "it rewinds: " + ctx.seeks);
        running.stop();
    }

    @Test
    void oneOverrideAppliedTwiceWritesBothRequests() {
        firstRun();
        Map<String, String> props = props(Map.of());
        DeltaSinkConfig config = new DeltaSinkConfig(props);
        StorageSettings storage = StorageSettings.from(config);
        OffsetsOverride override = new OffsetsOverride(config, props,
                new DeltaTable(storage.createEngine(), storage.tableUri()), "test-engine connector=sensors", ms -> { });
        long before = DeltaTableReader.version(table());
        override.apply(offsets(TP0, 20L));
        // the second request builds on the first one's version: what it wrote is known, not stale
        override.apply(Map.of(TP0, 10L, TP1, 5L));
        assertEquals(before + 2, DeltaTableReader.version(table()));
        assertEquals(Optional.of(10L), DeltaTableReader.txnVersion(table(), APP0));
        assertEquals(Optional.of(5L), DeltaTableReader.txnVersion(table(), APP1));
        storage.close();
    }

    /** The versions of the table's Manual Update commits (offsets set from outside). */
    private List<Long> manualUpdates() {
        return DeltaTableReader.commitOperations(table()).entrySet().stream()
                .filter(e -> "Manual Update".equals(e.getValue())).map(Map.Entry::getKey).toList();
    }

    @Test
    void anOverrideThatLosesItsVersionToAnUnrelatedCommitIsRebuiltOnTheNewSnapshot() {
        firstRun();
        // a task still holding partition 1 commits right before the override's commit file is written
        RecordingContext ctx = new RecordingContext(false);
        SinkSession running = session(ctx, Map.of());
        running.open(List.of(TP1));
        running.put(events(1, 30, 10));
        FaultyLogStore.beforeNextCommit(table(), () -> running.commit(Map.of()));
        long before = DeltaTableReader.version(table());
        List<Long> waits = new ArrayList<>();

        override(offsets(TP0, 20L), Map.of(), waits::add);

        assertEquals(before + 2, DeltaTableReader.version(table()), "the task's commit, then the override's");
        assertEquals("STREAMING UPDATE", DeltaTableReader.commitOperations(table()).get(before + 1));
        assertEquals(List.of(before + 2), manualUpdates(), "the override once, on top of the task's commit");
        assertEquals(List.of(1L), waits, "one retry, after commit.retry.backoff.ms");
        assertEquals(Optional.of(20L), DeltaTableReader.txnVersion(table(), APP0), "the override's position");
        assertEquals(Optional.of(40L), DeltaTableReader.txnVersion(table(), APP1), "the task's, untouched by the override");
        assertEquals(50 + 40, DeltaTableReader.readAll(table()).size());
        running.stop();

        RecordingContext next = new RecordingContext(false);
        session(next, Map.of()).open(List.of(TP0, TP1));
        assertEquals(Map.of(TP0, 19L, TP1, 39L), next.seeks, "a session resumes from the override's positions");
    }

    @Test
    void anOverrideWhosePartitionAnotherWriterMovesMeanwhileIsRefusedAndLandsOnceSentAgain() {
        firstRun();
        // a task still holding partition 0 commits right before the override's commit file is written
        SinkSession running = session(new RecordingContext(false), Map.of());
        running.open(List.of(TP0));
        running.put(events(0, 50, 10));
        FaultyLogStore.beforeNextCommit(table(), () -> running.commit(Map.of()));

        ConnectException e = assertThrows(ConnectException.class, () -> override(offsets(TP0, 20L), Map.of()));
        assertTrue(e.getMessage().contains("another writer moved [" + APP0 + "] in the Delta table at " + table())
                && e.getMessage().contains("stop it, then set the offsets again"), e.getMessage());
        assertEquals(List.of(), manualUpdates(), "nothing of the override in the table");
        assertEquals(Optional.of(60L), DeltaTableReader.txnVersion(table(), APP0), "the task's position stands");

        running.stop();
        override(offsets(TP0, 20L), Map.of());
        assertEquals(1, manualUpdates().size(), "the request sent again lands once");
        assertEquals(Optional.of(20L), DeltaTableReader.txnVersion(table(), APP0));
        assertEquals(Optional.of(30L), DeltaTableReader.txnVersion(table(), APP1));
    }

    @Test
    void anOverrideThatLosesEveryRaceNamesTheTableAndWhatToDo() {
        firstRun();
        // another writer (a task still holding partition 1) commits before each of the override's attempts
        Map<String, String> props = props(Map.of(DeltaSinkConfig.COMMIT_MAX_RETRIES, "2"));
        AtomicInteger rivals = new AtomicInteger();
        try (StorageSettings storage = StorageSettings.from(new DeltaSinkConfig(props))) {
            DeltaTable other = new DeltaTable(storage.createEngine(), storage.tableUri());
            Runnable rival = new Runnable() {
                @Override
                public void run() {
                    int n = rivals.incrementAndGet();
                    other.commitAppend(other.latest().orElseThrow(), List.of(), Map.of(APP1, 30L + n), "rival");
                    if (n < 3) {
                        FaultyLogStore.beforeNextCommit(table(), this); // armed after its own commit
                    }
                }
            };
            FaultyLogStore.beforeNextCommit(table(), rival);
            long before = DeltaTableReader.version(table());
            List<Long> waits = new ArrayList<>();

            ConnectException e = assertThrows(ConnectException.class,
                    () -> override(offsets(TP0, 20L), Map.of(DeltaSinkConfig.COMMIT_MAX_RETRIES, "2"), waits::add));

            assertTrue(e.getMessage().startsWith("Cannot set the offsets of connector sensors: other writers kept "
                    + "committing to the Delta table at " + table()), e.getMessage());
            assertTrue(e.getMessage().contains("3 times in a row") && e.getMessage().contains("commit.max.retries=2")
                    && e.getMessage().endsWith("Make sure no task of the connector still runs, then retry."),
                    e.getMessage());
            assertEquals(3, rivals.get(), "the first attempt and two retries");
            assertEquals(List.of(1L, 2L), waits, "the wait doubles between retries");
            assertEquals(before + 3, DeltaTableReader.version(table()), "only the other writer's commits");
            assertEquals(List.of(), manualUpdates());
            assertEquals(Optional.of(50L), DeltaTableReader.txnVersion(table(), APP0), "unchanged");
        }
    }

    @Test
    void anOverrideWhoseRetryCannotReadTheTableIsNotBlamedOnOtherWriters() {
        firstRun();
        try (StorageSettings storage = StorageSettings.from(new DeltaSinkConfig(props(Map.of())))) {
            DeltaTable other = new DeltaTable(storage.createEngine(), storage.tableUri());
            // another writer takes the override's version; from then on the log's listings come back empty
            FaultyLogStore.beforeNextCommit(table(), () -> {
                other.commitAppend(other.latest().orElseThrow(), List.of(), Map.of(APP1, 31L), "rival");
                LogFaults.start(table(), LogFaults.Fault.EMPTY_LISTING);
            });
            ConnectException e = assertThrows(ConnectException.class,
                    () -> override(offsets(TP0, 20L), LogFaults.settings(table())));
            LogFaults.stop(table());

            assertFalse(e.getMessage().contains("other writers kept committing"), e.getMessage());
            assertTrue(e.getMessage().startsWith("Cannot set the offsets of connector sensors in the Delta table at "
                    + table()) && e.getMessage().contains("answered inconsistently")
                    && e.getMessage().contains("Nothing was changed; send the request again"), e.getMessage());
            assertEquals(List.of(), manualUpdates());
            assertEquals(Optional.of(50L), DeltaTableReader.txnVersion(table(), APP0));
        }
        override(offsets(TP0, 20L), LogFaults.settings(table()));
        assertEquals(1, manualUpdates().size());
        assertEquals(Optional.of(20L), DeltaTableReader.txnVersion(table(), APP0));
    }
}
