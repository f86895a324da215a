package io.deltasink.commit;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkTaskContext;

import io.deltasink.storage.StorageSettings;

/**
 * The router's side of a partition that feeds several tables ({@code ${route}} in table.location):
 * the seeks of every table are merged and the consumer is sent to the lowest one; the worker is
 * told the lowest committed position over the tables; a table that received nothing of a
 * partition since its position is moved up to what the task has read of it (an idle table must
 * not hold the group back); the tables under the root are found by listing it.
 */
final class FieldRoutes {
    private final SinkTaskContext context;
    /** Seeks the tables asked for since the last hand-off: the lowest per partition. */
    private final Map<TopicPartition, Long> collected = new HashMap<>();
    /**
     * Per partition, the offset after the last record routed since the last seek: every record of it
     * below that went to the table it names (or was a bad record).
     */
    private final Map<TopicPartition, Long> seen = new HashMap<>();
    /** The listing of the tables failed in open(): put() lists them before it looks at any record. */
    boolean listPending;

    FieldRoutes(SinkTaskContext context) {
        this.context = context;
    }

    /** A table's seeks (see {@link Assignment#seek}): kept until {@link #handOff}, the lowest per partition. */
    void collect(Map<TopicPartition, Long> targets) {
        targets.forEach((tp, offset) -> collected.merge(tp, offset, Math::min));
    }

    /** Sends the consumer to the lowest offset any table asked for, and tells every table where it went. */
    void handOff(Collection<TableRoute> routes) {
        if (collected.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> out = new HashMap<>(collected);
        collected.clear();
        out.forEach((tp, offset) -> {
            seen.remove(tp);
            routes.forEach(r -> r.assignment.positions().soughtAt(tp, offset));
        });
        context.offset(out);
    }

    /** A record of {@code tp} at {@code offset} was routed (taken, skipped as held, or a bad record). */
    void routed(TopicPartition tp, long offset) {
        seen.put(tp, offset + 1);
    }

    void unassign(Collection<TopicPartition> partitions) {
        partitions.forEach(tp -> {
            seen.remove(tp);
            collected.remove(tp);
        });
    }

    /**
     * Before a commit: a table whose batch holds nothing of a partition and whose position lies below
     * what has been routed of it moves to that point (its commit then writes the txn version alone).
     * Never while a table of the partition waits for a rewind.
     */
    void advanceIdle(Collection<TableRoute> routes) {
        for (Map.Entry<TopicPartition, Long> e : seen.entrySet()) {
            TopicPartition tp = e.getKey();
            if (routes.stream().anyMatch(r -> r.assignment.positions().hasPendingSeek(tp))) {
                continue;
            }
            for (TableRoute r : routes) {
                PartitionPositions p = r.assignment.positions();
                Optional<Long> position = p.position(tp);
                if (p.isAssigned(tp) && !p.inBatch(tp) && position.isPresent() && position.get() < e.getValue()) {
                    p.advance(tp, e.getValue());
                }
            }
        }
    }

    /** The offsets to report: per partition the lowest of the tables' positions. */
    static Map<TopicPartition, OffsetAndMetadata> lowest(Collection<TableRoute> routes,
                                                        Map<TopicPartition, OffsetAndMetadata> consumed) {
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        for (TableRoute r : routes) {
            r.assignment.tableOffsets(consumed).forEach((tp, o) -> out.merge(tp, o,
                    (a, b) -> a.offset() <= b.offset() ? a : b));
        }
        return out;
    }

    /** The folders under the root that hold a Delta table a route could have made. */
    static List<String> listTables(StorageSettings root) throws IOException {
        Path path = root.tablePath();
        FileSystem fs = path.getFileSystem(root.hadoopConf());
        FileStatus[] children;
        try {
            children = fs.listStatus(path);
        } catch (FileNotFoundException e) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (FileStatus child : children) {
            String name = child.getPath().getName();
            if (child.isDirectory() && RouteField.isFolderName(name)
                    && fs.exists(new Path(child.getPath(), "_delta_log"))) {
                out.add(name);
            }
        }
        return out;
    }
}
