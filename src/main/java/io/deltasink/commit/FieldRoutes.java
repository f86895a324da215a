package io.deltasink.commit;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.metrics.SinkMetrics;
import io.deltasink.storage.StorageSettings;

/**
 * The field-routing policy of a task ({@code ${route}} in table.location), where a partition feeds
 * several tables: the tables under the root are found by listing it and every table places every
 * assigned partition; a record goes to the table its field names; a table's first record of a
 * partition is claimed first (a txn-only commit of its offset); the seeks of every table are merged
 * and the consumer is sent to the lowest one; the worker is told the lowest committed position over
 * the tables; a table that received nothing of a partition since its position is moved up to what
 * the task has read of it (an idle table must not hold the group back). {@link SinkSession} routes
 * the records and handles failures.
 */
final class FieldRoutes {
    private static final Logger log = LoggerFactory.getLogger(FieldRoutes.class);

    private final DeltaSinkConfig config;
    /** The folder of the tables. */
    private final StorageSettings root;
    private final SinkTaskContext context;
    private final RouteField routeField;
    private final BadRecords badRecords;
    private final SinkMetrics metrics;
    /** The session's routes (table location -> route), shared: new tables are added here. */
    private final Map<String, TableRoute> routes;
    private final Function<StorageSettings, TableRoute> newRoute;
    /** table folder -> its route */
    private final Map<String, TableRoute> byFolder = new HashMap<>();
    /** The partitions assigned to the task (every table places them all). */
    private final Set<TopicPartition> assigned = new HashSet<>();
    /** Seeks the tables asked for since the last hand-off: the lowest per partition. */
    private final Map<TopicPartition, Long> collected = new HashMap<>();
    /**
     * Per partition, the offset after the last record routed since the last seek: every record of it
     * below that went to the table it names (or was a bad record).
     */
    private final Map<TopicPartition, Long> seen = new HashMap<>();
    /** The listing of the tables failed in open(): put() lists them before it looks at any record. */
    private boolean listPending;
    private long tombstones;

    FieldRoutes(DeltaSinkConfig config, StorageSettings root, SinkTaskContext context, Clock clock,
                BadRecords badRecords, SinkMetrics metrics, Map<String, TableRoute> routes,
                Function<StorageSettings, TableRoute> newRoute) {
        this.config = config;
        this.root = root;
        this.context = context;
        this.routeField = new RouteField(config, clock);
        this.badRecords = badRecords;
        this.metrics = metrics;
        this.routes = routes;
        this.newRoute = newRoute;
    }

    // ---- the tables under the root ----------------------------------------------------------------

    /**
     * Partitions join: lists the tables under the root, each a route (a partition's records may be in
     * any of them, so each one's position counts when placing it). When the listing fails, put()
     * lists them ({@link #listPending}) and every route places every assigned partition then.
     */
    void open(Collection<TopicPartition> partitions) throws IOException {
        assigned.addAll(partitions);
        try {
            listRoutes();
        } catch (IOException | RuntimeException e) {
            listPending = true;
            throw e;
        }
    }

    /** Whether the listing of open() failed and put() must list before it looks at any record. */
    boolean listPending() {
        return listPending;
    }

    /**
     * Lists the tables open() could not; every route then places every assigned partition at the
     * start of this put() (the unresolved partitions), its rewinds handed at its end.
     */
    void listPendingRoutes() throws IOException {
        int found = listRoutes();
        listPending = false;
        routes.values().forEach(route -> route.assignment.defer(assigned));
        log.info("Listed the tables under {}: {} new", root.tableUri(), found);
    }

    /** Makes a route of each table under the root not known yet; returns how many. */
    private int listRoutes() throws IOException {
        int found = 0;
        for (String folder : listTables(root)) {
            StorageSettings tableStorage = root.at(config.tableLocationOfRoute(folder));
            if (!routes.containsKey(tableStorage.tableUri())) {
                routes.put(tableStorage.tableUri(), newRoute.apply(tableStorage));
                found++;
            }
        }
        return found;
    }

    // ---- records ------------------------------------------------------------------------------------

    /**
     * The route a record's field names; null for a tombstone (skipped or failing per
     * behavior.on.null.values) or a bad record (reported per errors.tolerance). A bad record or a
     * tombstone below every table's position of its partition was routed before the tables moved
     * past it (it is delivered again by the seek one record early, or a rewind): skipped, not
     * reported or counted twice.
     */
    TableRoute route(SinkRecord record) {
        if (record.value() == null) {
            if (belowEveryTable(record)) {
                return null;
            }
            if (config.failOnNullValues()) {
                throw new DataException("Record " + record.topic() + "/" + record.kafkaPartition() + "@"
                        + record.kafkaOffset() + " has a null value (tombstone) and behavior.on.null.values=fail");
            }
            tombstones++;
            metrics.tombstone();
            return null;
        }
        String folder;
        try {
            folder = routeField.folder(record);
        } catch (DataException e) {
            if (!belowEveryTable(record)) {
                badRecords.handle(record, e);
                metrics.badRecord();
            }
            return null;
        }
        return route(folder);
    }

    /**
     * Whether the record lies below the position of its partition in every table that holds one (at
     * least one): every record below that went to its table or was handled as a bad record (a table
     * holding no position of the partition holds no row of it, and the claim keeps every other table
     * from committing a position past a record routed to it).
     */
    private boolean belowEveryTable(SinkRecord record) {
        TopicPartition tp = new TopicPartition(record.topic(), record.kafkaPartition());
        boolean held = false;
        for (TableRoute r : routes.values()) {
            Optional<Long> position = r.assignment.position(tp);
            if (position.isPresent() && record.kafkaOffset() >= position.get()) {
                return false;
            }
            held |= position.isPresent();
        }
        if (held) {
            log.debug("Skipping {}@{}: below every table's position, handled before", tp, record.kafkaOffset());
        }
        return held;
    }

    /**
     * The route of a table folder under the root, made on first use; a new route places every
     * assigned partition at once (the table is created or read here, in put(), before any record
     * goes to it). Its seeks are not needed: what it holds of a partition lies below where the
     * consumer is.
     */
    private TableRoute route(String folder) {
        TableRoute known = byFolder.get(folder);
        if (known != null) {
            return known;
        }
        StorageSettings tableStorage = root.at(config.tableLocationOfRoute(folder));
        TableRoute route = routes.get(tableStorage.tableUri());
        if (route == null) {
            route = newRoute.apply(tableStorage);
            routes.put(tableStorage.tableUri(), route);
            route.assignment.place(assigned, route.batch.readTable());
        }
        byFolder.put(folder, route);
        return route;
    }

    /**
     * The first record of a partition for a table that holds no position of it. Before the record
     * is taken, a txn-only commit writes its offset as the partition's position in that table, so a
     * crash after another table committed a position past it still finds it: the consumer is sought
     * to the lowest position over the tables. False when the record is a bad record (auto mode, no
     * columns), the table holds it already, or it lies ahead of another table's rewind not handed to
     * the worker yet (positions placed late, in put(): the records between must reach this table
     * first, or its claim would skip them).
     */
    boolean claim(TableRoute route, SinkRecord record, TopicPartition tp) {
        long offset = record.kafkaOffset();
        if (routes.values().stream().anyMatch(r -> r.assignment.positions().aheadOfRewind(tp, offset))) {
            return false; // another table rewinds the partition below it: the records between come first
        }
        Map<String, Optional<Long>> expected = Map.of(route.assignment.appId(tp),
                route.assignment.positions().tableOffset(tp));
        TableBatch.Result result = route.batch.claim(record, expected, Map.of(route.assignment.appId(tp), offset));
        if (result == null) {
            return false;
        }
        if (result instanceof TableBatch.Refused r) {
            // another writer wrote a position of this partition into the table: take the table's view
            route.assignment.place(List.of(tp), route.batch.readTable());
            log.warn("Position of {} in {} was written by another writer meanwhile (table version {}); taking it",
                    tp, route.tableUri, r.fenced().tableVersion());
            if (route.assignment.position(tp).isEmpty()) {
                throw new RetriableException("Cannot claim the position of " + tp + " in " + route.tableUri);
            }
            return route.assignment.admit(tp, offset);
        }
        route.assignment.positions().claimed(tp, offset);
        log.info("Table {} holds partition {} from offset {} on (version {})", route.tableUri, tp, offset,
                ((TableBatch.Landed) result).version());
        return true;
    }

    long tombstones() {
        return tombstones;
    }

    // ---- seeks and positions ------------------------------------------------------------------------

    /**
     * The seeks of a partition come only from the tables that hold a position of it; where none
     * does, it starts per start.position.
     */
    Map<TopicPartition, Long> seeks(TableRoute route, Map<TopicPartition, Long> seeks) {
        Map<TopicPartition, Long> out = new HashMap<>();
        seeks.forEach((tp, offset) -> {
            boolean held = routes.values().stream().anyMatch(r -> r.assignment.position(tp).isPresent());
            if (!held || route.assignment.position(tp).isPresent()) {
                out.put(tp, offset);
            }
        });
        return out;
    }

    /** A table's seeks (see {@link Assignment#seek}): kept until {@link #handOff}, the lowest per partition. */
    void collect(Map<TopicPartition, Long> targets) {
        targets.forEach((tp, offset) -> collected.merge(tp, offset, Math::min));
    }

    /** Sends the consumer to the lowest offset any table asked for, and tells every table where it went. */
    void handOff() {
        if (collected.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> out = new HashMap<>(collected);
        collected.clear();
        out.forEach((tp, offset) -> {
            seen.remove(tp);
            routes.values().forEach(r -> r.assignment.positions().soughtAt(tp, offset));
        });
        context.offset(out);
    }

    /** A record of {@code tp} at {@code offset} was routed (taken, skipped as held, or a bad record). */
    void routed(TopicPartition tp, long offset) {
        seen.put(tp, offset + 1);
    }

    void unassign(Collection<TopicPartition> partitions) {
        assigned.removeAll(partitions);
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
    void advanceIdle() {
        for (Map.Entry<TopicPartition, Long> e : seen.entrySet()) {
            TopicPartition tp = e.getKey();
            if (routes.values().stream().anyMatch(r -> r.assignment.positions().hasPendingSeek(tp))) {
                continue;
            }
            for (TableRoute r : routes.values()) {
                PartitionPositions p = r.assignment.positions();
                Optional<Long> position = p.position(tp);
                if (p.isAssigned(tp) && !p.inBatch(tp) && position.isPresent() && position.get() < e.getValue()) {
                    p.advance(tp, e.getValue());
                }
            }
        }
    }

    /** The offsets to report: per partition the lowest of the tables' positions. */
    Map<TopicPartition, OffsetAndMetadata> lowest(Map<TopicPartition, OffsetAndMetadata> consumed) {
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        for (TableRoute r : routes.values()) {
            r.assignment.tableOffsets(consumed).forEach((tp, o) -> out.merge(tp, o,
                    (a, b) -> a.offset() <= b.offset() ? a : b));
        }
        return out;
    }

    /** The folders under the root that hold a Delta table a route could have made. */
    private static List<String> listTables(StorageSettings root) throws IOException {
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
