package io.deltasink.commit;

import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Where each assigned Kafka partition stands: the offset the table holds (the next offset to
 * read; absent when the table has never seen the partition), the offsets of the uncommitted
 * batch, and rewinds waiting to be handed to the worker. Pure bookkeeping, no I/O.
 *
 * <p>Rewinds decided outside {@code put()} (in a commit or in {@code close()}) wait here and are
 * handed to the worker at the end of the next {@code put()} (or before it throws a
 * RetriableException), only for partitions still assigned:
 * the worker seeks every requested offset at its next poll, even for a partition a rebalance took
 * away in between, and that seek would kill the task.
 *
 * <p>The table offset may be {@code NO_POSITION} (-1, a reset through the offsets API): it is kept
 * as it is for fencing (a commit expects exactly what the table said), but it is never a place to
 * seek to nor an offset to report; for those it counts as absent.
 */
final class PartitionPositions {
    static final Comparator<TopicPartition> ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    private final Set<TopicPartition> assigned = new HashSet<>();
    private final Map<TopicPartition, Long> table = new HashMap<>();
    /** The uncommitted batch's offsets of each partition it moved. */
    private final Map<TopicPartition, BatchRange> batch = new HashMap<>();
    private final Map<TopicPartition, Long> pendingSeeks = new HashMap<>();
    /** Where the worker was last sent, until the first record after that seek arrives. */
    private final Map<TopicPartition, Long> sought = new HashMap<>();
    /** Partitions whose log restarted below the table position (see landedBelowSeek), until they reach it. */
    private final Set<TopicPartition> belowPosition = new HashSet<>();
    /**
     * The partition of the last record taken, while it has no rewind pending, no seek to look for
     * and no restart below its position: for it, {@link #landedBelowSeek}, {@link #admit} and
     * {@link #taken} come down to its batch range ({@code hotRange}), instead of a look-up in each
     * map for every record of a run from one partition. Every change to rewinds, seeks, the
     * assignment or the batch forgets it.
     */
    private TopicPartition hot;
    private BatchRange hotRange;

    /** A partition's offsets in the batch: the first taken, and the next after the last. */
    private static final class BatchRange {
        final long first;
        long next;

        BatchRange(long first, long next) {
            this.first = first;
            this.next = next;
        }
    }

    /** A partition joins, at the version the table holds for it (if any). */
    void assign(TopicPartition tp, Optional<Long> tableVersion) {
        hot = null;
        assigned.add(tp);
        pendingSeeks.remove(tp);
        sought.remove(tp);
        belowPosition.remove(tp);
        batch.remove(tp);
        tableVersion.ifPresentOrElse(v -> table.put(tp, v), () -> table.remove(tp));
    }

    void unassign(Collection<TopicPartition> partitions) {
        hot = null;
        assigned.removeAll(partitions);
        for (TopicPartition tp : partitions) {
            pendingSeeks.remove(tp);
            sought.remove(tp);
            belowPosition.remove(tp);
            table.remove(tp);
            batch.remove(tp);
        }
    }

    /**
     * Whether a delivered record is new: not already in the table or the batch, and not ahead of a
     * pending rewind (those records come again after the rewind).
     */
    boolean admit(TopicPartition tp, long offset) {
        if (tp.equals(hot)) {
            return offset >= hotRange.next;
        }
        Long rewind = pendingSeeks.get(tp);
        if (rewind != null) {
            if (offset > rewind) {
                return false;
            }
            if (offset == rewind) {
                pendingSeeks.remove(tp); // delivery already continues where the rewind would go
            }
        }
        BatchRange range = batch.get(tp);
        Long next = range != null ? Long.valueOf(range.next) : table.get(tp);
        boolean admitted = next == null || offset >= next;
        if (admitted) {
            belowPosition.remove(tp);
        }
        return admitted;
    }

    /**
     * Where to send the consumer to read from {@code offset} on: a table position {@code T > 0} is
     * sought at {@code T - 1}, one record that the table already holds and that is skipped. The
     * worker takes the offset it seeks to as committed and skips a consumer-group commit of the
     * same offset, so after a seek to {@code T} a group that lost its offsets (deleted, expired)
     * would stay behind the table until new records arrive; from {@code T - 1} the first commit
     * moves it to {@code T}.
     */
    long seekTarget(TopicPartition tp, long offset) {
        Long position = table.get(tp);
        return position != null && position == offset && offset > 0 ? offset - 1 : offset;
    }

    /** The worker was asked to seek to these offsets. */
    void sought(Map<TopicPartition, Long> targets) {
        hot = null;
        targets.forEach((tp, offset) -> {
            if (assigned.contains(tp)) {
                sought.put(tp, offset);
            }
        });
    }

    /**
     * For each delivered record, before {@link #admit}: the offset the consumer was sent to, when
     * this is the first record after that seek and it lies below it (the partition no longer holds
     * that offset: the topic was created again, or its log truncated); empty otherwise. A batch
     * delivered again before a pending rewind applies is not "after the seek".
     */
    OptionalLong landedBelowSeek(TopicPartition tp, long offset) {
        if (tp.equals(hot) || pendingSeeks.containsKey(tp)) {
            return OptionalLong.empty();
        }
        Long target = sought.remove(tp);
        if (target == null || offset >= target) {
            return OptionalLong.empty();
        }
        belowPosition.add(tp);
        return OptionalLong.of(target);
    }

    /** Whether a record that {@link #admit} refused was skipped because the log restarted below the table position. */
    boolean belowTablePosition(TopicPartition tp) {
        return belowPosition.contains(tp);
    }

    /** The record at {@code offset} is part of the batch now (as a row, or skipped on purpose). */
    void taken(TopicPartition tp, long offset) {
        if (tp.equals(hot)) {
            hotRange.next = offset + 1;
            return;
        }
        BatchRange range = moveTo(tp, offset, offset + 1);
        if (!pendingSeeks.containsKey(tp) && !sought.containsKey(tp) && !belowPosition.contains(tp)) {
            hot = tp;
            hotRange = range;
        }
    }

    /** The batch holds {@code tp} from {@code first} (unless it held it already) up to {@code next}. */
    private BatchRange moveTo(TopicPartition tp, long first, long next) {
        BatchRange range = batch.get(tp);
        if (range == null) {
            range = new BatchRange(first, next);
            batch.put(tp, range);
        } else {
            range.next = next;
        }
        return range;
    }

    boolean batchMoved() {
        return !batch.isEmpty();
    }

    /** Partition -> next offset after the batch, for the partitions the batch moved, in a stable order. */
    Map<TopicPartition, Long> batchEnds() {
        Map<TopicPartition, Long> out = new TreeMap<>(ORDER);
        batch.forEach((tp, range) -> out.put(tp, range.next));
        return out;
    }

    Optional<Long> tableOffset(TopicPartition tp) {
        return Optional.ofNullable(table.get(tp));
    }

    /** The batch landed: its ends are the table's offsets now. */
    void committed(Map<TopicPartition, Long> ends) {
        table.putAll(ends);
        clearBatch();
    }

    /**
     * Another writer moved some partitions: take the table's versions and rewind every partition of
     * the batch to them (or to where the batch started, for one the table still does not know).
     */
    Map<TopicPartition, Long> fenced(Map<TopicPartition, Optional<Long>> tableNow) {
        Map<TopicPartition, Long> seeks = new TreeMap<>(ORDER);
        for (Map.Entry<TopicPartition, BatchRange> e : batch.entrySet()) {
            TopicPartition tp = e.getKey();
            Optional<Long> now = tableNow.getOrDefault(tp, Optional.empty());
            now.ifPresent(v -> table.put(tp, v));
            seeks.put(tp, now.filter(PartitionPositions::isPosition).orElse(e.getValue().first));
        }
        clearBatch();
        pendingSeeks.putAll(seeks);
        return seeks;
    }

    /**
     * The batch is dropped: rewind each partition it touched, and each partition of
     * {@code unread} (records delivered but not looked at), to the table's offset or else to the
     * first offset seen.
     */
    void dropBatch(List<SinkRecord> unread) {
        Map<TopicPartition, Long> seeks = new HashMap<>();
        for (Map.Entry<TopicPartition, BatchRange> e : batch.entrySet()) {
            seeks.put(e.getKey(), position(e.getKey()).orElse(e.getValue().first));
        }
        for (SinkRecord r : unread) {
            TopicPartition tp = new TopicPartition(r.topic(), r.kafkaPartition());
            seeks.putIfAbsent(tp, position(tp).orElse(r.kafkaOffset()));
        }
        clearBatch();
        seeks.keySet().retainAll(assigned);
        pendingSeeks.putAll(seeks);
    }

    /** Rewinds decided now (positions read late): handed at the end of the next put(). */
    void rewind(Map<TopicPartition, Long> seeks) {
        hot = null;
        for (Map.Entry<TopicPartition, Long> e : seeks.entrySet()) {
            if (assigned.contains(e.getKey())) {
                pendingSeeks.put(e.getKey(), e.getValue());
            }
        }
    }

    /**
     * The rewinds to hand to the worker before put() throws a RetriableException; they stay pending,
     * because the worker seeks and then delivers the same batch again: its records ahead of a rewind
     * must be skipped (they come again after the seek), and the rewind is requested once more at the
     * end of that put().
     */
    Map<TopicPartition, Long> pendingSeeks() {
        pendingSeeks.keySet().retainAll(assigned);
        return new HashMap<>(pendingSeeks);
    }

    /** The rewinds to hand to the worker now (still-assigned partitions only); forgets them. */
    Map<TopicPartition, Long> takeSeeks() {
        pendingSeeks.keySet().retainAll(assigned);
        Map<TopicPartition, Long> out = new HashMap<>(pendingSeeks);
        pendingSeeks.clear();
        return out;
    }

    /**
     * The offsets to report to the worker: what the table holds for assigned partitions, except
     * where the worker has consumed less (it would refuse to commit an offset it has not reached).
     *
     * @param consumed the worker's next offset per partition; a partition missing here is not limited
     */
    Map<TopicPartition, OffsetAndMetadata> tableOffsets(Map<TopicPartition, OffsetAndMetadata> consumed) {
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        for (TopicPartition tp : assigned) {
            OffsetAndMetadata reached = consumed.get(tp);
            position(tp).filter(v -> reached == null || v <= reached.offset())
                    .ifPresent(v -> out.put(tp, new OffsetAndMetadata(v)));
        }
        return out;
    }

    // ---- a partition feeding several tables (routing by a field value) ---------------------------

    boolean isAssigned(TopicPartition tp) {
        return assigned.contains(tp);
    }

    boolean hasPendingSeek(TopicPartition tp) {
        return pendingSeeks.containsKey(tp);
    }

    /** Whether a record at {@code offset} lies ahead of a rewind of the partition not handed to the worker yet. */
    boolean aheadOfRewind(TopicPartition tp, long offset) {
        Long rewind = pendingSeeks.get(tp);
        return rewind != null && offset > rewind;
    }

    boolean inBatch(TopicPartition tp) {
        return batch.containsKey(tp);
    }

    /** The table now holds {@code offset} as the partition's position (a txn-only claim landed). */
    void claimed(TopicPartition tp, long offset) {
        table.put(tp, offset);
    }

    /**
     * The batch moves the partition to {@code next} without rows: no record of it below {@code next}
     * and at or past the table's position came to this table.
     */
    void advance(TopicPartition tp, long next) {
        moveTo(tp, next, next);
    }

    /** The consumer was sent to {@code offset} for another table of the partition (the lowest one). */
    void soughtAt(TopicPartition tp, long offset) {
        hot = null;
        if (assigned.contains(tp)) {
            sought.put(tp, offset);
        }
    }

    /** The table offset when it is a real position (not absent, not NO_POSITION). */
    Optional<Long> position(TopicPartition tp) {
        return Optional.ofNullable(table.get(tp)).filter(PartitionPositions::isPosition);
    }

    static boolean isPosition(long tableOffset) {
        return tableOffset >= 0;
    }

    private void clearBatch() {
        hot = null;
        batch.clear();
    }
}
