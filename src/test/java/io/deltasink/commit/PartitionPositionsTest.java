package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

    // ---- a run of records from one partition, then whatever may come between two records ----------

    /** TP0 delivered 10..14 and taken: the records of the next run come down to the batch range. */
    private static PartitionPositions afterARun() {
        PartitionPositions p = new PartitionPositions();
        p.assign(TP0, Optional.of(10L));
        p.assign(TP1, Optional.empty());
        for (long offset = 10; offset < 15; offset++) {
            assertEquals(OptionalLong.empty(), p.landedBelowSeek(TP0, offset));
            assertTrue(p.admit(TP0, offset));
            p.taken(TP0, offset);
        }
        return p;
    }

    @Test
    void aRunFromOnePartitionIsAdmittedOnceEach() {
        PartitionPositions p = afterARun();
        assertFalse(p.admit(TP0, 14), "taken already");
        assertFalse(p.admit(new TopicPartition("t", 0), 9), "an equal partition, not the same object");
        assertTrue(p.admit(TP0, 20));
        p.taken(TP0, 20);
        assertEquals(Map.of(TP0, 21L), p.batchEnds());
        p.dropBatch(List.of());
        assertEquals(Map.of(TP0, 10L), p.takeSeeks(), "back to the table's offset, not the run's");
    }

    @Test
    void aRewindStopsTheRunOfItsPartition() {
        PartitionPositions p = afterARun();
        assertEquals(Map.of(TP0, 30L), p.fenced(Map.of(TP0, Optional.of(30L))));
        assertFalse(p.admit(TP0, 15), "behind the table another writer moved");
        assertFalse(p.admit(TP0, 31), "ahead of the rewind the worker has not made yet");

        PartitionPositions late = afterARun();
        late.rewind(Map.of(TP0, 12L));
        assertFalse(late.admit(TP0, 15), "ahead of a late rewind");
        assertEquals(Map.of(TP0, 12L), late.takeSeeks());
    }

    @Test
    void aSeekThatLandsBelowItIsSeenAfterARun() {
        PartitionPositions p = afterARun();
        p.committed(p.batchEnds());
        p.sought(Map.of(TP0, 15L));
        assertEquals(OptionalLong.of(15L), p.landedBelowSeek(TP0, 3), "the log restarted below the seek");
        assertFalse(p.admit(TP0, 3));
        assertTrue(p.belowTablePosition(TP0), "counted as skipped below the position");

        PartitionPositions other = afterARun();
        other.soughtAt(TP0, 40L);
        assertEquals(OptionalLong.of(40L), other.landedBelowSeek(TP0, 15), "sent further by another table");
    }

    @Test
    void aCommitOrAReassignmentEndsTheRun() {
        PartitionPositions p = afterARun();
        p.committed(p.batchEnds());
        assertFalse(p.batchMoved());
        assertFalse(p.admit(TP0, 14), "in the table now");
        p.taken(TP0, 15);
        assertEquals(Map.of(TP0, 16L), p.batchEnds(), "a new batch");
        p.fenced(Map.of());
        assertEquals(Map.of(TP0, 15L), p.takeSeeks(), "rewound to the new batch's start");

        PartitionPositions again = afterARun();
        again.unassign(List.of(TP0));
        again.assign(TP0, Optional.of(3L));
        assertTrue(again.admit(TP0, 3), "assigned again at the table's offset");
        again.advance(TP0, 50);
        assertEquals(Map.of(TP0, 50L), again.batchEnds());
    }

    /**
     * Random sequences of deliveries (runs from a partition, redeliveries, gaps) and of everything
     * else that changes positions give the same answers as plain maps looked up for every record.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void answersAsPlainMapsDo(long seed) {
        Random random = new Random(seed);
        for (int round = 0; round < 50; round++) {
            PartitionPositions p = new PartitionPositions();
            Model m = new Model();
            List<TopicPartition> tps = List.of(TP0, TP1, new TopicPartition("u", 0));
            long[] delivered = new long[tps.size()];
            for (int step = 0; step < 400; step++) {
                int i = random.nextInt(tps.size());
                // an equal partition that is not the same object, now and then
                TopicPartition tp = random.nextInt(5) == 0 ? new TopicPartition(tps.get(i).topic(),
                        tps.get(i).partition()) : tps.get(i);
                String at = "seed " + seed + ", round " + round + ", step " + step;
                int op = random.nextInt(100);
                if (op < 70) { // a run of records
                    int run = 1 + random.nextInt(8);
                    if (random.nextInt(10) == 0) {
                        delivered[i] = Math.max(0, delivered[i] - random.nextInt(20)); // delivered again
                    }
                    for (int r = 0; r < run; r++) {
                        long offset = delivered[i]++;
                        assertEquals(m.landedBelowSeek(tp, offset), p.landedBelowSeek(tp, offset), at);
                        boolean admitted = m.admit(tp, offset);
                        assertEquals(admitted, p.admit(tp, offset), at);
                        if (admitted) {
                            m.taken(tp, offset);
                            p.taken(tp, offset);
                        } else {
                            assertEquals(m.belowPosition.contains(tp), p.belowTablePosition(tp), at);
                        }
                    }
                } else if (op < 73) {
                    Optional<Long> version = random.nextBoolean() ? Optional.empty()
                            : Optional.of((long) random.nextInt(40) - 1);
                    m.assign(tp, version);
                    p.assign(tp, version);
                } else if (op < 75) {
                    m.unassign(List.of(tp));
                    p.unassign(List.of(tp));
                } else if (op < 80) {
                    Map<TopicPartition, Long> ends = p.batchEnds();
                    assertEquals(m.batchEnds(), ends, at);
                    m.committed(ends);
                    p.committed(ends);
                } else if (op < 83) {
                    Map<TopicPartition, Optional<Long>> now = Map.of(tp, Optional.of((long) random.nextInt(60)));
                    assertEquals(m.fenced(now), p.fenced(now), at);
                } else if (op < 86) {
                    List<SinkRecord> unread = List.of(SinkRecords.of(tp.topic(), tp.partition(), delivered[i], "x"));
                    m.dropBatch(unread);
                    p.dropBatch(unread);
                } else if (op < 88) {
                    Map<TopicPartition, Long> seeks = Map.of(tp, (long) random.nextInt(60));
                    m.rewind(seeks);
                    p.rewind(seeks);
                } else if (op < 91) {
                    Map<TopicPartition, Long> targets = Map.of(tp, (long) random.nextInt(60));
                    m.sought(targets);
                    p.sought(targets);
                } else if (op < 93) {
                    long offset = random.nextInt(60);
                    m.soughtAt(tp, offset);
                    p.soughtAt(tp, offset);
                } else if (op < 95) {
                    long offset = random.nextInt(60);
                    m.table.put(tp, offset);
                    p.claimed(tp, offset);
                } else if (op < 97) {
                    long next = delivered[i] + random.nextInt(5);
                    m.advance(tp, next);
                    p.advance(tp, next);
                } else if (op < 99) {
                    assertEquals(m.takeSeeks(), p.takeSeeks(), at);
                } else {
                    assertEquals(m.pendingSeeks(), p.pendingSeeks(), at);
                }
                for (TopicPartition each : tps) {
                    assertEquals(m.batch.containsKey(each), p.inBatch(each), at);
                    assertEquals(m.pendingSeeks.containsKey(each), p.hasPendingSeek(each), at);
                    assertEquals(Optional.ofNullable(m.table.get(each)), p.tableOffset(each), at);
                }
                assertEquals(m.batchEnds(), p.batchEnds(), at);
            }
        }
    }

    /** The positions as plain maps, every record looked up in each: what PartitionPositions must answer. */
    private static final class Model {
        final Set<TopicPartition> assigned = new HashSet<>();
        final Map<TopicPartition, Long> table = new HashMap<>();
        final Map<TopicPartition, long[]> batch = new HashMap<>(); // {first, next}
        final Map<TopicPartition, Long> pendingSeeks = new HashMap<>();
        final Map<TopicPartition, Long> sought = new HashMap<>();
        final Set<TopicPartition> belowPosition = new HashSet<>();

        void assign(TopicPartition tp, Optional<Long> version) {
            assigned.add(tp);
            forget(tp);
            version.ifPresentOrElse(v -> table.put(tp, v), () -> table.remove(tp));
        }

        void unassign(List<TopicPartition> tps) {
            tps.forEach(tp -> {
                assigned.remove(tp);
                forget(tp);
                table.remove(tp);
            });
        }

        private void forget(TopicPartition tp) {
            pendingSeeks.remove(tp);
            sought.remove(tp);
            belowPosition.remove(tp);
            batch.remove(tp);
        }

        OptionalLong landedBelowSeek(TopicPartition tp, long offset) {
            if (pendingSeeks.containsKey(tp)) {
                return OptionalLong.empty();
            }
            Long target = sought.remove(tp);
            if (target == null || offset >= target) {
                return OptionalLong.empty();
            }
            belowPosition.add(tp);
            return OptionalLong.of(target);
        }

        boolean admit(TopicPartition tp, long offset) {
            Long rewind = pendingSeeks.get(tp);
            if (rewind != null && offset > rewind) {
                return false;
            }
            if (rewind != null && offset == rewind) {
                pendingSeeks.remove(tp);
            }
            Long next = batch.containsKey(tp) ? Long.valueOf(batch.get(tp)[1]) : table.get(tp);
            if (next == null || offset >= next) {
                belowPosition.remove(tp);
                return true;
            }
            return false;
        }

        void taken(TopicPartition tp, long offset) {
            advance(tp, offset);
            batch.get(tp)[1] = offset + 1;
        }

        void advance(TopicPartition tp, long next) {
            batch.computeIfAbsent(tp, k -> new long[] {next, next})[1] = next;
        }

        Map<TopicPartition, Long> batchEnds() {
            Map<TopicPartition, Long> out = new TreeMap<>(PartitionPositions.ORDER);
            batch.forEach((tp, range) -> out.put(tp, range[1]));
            return out;
        }

        void committed(Map<TopicPartition, Long> ends) {
            table.putAll(ends);
            batch.clear();
        }

        Map<TopicPartition, Long> fenced(Map<TopicPartition, Optional<Long>> now) {
            Map<TopicPartition, Long> seeks = new TreeMap<>(PartitionPositions.ORDER);
            batch.forEach((tp, range) -> {
                Optional<Long> version = now.getOrDefault(tp, Optional.empty());
                version.ifPresent(v -> table.put(tp, v));
                seeks.put(tp, version.filter(v -> v >= 0).orElse(range[0]));
            });
            batch.clear();
            pendingSeeks.putAll(seeks);
            return seeks;
        }

        void dropBatch(List<SinkRecord> unread) {
            Map<TopicPartition, Long> seeks = new HashMap<>();
            batch.forEach((tp, range) -> seeks.put(tp, position(tp).orElse(range[0])));
            for (SinkRecord r : unread) {
                TopicPartition tp = new TopicPartition(r.topic(), r.kafkaPartition());
                seeks.putIfAbsent(tp, position(tp).orElse(r.kafkaOffset()));
            }
            batch.clear();
            seeks.keySet().retainAll(assigned);
            pendingSeeks.putAll(seeks);
        }

        private Optional<Long> position(TopicPartition tp) {
            return Optional.ofNullable(table.get(tp)).filter(v -> v >= 0);
        }

        void rewind(Map<TopicPartition, Long> seeks) {
            seeks.forEach((tp, offset) -> {
                if (assigned.contains(tp)) {
                    pendingSeeks.put(tp, offset);
                }
            });
        }

        void sought(Map<TopicPartition, Long> targets) {
            targets.forEach(this::soughtAt);
        }

        void soughtAt(TopicPartition tp, long offset) {
            if (assigned.contains(tp)) {
                sought.put(tp, offset);
            }
        }

        Map<TopicPartition, Long> pendingSeeks() {
            pendingSeeks.keySet().retainAll(assigned);
            return new HashMap<>(pendingSeeks);
        }

        Map<TopicPartition, Long> takeSeeks() {
            Map<TopicPartition, Long> out = pendingSeeks();
            pendingSeeks.clear();
            return out;
        }
    }
}
