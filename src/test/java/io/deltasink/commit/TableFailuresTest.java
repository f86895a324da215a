package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.LogEdits;
import io.deltasink.testing.LogFaults.Fault;
import io.deltasink.testing.LogFaults;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * Failures reading the table's log, through the session against real local tables: a transient
 * one (read timeout, connection reset, an empty listing; injected by {@link LogFaults}) makes
 * put() retriable and, once it clears, every record lands once; a permanent one (a protocol or
 * feature the connector cannot use, a gap in the log, a damaged commit file or checkpoint, a
 * schema the mapping cannot write) stops the task at once with a message naming the table, the
 * version and what to do, and is never retried.
 */
class TableFailuresTest {
    static final String TOPIC = SinkSessionTest.TOPIC;
    static final TopicPartition TP0 = SinkSessionTest.TP0;
    static final TopicPartition TP1 = SinkSessionTest.TP1;

    @RegisterExtension
    final Sessions sessions = Sessions.of("sensors", Map.of(DeltaSinkConfig.COLUMNS, SinkSessionTest.COLUMNS,
            DeltaSinkConfig.COLUMNS_NOT_NULL, "device_id,device_type",
            DeltaSinkConfig.PARTITION_COLUMNS, "device_type,event_date"));

    @AfterEach
    void stopFaults() {
        LogFaults.stop(table());
    }

    /** A session whose file system can be made to fail reading the log (see {@link LogFaults}). */
    private SinkSession session(RecordingContext context, Map<String, String> extra) {
        Map<String, String> settings = new HashMap<>(LogFaults.settings(table()));
        settings.putAll(extra);
        return sessions.create(context, settings);
    }

    private SinkSession session(RecordingContext context) {
        return session(context, Map.of());
    }

    private String table() {
        return sessions.table();
    }

    private static List<SinkRecord> events(int partition, long from, int count) {
        List<SinkRecord> out = new ArrayList<>();
        for (long o = from; o < from + count; o++) {
            out.add(SinkRecords.of(TOPIC, partition, o, SensorEvents.event(o * 10 + partition).json()));
        }
        return out;
    }

    /** Writes {@code commits} commits of 10 records of TP0 each (table versions 1..commits). */
    private void seed(int commits, Map<String, String> extra) {
        SinkSession s = session(new RecordingContext(false), extra);
        s.open(List.of(TP0, TP1));
        s.put(events(1, 0, 5)); // TP1 only in the first commit: reading its position needs the whole log
        for (int c = 0; c < commits; c++) {
            s.put(events(0, c * 10L, 10));
            s.commit(Map.of());
        }
        s.stop();
    }

    private Set<String> rows() {
        Set<String> out = new TreeSet<>();
        for (Map<String, Object> r : DeltaTableReader.readAll(table())) {
            assertTrue(out.add(r.get("kafka_partition") + "@" + r.get("kafka_offset")), "duplicate row " + r);
        }
        return out;
    }

    private static Set<String> expected(int partition, long from, long to) {
        Set<String> out = new TreeSet<>();
        for (long o = from; o < to; o++) {
            out.add(partition + "@" + o);
        }
        return out;
    }

    /**
     * Opens a session while the fault is on: open() must not throw, put() must throw RetriableException
     * (twice, the wait doubling) without taking any record; after the fault clears, the redelivered
     * records from offset 25 land once next to the 30 rows of TP0 and 5 of TP1 already there.
     */
    private void assertRetriedThenLandsOnce(Runnable faultOn) {
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = session(ctx);
        faultOn.run();
        int injected = LogFaults.injected();
        try {
            s.open(List.of(TP0, TP1)); // must not throw: that would kill the task
            assertTrue(ctx.seeks.isEmpty());
            List<SinkRecord> batch = events(0, 25, 20);
            RetriableException e = assertThrows(RetriableException.class, () -> s.put(batch));
            assertTrue(e.getMessage().contains(sessions.dir().resolve("table").toString()), e.getMessage());
            assertFalse(e.getMessage().contains("S3") || e.getMessage().contains("s3.endpoint"),
                    "a local table is not on S3: " + e.getMessage());
            assertThrows(RetriableException.class, () -> s.put(batch));
            assertEquals(List.of(1L, 2L), ctx.timeouts, "the worker waits, longer each time");
            assertTrue(s.commit(Map.of()).isEmpty(), "no offset is reported while the positions are unknown");
            assertTrue(LogFaults.injected() > injected, "the fault was hit");
        } finally {
            LogFaults.stop(table());
        }
        s.put(events(0, 25, 20)); // positions read now: 25..29 are in the table, 30.. taken
        s.put(events(1, 5, 5));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(45), TP1, new OffsetAndMetadata(10)), s.commit(Map.of()));
        Set<String> want = expected(0, 0, 45);
        want.addAll(expected(1, 0, 10));
        assertEquals(want, rows());
    }

    @Test
    void aReadTimeoutListingTheLogIsRetriedAndEveryRecordLandsOnce() {
        seed(3, Map.of());
        assertRetriedThenLandsOnce(() -> LogFaults.start(table(), Fault.READ_TIMEOUT));
    }

    @Test
    void aConnectionResetReadingCommitFilesIsRetriedAndEveryRecordLandsOnce() {
        seed(3, Map.of());
        // the listing works, the snapshot loads from the version checksum; reading positions fails
        assertRetriedThenLandsOnce(() -> LogFaults.start(table(), Fault.CONNECTION_RESET, ".json"));
    }

    @Test
    void aReadTimeoutReadingACheckpointIsRetriedAndEveryRecordLandsOnce() {
        seed(3, Map.of(DeltaSinkConfig.TABLE_PROPERTY_PREFIX + "delta.checkpointInterval", "2"));
        new LogEdits(table()).dropVersionChecksums(); // the snapshot itself is read from the checkpoint
        assertRetriedThenLandsOnce(() -> LogFaults.start(table(), Fault.READ_TIMEOUT, ".checkpoint.parquet"));
    }

    @Test
    void aLogListedEmptyWhileTheTableExistsIsRetriedAndNeverCreatesATable() {
        seed(3, Map.of());
        byte[] first = new LogEdits(table()).read(LogEdits.commit(0));
        assertRetriedThenLandsOnce(() -> LogFaults.start(table(), Fault.EMPTY_LISTING));
        assertEquals(new String(first, StandardCharsets.UTF_8),
                new String(new LogEdits(table()).read(LogEdits.commit(0)), StandardCharsets.UTF_8));
    }

    @Test
    void aLogListedEmptyIsNotMistakenForNoTableWhenAutoCreateIsOff() {
        seed(3, Map.of());
        assertRetriedThenLandsOnceWith(Map.of(DeltaSinkConfig.TABLE_AUTO_CREATE, "false"));
    }

    private void assertRetriedThenLandsOnceWith(Map<String, String> extra) {
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = session(ctx, extra);
        LogFaults.start(table(), Fault.EMPTY_LISTING);
        try {
            s.open(List.of(TP0));
            assertThrows(RetriableException.class, () -> s.put(events(0, 25, 20)));
        } finally {
            LogFaults.stop(table());
        }
        s.put(events(0, 25, 20));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(45)), s.commit(Map.of()));
        Set<String> want = expected(0, 0, 45);
        want.addAll(expected(1, 0, 5));
        assertEquals(want, rows());
    }

    @Test
    void aTransientFailureReadingTheTableInPutIsRetried() {
        // columns=auto: the table is read (and created) when the first record gives the columns
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = session(ctx, Map.of(DeltaSinkConfig.COLUMNS, "auto", DeltaSinkConfig.COLUMNS_NOT_NULL, "",
                DeltaSinkConfig.PARTITION_COLUMNS, "device_type"));
        s.open(List.of(TP0));
        LogFaults.start(table(), Fault.CONNECTION_RESET);
        List<SinkRecord> batch = new ArrayList<>();
        for (long o = 0; o < 10; o++) {
            batch.add(SinkRecords.of(TOPIC, 0, o, SensorEvents.smartPlug(o).map()));
        }
        try {
            assertThrows(RetriableException.class, () -> s.put(batch));
            assertEquals(Map.of(TP0, 0L), ctx.seeks, "the records are read again");
        } finally {
            LogFaults.stop(table());
        }
        s.put(batch);
        assertEquals(Map.of(TP0, new OffsetAndMetadata(10)), s.commit(Map.of()));
        assertEquals(10, DeltaTableReader.readAll(table()).size());
    }

    // ---- permanent ----------------------------------------------------------------------------

    /**
     * open() stops the task at once with a ConnectException (not retriable) whose message holds
     * every fragment; no wait is asked for, and put() throws the same again.
     */
    private ConnectException assertStopsTheTaskAtOpen(String... fragments) {
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = session(ctx);
        ConnectException e = assertThrows(ConnectException.class, () -> s.open(List.of(TP0, TP1)));
        assertMessage(e, fragments);
        assertTrue(ctx.timeouts.isEmpty(), "not retried");
        assertSame(e, assertThrows(ConnectException.class, () -> s.put(events(0, 30, 5))), "the task stays failed");
        return e;
    }

    private void assertMessage(ConnectException e, String... fragments) {
        assertFalse(e instanceof RetriableException, e.toString());
        assertTrue(e.getMessage().contains(table()), e.getMessage());
        for (String f : fragments) {
            assertTrue(e.getMessage().contains(f), "'" + f + "' missing in: " + e.getMessage());
        }
    }

    private static final String WRITER_FEATURE = "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":7,"
            + "\"writerFeatures\":[\"appendOnly\",\"invariants\",\"someFutureWriterFeature\"]}}";

    @Test
    void aWriterFeatureTheConnectorCannotWriteStopsTheTaskAtOpen() {
        seed(3, Map.of());
        new LogEdits(table()).commitLine(4, WRITER_FEATURE);
        assertStopsTheTaskAtOpen("version 4", "someFutureWriterFeature", "cannot write", "table.location");
    }

    @Test
    void aWriterFeatureAddedWhileRunningStopsTheTaskAtTheNextCommit() {
        seed(3, Map.of());
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = session(ctx);
        s.open(List.of(TP0));
        s.put(events(0, 30, 5));
        new LogEdits(table()).commitLine(4, WRITER_FEATURE); // another writer upgrades the table
        assertEquals(Map.of(TP0, new OffsetAndMetadata(30)), s.commit(Map.of()), "preCommit never throws");
        ConnectException e = assertThrows(ConnectException.class, () -> s.put(events(0, 35, 5)));
        assertMessage(e, "version 4", "someFutureWriterFeature", "cannot write", "Use a connector release that "
                + "supports it, or write to a new table (another table.location)");
        assertTrue(ctx.timeouts.isEmpty(), "not retried");
        assertSame(e, assertThrows(ConnectException.class, () -> s.put(List.of())));
    }

    @Test
    void aReaderVersionAboveWhatTheConnectorReadsStopsTheTaskAtOpen() {
        seed(3, Map.of());
        new LogEdits(table()).commitLine(4, "{\"protocol\":{\"minReaderVersion\":4,\"minWriterVersion\":7}}");
        assertStopsTheTaskAtOpen("version 4", "reader version 4", "cannot read", "table.location");
    }

    @Test
    void anUnknownReaderFeatureStopsTheTaskAtOpen() {
        seed(3, Map.of());
        new LogEdits(table()).commitLine(4, "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,"
                + "\"readerFeatures\":[\"someFutureFeature\"],\"writerFeatures\":[\"someFutureFeature\"]}}");
        assertStopsTheTaskAtOpen("version 4", "someFutureFeature", "cannot read", "table.location");
    }

    @Test
    void aMissingCommitFileStopsTheTaskNamingTheVersion() {
        seed(4, Map.of());
        new LogEdits(table()).delete(LogEdits.commit(2));
        assertStopsTheTaskAtOpen("version 2", LogEdits.commit(2), "missing", "backup", "table.location");
    }

    @Test
    void aCommitFileCutMidLineStopsTheTaskNamingTheVersion() {
        seed(4, Map.of());
        new LogEdits(table()).truncate(LogEdits.commit(4));
        // the snapshot loads from the version checksum; reading the positions finds the damage
        assertStopsTheTaskAtOpen("version 4", LogEdits.commit(4), "damaged", "backup", "table.location",
                "delete it (and _delta_log/00000000000000000004.crc");

        // doing what the message says: the table goes back to version 3, the connector writes 30..39 again
        new LogEdits(table()).delete(LogEdits.commit(4)).delete("00000000000000000004.crc");
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = session(ctx);
        s.open(List.of(TP0, TP1));
        assertEquals(Map.of(TP0, 29L, TP1, 4L), ctx.seeks, "the table's positions, each sought one record early");
        s.put(events(0, 30, 10));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(40), TP1, new OffsetAndMetadata(5)), s.commit(Map.of()));
        Set<String> want = expected(0, 0, 40);
        want.addAll(expected(1, 0, 5));
        assertEquals(want, rows());
    }

    @Test
    void garbageInACommitFileStopsTheTaskNamingTheVersion() {
        seed(4, Map.of());
        new LogEdits(table()).dropVersionChecksums()
                .write(LogEdits.commit(3), new byte[] {0, (byte) 0xff, 0x13, 0x37, '{', '\n'});
        assertStopsTheTaskAtOpen("version 3", LogEdits.commit(3), "damaged", "backup", "table.location");
    }

    @Test
    void aCheckpointThatIsNotParquetStopsTheTaskNamingTheVersion() {
        seed(4, Map.of(DeltaSinkConfig.TABLE_PROPERTY_PREFIX + "delta.checkpointInterval", "2"));
        new LogEdits(table()).dropVersionChecksums()
                .write(LogEdits.checkpoint(4), "not a parquet file at all".getBytes(StandardCharsets.UTF_8));
        assertStopsTheTaskAtOpen("version 4", LogEdits.checkpoint(4), "damaged", "table.location",
                "Delete it and _delta_log/_last_checkpoint");

        // doing what the message says: readers start from the checkpoint of version 2 and the commits after it
        new LogEdits(table()).delete(LogEdits.checkpoint(4)).delete("_last_checkpoint");
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = session(ctx);
        s.open(List.of(TP0, TP1));
        assertEquals(Map.of(TP0, 39L, TP1, 4L), ctx.seeks, "the table's positions, each sought one record early");
        s.put(events(0, 40, 10));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(50), TP1, new OffsetAndMetadata(5)), s.commit(Map.of()));
        Set<String> want = expected(0, 0, 50);
        want.addAll(expected(1, 0, 5));
        assertEquals(want, rows());
    }

    @Test
    void aTableWhoseSchemaTheMappingCannotWriteStopsTheTaskAtOpen() {
        seed(1, Map.of());
        for (String autoCreate : List.of("true", "false")) {
            RecordingContext ctx = new RecordingContext(false);
            SinkSession s = session(ctx, Map.of(DeltaSinkConfig.TABLE_AUTO_CREATE, autoCreate,
                    DeltaSinkConfig.COLUMNS, SinkSessionTest.COLUMNS.replace("power:double", "power:string")));
            ConnectException e = assertThrows(ConnectException.class, () -> s.open(List.of(TP0)), autoCreate);
            assertMessage(e, "version 1", "power", "string", "double",
                    "Change the mapping to match the table, or write to a new table (another table.location)");
            assertTrue(ctx.timeouts.isEmpty(), "not retried");
            assertSame(e, assertThrows(ConnectException.class, () -> s.put(events(0, 10, 5))));
        }
    }
}
