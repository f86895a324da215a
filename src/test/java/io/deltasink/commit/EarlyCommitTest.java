package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

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
 * The commit asked for once a backlog is drained ({@link EarlyCommit}), through a session on a real
 * table: it comes when an empty put() follows a full enough batch, never in a stream that buffers
 * less than a tenth of flush.max.records, and it stores only the rows that are in its files.
 */
class EarlyCommitTest {
    static final String TOPIC = "sensor-events";
    static final TopicPartition TP0 = new TopicPartition(TOPIC, 0);
    static final TopicPartition TP1 = new TopicPartition(TOPIC, 1);

    @RegisterExtension
    final Sessions sessions = Sessions.of("early", Map.of(DeltaSinkConfig.COLUMNS, SinkSessionTest.COLUMNS,
            DeltaSinkConfig.PARTITION_COLUMNS, "device_type"));

    private static List<SinkRecord> events(int partition, long fromOffset, int count) {
        List<SinkRecord> out = new ArrayList<>();
        for (long o = fromOffset; o < fromOffset + count; o++) {
            out.add(SinkRecords.of(TOPIC, partition, o, SensorEvents.event(o * 10 + partition).json()));
        }
        return out;
    }

    private Set<String> tableCoordinates() {
        Set<String> out = new TreeSet<>();
        for (Map<String, Object> r : DeltaTableReader.readAll(sessions.table())) {
            assertTrue(out.add(r.get("kafka_partition") + "@" + r.get("kafka_offset")), "duplicate row " + r);
        }
        return out;
    }

    private static Set<String> coordinates(int partition, long from, long to) {
        Set<String> out = new TreeSet<>();
        for (long o = from; o < to; o++) {
            out.add(partition + "@" + o);
        }
        return out;
    }

    @Test
    void aDrainedBacklogAsksForACommitAndItHoldsExactlyTheRowsPut() {
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = sessions.create(ctx, Map.of(DeltaSinkConfig.FLUSH_MAX_RECORDS, "100"));
        s.open(List.of(TP0, TP1));
        s.put(events(0, 0, 6));
        assertEquals(List.of(), ctx.timeouts, "6 rows are below a tenth of 100: the worker's poll is left alone");
        s.put(events(1, 0, 6));
        assertEquals(List.of(EarlyCommit.IDLE_POLL_MS), ctx.timeouts, "12 rows: the next poll waits briefly");
        assertEquals(0, ctx.commitRequests, "records came: not drained");
        s.put(events(0, 6, 4));
        assertEquals(List.of(EarlyCommit.IDLE_POLL_MS, EarlyCommit.IDLE_POLL_MS), ctx.timeouts);
        assertEquals(0, ctx.commitRequests);

        s.put(List.of()); // the short poll found nothing: the backlog is drained
        assertEquals(1, ctx.commitRequests);
        assertEquals(2, ctx.timeouts.size(), "no wait asked with the request");

        // the worker then calls preCommit: every row put is in the commit, offsets for exactly those rows
        assertEquals(Map.of(TP0, new OffsetAndMetadata(10), TP1, new OffsetAndMetadata(6)), s.commit(Map.of()));
        Set<String> expected = coordinates(0, 0, 10);
        expected.addAll(coordinates(1, 0, 6));
        assertEquals(expected, tableCoordinates());

        s.put(List.of()); // idle after the commit: nothing buffered, nothing asked
        assertEquals(1, ctx.commitRequests);
        assertEquals(2, ctx.timeouts.size());
    }

    @Test
    void theRestOfABacklogAfterAFullBatchIsCommittedOnceDrainedThenTheRuleEnds() {
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = sessions.create(ctx, Map.of(DeltaSinkConfig.FLUSH_MAX_RECORDS, "100"));
        s.open(List.of(TP0));
        s.put(events(0, 0, 100));
        assertEquals(1, ctx.commitRequests, "a full batch");
        s.commit(Map.of());
        s.put(events(0, 100, 4));
        assertEquals(List.of(EarlyCommit.IDLE_POLL_MS), ctx.timeouts,
                "4 rows, under a tenth, yet the rest of a backlog: the next poll waits briefly");
        s.put(events(0, 104, 3));
        assertEquals(2, ctx.timeouts.size());
        assertEquals(1, ctx.commitRequests, "records came: not drained");
        s.put(List.of());
        assertEquals(2, ctx.commitRequests, "drained: the last 7 rows need not wait for the timer");
        assertEquals(Map.of(TP0, new OffsetAndMetadata(107)), s.commit(Map.of()));
        assertEquals(coordinates(0, 0, 107), tableCoordinates());

        // the backlog is over: a trickle afterwards (9 rows an interval) is left to the timer
        long offset = 107;
        for (int interval = 0; interval < 5; interval++) {
            for (int poll = 0; poll < 3; poll++) {
                s.put(events(0, offset, 3));
                offset += 3;
                s.put(List.of());
            }
            s.commit(Map.of());
        }
        assertEquals(2, ctx.commitRequests);
        assertEquals(2, ctx.timeouts.size());
    }

    @Test
    void aBacklogThatEndsRightAtACommitLeavesNothingToAsk() {
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = sessions.create(ctx, Map.of(DeltaSinkConfig.FLUSH_MAX_RECORDS, "100"));
        s.open(List.of(TP0));
        s.put(events(0, 0, 100));
        s.commit(Map.of());
        s.put(List.of()); // drained with nothing buffered: the rule ends without a request
        s.put(events(0, 100, 3));
        s.put(List.of());
        assertEquals(1, ctx.commitRequests);
        assertEquals(List.of(), ctx.timeouts);
    }

    @Test
    void aSlowStreamIsNeverAskedForAnEarlyCommit() {
        // every timed commit finds at most 9 rows, under a tenth of flush.max.records: the worker's
        // timer alone decides, as before, however many idle polls come between the records
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = sessions.create(ctx, Map.of(DeltaSinkConfig.FLUSH_MAX_RECORDS, "100"));
        s.open(List.of(TP0));
        long offset = 0;
        for (int interval = 0; interval < 20; interval++) {
            for (int poll = 0; poll < 3; poll++) {
                s.put(events(0, offset, 3));
                offset += 3;
                s.put(List.of());
                s.put(List.of());
            }
            s.commit(Map.of()); // the worker's timer
        }
        assertEquals(0, ctx.commitRequests);
        assertEquals(List.of(), ctx.timeouts);
        assertEquals(coordinates(0, 0, offset), tableCoordinates());
    }

    @Test
    void redeliveredRecordsThatAddNoRowDoNotCountAsBuffered() {
        // records below the table's position are skipped: only rows in the batch count
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = sessions.create(ctx, Map.of(DeltaSinkConfig.FLUSH_MAX_RECORDS, "100"));
        s.open(List.of(TP0));
        s.put(events(0, 0, 30));
        s.commit(Map.of());
        ctx.timeouts.clear();
        s.put(events(0, 0, 30)); // all already in the table
        s.put(List.of());
        assertEquals(List.of(), ctx.timeouts);
        assertEquals(0, ctx.commitRequests);
    }

    @Test
    void withoutFlushMaxRecordsOnlyTheTimerCommits() {
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = sessions.create(ctx, Map.of(DeltaSinkConfig.FLUSH_MAX_RECORDS, "0"));
        s.open(List.of(TP0));
        s.put(events(0, 0, 500));
        s.put(List.of());
        assertEquals(0, ctx.commitRequests);
        assertEquals(List.of(), ctx.timeouts);
    }

    @Test
    void aFullBatchAsksAtOnceAsBefore() {
        RecordingContext ctx = new RecordingContext(false);
        SinkSession s = sessions.create(ctx, Map.of(DeltaSinkConfig.FLUSH_MAX_RECORDS, "20"));
        s.open(List.of(TP0));
        s.put(events(0, 0, 25));
        assertEquals(1, ctx.commitRequests);
        assertEquals(List.of(), ctx.timeouts, "a commit is asked for anyway: no short poll needed");
    }
}
