package io.deltasink.commit;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;

import io.deltasink.testing.RecordingContext;

/**
 * Drives a {@link SinkSession} the way Kafka 4.3's WorkerSinkTask drives a task, for tests that
 * need many polls: at assignment the consumer starts at the group's committed offset (else the
 * earliest one) and the worker takes it as committed; the task's seeks are applied at the start of
 * each poll (an offset the log does not hold resets to the earliest one) and taken as committed
 * too; a batch refused with a {@link RetriableException} is delivered again, after the seeks,
 * before anything new; every {@code commitEvery} polls the worker asks preCommit and commits what
 * the task returns, unless it equals what it last committed.
 */
final class WorkerLoop {
    private final SinkSession session;
    private final RecordingContext context;
    private final Map<TopicPartition, List<SinkRecord>> log;
    private final int batchSize;
    private final int commitEvery;

    /** The consumer group's committed offsets (survives sessions; a test may clear it). */
    final Map<TopicPartition, Long> group;
    private final Map<TopicPartition, Long> position = new TreeMap<>(PartitionPositions.ORDER);
    private final Map<TopicPartition, OffsetAndMetadata> lastCommitted = new HashMap<>();
    private final Map<TopicPartition, OffsetAndMetadata> current = new HashMap<>();
    private List<SinkRecord> redeliver;
    int polls;
    int retriable;

    /**
     * @param log   each partition's records, in offset order (offsets may start above 0: an older part
     *              of the log was deleted)
     * @param group the consumer group's offsets, shared by the loops of successive sessions
     */
    WorkerLoop(SinkSession session, RecordingContext context, Map<TopicPartition, List<SinkRecord>> log,
               Map<TopicPartition, Long> group, int batchSize, int commitEvery) {
        this.session = session;
        this.context = context;
        this.log = log;
        this.group = group;
        this.batchSize = batchSize;
        this.commitEvery = commitEvery;
    }

    /** The partitions are assigned: positions from the group, then open() and its seeks. */
    WorkerLoop assign(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            long start = group.containsKey(tp) ? group.get(tp) : earliest(tp);
            position.put(tp, start);
            lastCommitted.put(tp, new OffsetAndMetadata(start));
            current.put(tp, new OffsetAndMetadata(start));
            context.assignment.add(tp);
        }
        session.open(partitions);
        rewind();
        return this;
    }

    /**
     * A cooperative rebalance takes these partitions away: the worker's offset commit, then close()
     * for them; the loop polls the others only.
     */
    WorkerLoop revoke(Collection<TopicPartition> partitions) {
        commit();
        session.close(partitions);
        for (TopicPartition tp : partitions) {
            position.remove(tp);
            lastCommitted.remove(tp);
            current.remove(tp);
            context.assignment.remove(tp);
        }
        return this;
    }

    /** Polls until every partition's position is at the end of its log and a commit followed. */
    WorkerLoop runToEnd(int maxPolls) {
        while (polls < maxPolls) {
            poll();
            if (redeliver == null && caughtUp()) {
                commit();
                if (redeliver == null && caughtUp()) {
                    return this;
                }
            }
        }
        throw new AssertionError("not caught up after " + maxPolls + " polls; positions " + position);
    }

    /** One poll: seeks, then a batch (the refused one again, or the next records) to put(). */
    void poll() {
        polls++;
        rewind();
        List<SinkRecord> batch = redeliver != null ? redeliver : fetch();
        try {
            session.put(batch);
            redeliver = null;
            for (SinkRecord r : batch) {
                current.put(new TopicPartition(r.topic(), r.kafkaPartition()), new OffsetAndMetadata(r.kafkaOffset() + 1));
            }
        } catch (RetriableException e) {
            retriable++;
            redeliver = batch;
        }
        if (polls % commitEvery == 0) {
            commit();
        }
    }

    /** The worker's offset commit: preCommit, then a group commit of what changed. */
    void commit() {
        Map<TopicPartition, OffsetAndMetadata> provided = session.commit(new HashMap<>(current));
        Map<TopicPartition, OffsetAndMetadata> commitable = new HashMap<>(lastCommitted);
        provided.forEach((tp, offset) -> {
            if (commitable.containsKey(tp) && offset.offset() <= current.get(tp).offset()) {
                commitable.put(tp, offset);
            }
        });
        if (!provided.isEmpty() && !commitable.equals(lastCommitted)) {
            commitable.forEach((tp, o) -> group.put(tp, o.offset()));
            lastCommitted.clear();
            lastCommitted.putAll(commitable);
        }
    }

    private List<SinkRecord> fetch() {
        List<SinkRecord> out = new ArrayList<>();
        for (Map.Entry<TopicPartition, Long> e : position.entrySet()) {
            for (SinkRecord r : log.getOrDefault(e.getKey(), List.of())) {
                if (r.kafkaOffset() >= e.getValue() && out.size() < batchSize) {
                    out.add(r);
                    e.setValue(r.kafkaOffset() + 1);
                }
            }
        }
        return out;
    }

    private void rewind() {
        Map<TopicPartition, Long> seeks = new HashMap<>(context.seeks);
        context.seeks.clear();
        seeks.forEach((tp, offset) -> {
            long to = offset < earliest(tp) || offset > end(tp) ? earliest(tp) : offset;
            position.put(tp, to);
            lastCommitted.put(tp, new OffsetAndMetadata(offset));
            current.put(tp, new OffsetAndMetadata(offset));
        });
    }

    private boolean caughtUp() {
        return position.entrySet().stream().allMatch(e -> e.getValue() >= end(e.getKey()));
    }

    private long earliest(TopicPartition tp) {
        List<SinkRecord> records = log.getOrDefault(tp, List.of());
        return records.isEmpty() ? 0 : records.get(0).kafkaOffset();
    }

    private long end(TopicPartition tp) {
        List<SinkRecord> records = log.getOrDefault(tp, List.of());
        return records.isEmpty() ? 0 : records.get(records.size() - 1).kafkaOffset() + 1;
    }
}
