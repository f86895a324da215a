package io.deltasink.commit;

import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.ConverterFactory;
import io.deltasink.metrics.PluginSinkMetrics;
import io.deltasink.metrics.SinkMetrics;
import io.deltasink.storage.StorageErrors;
import io.deltasink.storage.StorageSettings;

/**
 * One task's write pipeline: records -> rows -> Parquet files -> one Delta commit per table and
 * flush, with each Kafka partition's next offset stored in the same commit. It is the task-level
 * router: it owns the Kafka side of the task (the assignment handed to each table, the seeks
 * handed to the worker, bad records, what failures leave behind in {@link Recovery}) and hands each
 * record to the {@link TableRoute} of its table ({@link TableBatch}: rows, files, the commit; and
 * that table's {@link Assignment}: the positions of the partitions feeding it). With {@code ${topic}}
 * in table.location each topic has a table of its own; with {@code ${route}} each value of
 * table.route.field, and a partition feeds several tables ({@link FieldRoutes}); else one route.
 *
 * <p>Records below a partition's table position, or below what the batch already holds, are
 * skipped, so a redelivery never duplicates. Whenever buffered work must be dropped (storage
 * failure, lost fencing), the consumer is rewound to the table's positions, so nothing is lost.
 * A table whose commit fails or is fenced drops only its own batch and rewinds only its own
 * partitions; the other tables' batches land.
 *
 * <p>Failures follow {@link Failures}: a permanent one stops the task with a message naming the
 * setting to fix; a transient one makes {@code put()} throw {@link RetriableException} after
 * {@code context.timeout}, so the worker waits and redelivers. A partition whose table position
 * could not be read in {@code open()} takes no record until the next {@code put()} has read it.
 */
public final class SinkSession {
    private static final Logger log = LoggerFactory.getLogger(SinkSession.class);

    private final DeltaSinkConfig config;
    private final StorageSettings storage;
    private final ConverterFactory converterFactory;
    private final SinkTaskContext context;
    private final Clock clock;
    private final TableCommitter.Sleeper sleeper;
    private final String engineInfo;
    private final BadRecords badRecords;
    private final SinkMetrics metrics;
    private final Recovery recovery;
    private final EarlyCommit earlyCommit;
    /** Converts the records on more threads than the task's; null for the task's thread alone. */
    private final ParallelConversion conversion;
    /** table location -> its route, in the order the tables were first used */
    private final Map<String, TableRoute> routes = new LinkedHashMap<>();
    /** topic -> its route */
    private final Map<String, TableRoute> byTopic = new HashMap<>();
    /** The one route when table.location has no ${topic} or ${route}, else null. */
    private final TableRoute single;
    /** With ${route}: the tables under the root, the record's table, the merging of the tables' seeks; else null. */
    private final FieldRoutes fields;

    /**
     * @param storage          the table's storage; with {@code ${topic}} in table.location the folder
     *                         of the tables, each table's storage then a view of it ({@link StorageSettings#at})
     * @param converterFactory gives the converter: first called with null, which gives the converter
     *                         of a configured mapping or null in "auto" mode; in auto mode the
     *                         converter then comes from the existing table's columns, else from the
     *                         first record (one that gives no columns is a bad record); each table
     *                         has a converter of its own
     */
    public SinkSession(DeltaSinkConfig config, StorageSettings storage, ConverterFactory converterFactory,
                       SinkTaskContext context, Clock clock, TableCommitter.Sleeper sleeper, String engineInfo) {
        this.config = config;
        this.storage = storage;
        this.converterFactory = converterFactory;
        this.context = context;
        this.clock = clock;
        this.sleeper = sleeper;
        this.engineInfo = engineInfo;
        this.metrics = PluginSinkMetrics.of(context);
        this.badRecords = new BadRecords(config.toleratesErrors(), errantReporter(context));
        this.fields = config.tablePerField()
                ? new FieldRoutes(config, storage, context, clock, badRecords, metrics, routes, this::newRoute) : null;
        this.single = config.tablePerTopic() || config.tablePerField() ? null : newRoute(storage);
        if (single != null) {
            routes.put(storage.tableUri(), single);
        }
        this.recovery = new Recovery(new Failures(StorageErrors.of(config)), context, config.retryBackoffMs());
        this.earlyCommit = new EarlyCommit(context, config.flushMaxRecords());
        this.conversion = ParallelConversion.of(converterFactory, config.convertThreads(),
                "delta-convert-" + config.connectorName() + "-" + config.taskIndex());
        if (!config.s3ConditionalWrites() && StorageErrors.onS3(storage.tableUri())) {
            log.warn("{}=false: commits to {} use Delta's single-JVM S3 log store, without conditional writes. Only ONE "
                    + "connector task in ONE worker may write this table (tasks.max=1, no other writer), or commits can "
                    + "be lost", DeltaSinkConfig.S3_CONDITIONAL_WRITES, storage.tableUri());
        }
    }

    private static ErrantRecordReporter errantReporter(SinkTaskContext context) {
        try {
            return context.errantRecordReporter();
        } catch (NoSuchMethodError | NoClassDefFoundError e) {
            return null; // a worker older than Kafka 2.6
        }
    }

    private TableRoute newRoute(StorageSettings tableStorage) {
        return new TableRoute(tableStorage.tableUri(),
                new Assignment(config, fields == null ? context::offset : fields::collect, metrics,
                        tableStorage.tableUri()),
                new TableBatch(config, tableStorage, converterFactory, badRecords, metrics, clock, sleeper, engineInfo),
                metrics, clock);
    }

    /** The route of a topic's table, made on first use (its table is created when the columns are known). */
    private TableRoute route(String topic) {
        if (single != null) {
            return single;
        }
        TableRoute route = byTopic.get(topic);
        if (route == null) {
            StorageSettings tableStorage = storage.at(config.tableLocation(topic));
            route = routes.computeIfAbsent(tableStorage.tableUri(), uri -> newRoute(tableStorage));
            byTopic.put(topic, route);
        }
        return route;
    }

    private Map<TableRoute, List<TopicPartition>> byRoute(Collection<TopicPartition> partitions) {
        Map<TableRoute, List<TopicPartition>> out = new LinkedHashMap<>();
        if (fields != null) {
            routes.values().forEach(r -> out.put(r, new ArrayList<>(partitions)));
            return out;
        }
        for (TopicPartition tp : partitions) {
            out.computeIfAbsent(route(tp.topic()), r -> new ArrayList<>()).add(tp);
        }
        return out;
    }

    // ---- assignment -------------------------------------------------------------------------

    public void open(Collection<TopicPartition> partitions) {
        if (fields != null && !listTables(partitions)) {
            return;
        }
        Map<TableRoute, Map<TopicPartition, Long>> placed = new LinkedHashMap<>();
        for (Map.Entry<TableRoute, List<TopicPartition>> e : byRoute(partitions).entrySet()) {
            placed.put(e.getKey(), open(e.getKey(), e.getValue()));
        }
        placed.forEach((route, seeks) -> route.assignment.seek(fields == null ? seeks : fields.seeks(route, seeks)));
        if (fields != null) {
            fields.handOff();
        }
    }

    /**
     * With ${route}: lists the tables under the root; false when the listing fails (throwing here
     * would kill the task): no partition is placed then, the next put() lists and places them all.
     */
    private boolean listTables(Collection<TopicPartition> partitions) {
        try {
            fields.open(partitions);
            return true;
        } catch (IOException | RuntimeException e) {
            stopIfPermanent(e);
            log.warn("Assigned {} but cannot list the tables under {} yet: {}; no record is taken until it "
                    + "answers", partitions, storage.tableUri(), recovery.describe(e), e);
            return false;
        }
    }

    /** Places the partitions in the route's table; returns its seeks (none when the table cannot be read yet). */
    private Map<TopicPartition, Long> open(TableRoute route, List<TopicPartition> partitions) {
        Map<TopicPartition, Long> seeks;
        try {
            seeks = route.assignment.place(partitions, route.batch.readTable()); // reading the positions may fail too
        } catch (RuntimeException e) {
            stopIfPermanent(e);
            // Throwing here would kill the task: the next put() reads the positions (the worker waits between tries)
            route.assignment.defer(partitions);
            log.warn("Assigned {} but cannot read their positions from the table yet: {}; no record of them is "
                    + "taken until the table answers", partitions, recovery.describe(e), e);
            return Map.of();
        }
        return seeks;
    }

    /**
     * Reads the positions open() could not (at the start of put(), before any record is looked at):
     * the rewinds are handed to the worker at the end of this put() and records ahead of them are
     * skipped meanwhile. Throws while storage stays down.
     */
    private void resolvePositions(TableRoute route) {
        Map<TopicPartition, Long> seeks;
        try {
            seeks = route.assignment.place(route.assignment.unresolved(), route.batch.readTable());
        } catch (RuntimeException e) {
            throw putFailed(e, () -> log.warn("Still cannot read the positions of {} from the table: {}",
                    route.assignment.unresolved(), recovery.describe(e)));
        }
        route.assignment.resolved(fields == null ? seeks : fields.seeks(route, seeks));
        recovery.recovered();
    }

    public void close(Collection<TopicPartition> partitions) {
        for (TableRoute route : routes.values()) {
            if (route.hasPendingWork()) {
                // The commit before close did not happen or failed: drop the batch, the table's offsets
                // (what the next owner resumes from) are unaffected; partitions we keep are rewound.
                log.warn("Closing {} with an uncommitted batch of {} rows: dropping it; the records will be read again",
                        partitions, route.batch.rowsBuffered());
                route.discard(List.of());
            }
        }
        byRoute(partitions).forEach((route, tps) -> route.assignment.unassign(tps));
        if (fields != null) {
            fields.unassign(partitions);
        }
    }

    public void stop() {
        routes.values().forEach(r -> r.batch.close());
        if (conversion != null) {
            conversion.close();
        }
    }

    // ---- records ------------------------------------------------------------------------------

    public void put(Collection<SinkRecord> records) {
        if (recovery.fatal() != null) {
            throw recovery.fatal();
        }
        Throwable later = recovery.takeLater();
        if (later != null) {
            throw retry(later); // the records are delivered again after the worker's wait
        }
        if (fields != null && fields.listPending()) {
            listPendingTables();
        }
        for (TableRoute route : routes.values()) {
            if (!route.assignment.unresolved().isEmpty()) {
                resolvePositions(route);
            }
        }
        List<SinkRecord> list = records instanceof List<SinkRecord> l ? l : new ArrayList<>(records);
        Object[] converted = null; // records [convertedFrom, convertedTo) converted together ahead
        int convertedFrom = 0;
        int convertedTo = 0;
        TopicPartition tp = null;
        for (int i = 0; i < list.size(); i++) {
            SinkRecord record = list.get(i);
            if (conversion != null && i == convertedTo) {
                convertedFrom = i;
                convertedTo = ParallelConversion.windowEnd(list, i);
                converted = conversion.convert(list, convertedFrom, convertedTo);
            }
            tp = partitionOf(record, tp);
            try {
                TableRoute route = fields == null ? route(record.topic()) : fields.route(record);
                if (route != null && admit(route, record, tp)) { // null: a tombstone or a bad record, no table
                    route.batch.accept(record, converted == null ? null : converted[i - convertedFrom]);
                    route.assignment.taken(tp, record.kafkaOffset());
                }
            } catch (IOException | RuntimeException e) {
                throw writeFailed(e, list.subList(i, list.size()));
            }
            if (fields != null) {
                fields.routed(tp, record.kafkaOffset());
            }
        }
        long largest = drainAll();
        routes.values().forEach(r -> r.assignment.seekPending());
        if (fields != null) {
            fields.handOff();
        }
        earlyCommit.afterPut(list.size(), largest);
    }

    /** The record's partition: {@code last} when the record comes from it (a poll delivers runs of one partition). */
    private static TopicPartition partitionOf(SinkRecord record, TopicPartition last) {
        int partition = record.kafkaPartition();
        return last != null && last.partition() == partition && last.topic().equals(record.topic())
                ? last : new TopicPartition(record.topic(), partition);
    }

    /**
     * Whether the route takes the record: it is new for the table and, with ${route}, the table
     * holds a position of its partition or claims one now ({@link FieldRoutes#claim}).
     */
    private boolean admit(TableRoute route, SinkRecord record, TopicPartition tp) {
        if (!route.assignment.admit(tp, record.kafkaOffset())) {
            log.trace("Skipping {}@{}: already in the table or the batch, or ahead of a rewind", tp,
                    record.kafkaOffset());
            return false;
        }
        return fields == null || route.assignment.position(tp).isPresent() || fields.claim(route, record, tp);
    }

    /** Writes this put's rows of every table (a failure fails this put); returns the largest batch in rows. */
    private long drainAll() {
        long largest = 0;
        for (TableRoute route : routes.values()) {
            try {
                route.batch.drain();
            } catch (IOException | RuntimeException e) {
                throw writeFailed(e, List.of());
            }
            largest = Math.max(largest, route.batch.rowsBuffered());
        }
        return largest;
    }

    /** With ${route}: lists the tables open() could not; their routes place the partitions in this put(). */
    private void listPendingTables() {
        try {
            fields.listPendingRoutes();
        } catch (IOException | RuntimeException e) {
            throw putFailed(e, () -> log.warn("Still cannot list the tables under {}: {}", storage.tableUri(),
                    recovery.describe(e)));
        }
    }

    /**
     * Drops every table's batch after rows could not be written (the put fails as a whole); returns
     * what put() throws.
     */
    private RuntimeException writeFailed(Throwable e, List<SinkRecord> unread) {
        // the worker logs the RetriableException with its cause
        return putFailed(e, () -> {
            log.warn("Writing data files failed: {}; dropping the batch and reading again from the table's "
                    + "offsets", recovery.describe(e));
            discardAll(unread);
        });
    }

    /**
     * What put() throws after {@code e}: the task's permanent failure, or (after {@code warn}) a
     * RetriableException making the worker wait and deliver again.
     */
    private RuntimeException putFailed(Throwable e, Runnable warn) {
        if (stopsTheTask(e)) {
            return recovery.fatal();
        }
        warn.run();
        return retry(e);
    }

    /** In open(): a permanent failure stops the task; a transient one is for the caller to defer. */
    private void stopIfPermanent(Throwable e) {
        if (stopsTheTask(e)) {
            throw recovery.fatal();
        }
    }

    // ---- commit ---------------------------------------------------------------------------------

    /**
     * Commits each table's batch (if any) and returns the offsets the tables now hold for assigned
     * partitions, leaving out those the worker has not consumed up to yet. A table whose commit
     * fails drops its batch alone; the others land.
     *
     * @param consumed the worker's consumed offsets (the next offset per partition), as preCommit gets them
     */
    public Map<TopicPartition, OffsetAndMetadata> commit(Map<TopicPartition, OffsetAndMetadata> consumed) {
        if (fields != null && recovery.fatal() == null) {
            fields.advanceIdle();
        }
        for (TableRoute route : routes.values()) {
            if (recovery.fatal() == null && route.hasPendingWork()) {
                commitBatch(route);
            }
        }
        if (fields != null) {
            return fields.lowest(consumed);
        }
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        routes.values().forEach(r -> out.putAll(r.assignment.tableOffsets(consumed)));
        return out;
    }

    /** How many of this session's batches landed as commits (over all tables). */
    public long landedCommits() {
        return routes.values().stream().mapToLong(TableRoute::landed).sum();
    }

    private void commitBatch(TableRoute route) {
        try {
            if (route.commit() == TableRoute.Outcome.LANDED) {
                recovery.recovered();
            }
        } catch (IOException | RuntimeException e) {
            // The outcome of a failed commit may be unknown (the log file may have landed), so its
            // files are left in place: if it landed they are referenced, if not they are orphans for
            // vacuum. Rewinding is safe either way: a commit that did land moved our txn versions,
            // so the next attempt is fenced and re-seeks to them.
            if (stopsTheTask(e)) {
                return;
            }
            log.warn("Commit to {} failed: {}; dropping the batch and reading again from the table's offsets",
                    route.tableUri, recovery.describe(e), e);
            route.discard(List.of());
            recovery.later(e); // preCommit must not throw: the next put() asks the worker to wait
        }
    }

    // ---- failure handling --------------------------------------------------------------------------

    /**
     * Drops every table's uncommitted batch and rewinds (at the end of the next put) every partition
     * they touched and those of {@code unread}.
     */
    private void discardAll(List<SinkRecord> unread) {
        Map<TableRoute, List<SinkRecord>> unreadByRoute = new HashMap<>();
        for (SinkRecord r : unread) {
            if (fields != null) {
                // the records were not routed yet: every table rewinds to its own position, or to them
                routes.values().forEach(route -> unreadByRoute.computeIfAbsent(route, k -> new ArrayList<>()).add(r));
                continue;
            }
            unreadByRoute.computeIfAbsent(route(r.topic()), k -> new ArrayList<>()).add(r);
        }
        for (TableRoute route : routes.values()) {
            route.discard(unreadByRoute.getOrDefault(route, List.of()));
        }
    }

    /**
     * Makes the worker wait and deliver the current batch again: hands the pending rewinds to it (they
     * stay pending, so the redelivered records ahead of them are skipped and read after the seek) and
     * returns the exception for put() to throw.
     */
    private RetriableException retry(Throwable cause) {
        routes.values().forEach(r -> r.assignment.seekPendingBeforeRedelivery());
        if (fields != null) {
            fields.handOff();
        }
        return recovery.retry(cause);
    }

    /** Whether {@code e} is permanent (see {@link Failures}); if so the task stops and the batches are dropped. */
    private boolean stopsTheTask(Throwable e) {
        if (!recovery.stops(e)) {
            return false;
        }
        discardAll(List.of());
        return true;
    }

    long tombstones() {
        return (fields == null ? 0 : fields.tombstones()) + routes.values().stream().mapToLong(r -> r.batch.tombstones()).sum();
    }

    long badRecords() {
        return badRecords.reported();
    }
}
