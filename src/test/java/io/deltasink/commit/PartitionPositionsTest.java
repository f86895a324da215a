package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import io.deltasink.testing.SinkRecords;

class PartitionPositionsTest {
    static final TopicPartition TP0 = new TopicPartition("t", 0);
    static final TopicPartition TP1 = new TopicPartition("t", 1);

    @Test
    void recordsBelowTheTableOrTheBatchAreNotAdmitted() {
        PartitionPositions p = new PartitionPositions();
        p.assign(TP0, Optional.of(10L));
        p.assign(TP1, Optional.empty());
        assertFalse(p.admit(TP0, 9));
        assertTrue(p.admit(TP0, 10));
        assertTrue(p.admit(TP1, 0), "a partition the table never saw takes whatever comes");
        p.taken(TP0, 10);
        p.taken(TP0, 11);
        assertFalse(p.admit(TP0, 11), "already in the batch");
        assertTrue(p.admit(TP0, 14), "gaps (compaction, transaction markers) are fine");
        assertEquals(Map.of(TP0, 12L), p.batchEnds());
        assertEquals(Map.of(TP0, new OffsetAndMetadata(10)), p.tableOffsets(Map.of()));

        p.committed(p.batchEnds());
        assertFalse(p.batchMoved());
        assertEquals(Map.of(TP0, new OffsetAndMetadata(12)), p.tableOffsets(Map.of()));
        assertFalse(p.admit(TP0, 11));
    }

    @Test
    void aResetPartitionIsExpectedAsResetButNeverSoughtOrReported() {
        PartitionPositions p = new PartitionPositions();
        p.assign(TP0, Optional.of(-1L));
        p.assign(TP1, Optional.of(-1L));
        assertTrue(p.admit(TP0, 0), "a reset partition takes whatever comes");
        assertEquals(Map.of(), p.tableOffsets(Map.of()), "no position to report");
        assertEquals(Optional.of(-1L), p.tableOffset(TP0), "a commit expects the reset, so it is fenced otherwise");

        p.taken(TP0, 7);
        p.taken(TP1, 3);
        p.dropBatch(List.of());
        assertEquals(Map.of(TP0, 7L, TP1, 3L), p.takeSeeks(), "rewinds go to the batch start, never to -1");

        p.taken(TP0, 7);
        Map<TopicPartition, Long> seeks = p.fenced(Map.of(TP0, Optional.of(-1L)));
        assertEquals(Map.of(TP0, 7L), seeks, "reset by another writer: back to the batch start");

        p.taken(TP0, 7);
        p.committed(p.batchEnds());
        assertEquals(Map.of(TP0, new OffsetAndMetadata(8)), p.tableOffsets(Map.of()));
    }

    @Test
    void fencingTakesTheTablesVersionsAndHoldsRecordsUntilTheRewind() {
        PartitionPositions p = new PartitionPositions();
        p.assign(TP0, Optional.of(10L));
        p.assign(TP1, Optional.empty());
        p.taken(TP0, 10);
        p.taken(TP0, 11);
        p.taken(TP1, 5);

        Map<TopicPartition, Long> seeks = p.fenced(Map.of(TP0, Optional.of(30L), TP1, Optional.empty()));
        assertEquals(Map.of(TP0, 30L, TP1, 5L), seeks);
        assertFalse(p.admit(TP0, 12), "behind the table now");
        assertFalse(p.admit(TP0, 31), "ahead of the pending rewind: it comes again after the seek");
        assertTrue(p.admit(TP1, 5), "delivery continuing exactly at the rewind needs no seek");
        assertEquals(Map.of(TP0, 30L), p.takeSeeks());
        assertEquals(Map.of(), p.takeSeeks(), "handed over once");
        assertTrue(p.admit(TP0, 30));
    }

    @Test
    void droppingABatchRewindsTouchedAndUnreadPartitionsStillAssigned() {
        PartitionPositions p = new PartitionPositions();
        p.assign(TP0, Optional.of(10L));
        p.assign(TP1, Optional.empty());
        TopicPartition tp2 = new TopicPartition("t", 2);
        p.assign(tp2, Optional.empty());
        p.taken(TP0, 10);
        p.taken(TP0, 11);
        p.dropBatch(List.of(SinkRecords.of("t", 1, 7, "x"), SinkRecords.of("t", 1, 8, "x"),
                SinkRecords.of("t", 2, 3, "x")));
        p.unassign(List.of(tp2));
        assertFalse(p.batchMoved());
        assertEquals(Map.of(TP0, 10L, TP1, 7L), p.takeSeeks(), "a revoked partition is never sought");
    }

    @Test
    void rewindsHandedBeforeARetryStayPendingForTheRedeliveredBatch() {
        // WorkerSinkTask after a RetriableException from put(): it seeks (context.offset), waits, then
        // delivers the same batch again; records ahead of the rewind in it must wait for the seek
        PartitionPositions p = new PartitionPositions();
        p.assign(TP0, Optional.of(10L));
        p.assign(TP1, Optional.of(50L));
        p.taken(TP0, 10);
        p.taken(TP0, 11);
        p.dropBatch(List.of(SinkRecords.of("t", 0, 12, "x"), SinkRecords.of("t", 1, 60, "x")));
        assertEquals(Map.of(TP0, 10L, TP1, 50L), p.pendingSeeks());
        assertEquals(Map.of(TP0, 10L, TP1, 50L), p.pendingSeeks(), "still pending after being handed");

        assertFalse(p.admit(TP0, 12), "redelivered, ahead of the rewind");
        assertFalse(p.admit(TP1, 60), "redelivered, ahead of the rewind");
        assertEquals(Map.of(TP0, 10L, TP1, 50L), p.takeSeeks(), "asked for again after the redelivery");
        assertTrue(p.admit(TP0, 10), "after the seek");
        assertTrue(p.admit(TP1, 50), "after the seek");
    }

    @Test
    void aLateRewindOnlyAppliesToAssignedPartitions() {
        PartitionPositions p = new PartitionPositions();
        p.assign(TP0, Optional.of(25L));
        p.rewind(Map.of(TP0, 25L, TP1, 3L));
        assertFalse(p.admit(TP0, 40), "the group ran ahead of the table: wait for the seek");
        assertEquals(Map.of(TP0, 25L), p.takeSeeks());
    }
}
