package io.deltasink.commit;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.metrics.SinkMetrics;
import io.deltasink.table.TableSnapshot;

/**
 * The Kafka side of a task: which partitions it holds, where each stands in the table
 * ({@link PartitionPositions}), who else keeps positions of them ({@link Ownership}), and the
 * seeks handed to the worker. Decides which delivered records are new and which txn versions a
 * batch commits and expects.
 */
final class Assignment {
    private static final Logger log = LoggerFactory.getLogger(Assignment.class);

    /** The txn versions of one batch: the partitions it moved, and what its commit writes and expects. */
    record BatchTxn(Map<TopicPartition, Long> advanced, Map<String, Optional<Long>> expected,
                    Map<String, Long> versions) {
    }

    private final DeltaSinkConfig config;
    /** Hands seeks to the worker (with a table per field value: to the router, which takes the lowest). */
    private final Consumer<Map<TopicPartition, Long>> seeker;
    private final SinkMetrics metrics;
    private final String tableUri;
    private final Ownership ownership;
    private final PartitionPositions positions = new PartitionPositions();
    /** Partitions resumed from another connector's position, until the first commit retires its appId. */
    private final Map<TopicPartition, Ownership.Adopt> adopted = new HashMap<>();
    /** Assigned partitions whose table position is not known yet (storage failed in open()). */
    private final Set<TopicPartition> unresolved = new TreeSet<>(PartitionPositions.ORDER);

    Assignment(DeltaSinkConfig config, Consumer<Map<TopicPartition, Long>> seeker, SinkMetrics metrics,
               String tableUri) {
        this.config = config;
        this.seeker = seeker;
        this.metrics = metrics;
        this.tableUri = tableUri;
        this.ownership = new Ownership(config.appIdTemplate(), config.connectorName(), config.adoptConnectors());
    }

    /** The appId under which a partition's position is stored in the table. */
    String appId(TopicPartition tp) {
        return config.appId(tp.topic(), tp.partition());
    }

    // ---- placing partitions --------------------------------------------------------------------

    /**
     * Takes the partitions' positions from the snapshot (its txn versions already read); returns
     * where the consumer must seek. A partition whose position another connector keeps in the table
     * is taken over when that connector is named in txn.adopt.connectors; otherwise a
     * ConnectException stops the task (both would write every record).
     */
    Map<TopicPartition, Long> place(Collection<TopicPartition> partitions, Optional<TableSnapshot> snapshot) {
        Map<TopicPartition, Long> seeks = new HashMap<>();
        Map<TopicPartition, String> report = new TreeMap<>(PartitionPositions.ORDER);
        Map<TopicPartition, Map<String, Long>> refused = new TreeMap<>(PartitionPositions.ORDER);
        Map<String, Long> txn = snapshot.map(TableSnapshot::allTxnVersions).orElse(Map.of());
        for (TopicPartition tp : partitions) {
            Optional<Long> version = Optional.ofNullable(txn.get(appId(tp)));
            adopted.remove(tp);
            if (snapshot.isPresent()) {
                Ownership.Claim claim = ownership.claim(tp, version, txn);
                if (claim instanceof Ownership.Refuse r) {
                    refused.put(tp, r.others());
                    continue;
                }
                if (claim instanceof Ownership.Adopt a) {
                    adopted.put(tp, a);
                    version = Optional.of(a.version());
                }
            }
            positions.assign(tp, version); // NO_POSITION included: a commit must expect it
            if (version.filter(PartitionPositions::isPosition).isPresent()) {
                seeks.put(tp, version.get());
                Ownership.Adopt a = adopted.get(tp);
                report.put(tp, "offset " + version.get() + (a == null ? " (from the table)"
                        : " (adopted from appId " + a.appId() + ", retired at the first commit)"));
            } else {
                String why = version.isPresent() ? "reset in the table" : "not in the table yet";
                if (config.startEarliest()) {
                    seeks.put(tp, 0L);
                    report.put(tp, "earliest (" + why + ")");
                } else {
                    report.put(tp, "the consumer group's offset (" + why + ")");
                }
            }
        }
        if (!refused.isEmpty()) {
            throw new ConnectException(othersWrite(refused));
        }
        log.info("Assigned {} partition(s) for table {} at version {}; resuming at {}", partitions.size(), tableUri,
                snapshot.map(s -> Long.toString(s.version())).orElse("(none yet)"), report);
        return seeks;
    }

    private String othersWrite(Map<TopicPartition, Map<String, Long>> refused) {
        Map.Entry<TopicPartition, Map<String, Long>> first = refused.entrySet().iterator().next();
        String names = ownership.connectorsOf(first.getKey(), first.getValue().keySet());
        return "Delta table " + tableUri + " holds positions of " + refused.keySet() + " under other appIds than "
                + "this connector's (" + appId(first.getKey()) + " ...): " + refused.values() + ". Another connector "
                + "writes (or wrote) these Kafka partitions into this table; if both wrote, every record would be in "
                + "the table twice. If this connector was renamed from "
                + (names.isEmpty() ? "another one" : "'" + names + "'") + ", set " + DeltaSinkConfig.TXN_ADOPT_CONNECTORS
                + "=" + (names.isEmpty() ? "<its name>" : names) + " to continue from its positions (its appIds are "
                + "then retired, which fences it should it still run); otherwise stop the other connector or set "
                + DeltaSinkConfig.TABLE_LOCATION + " to another table";
    }

    /** Partitions whose positions could not be read: no record of them is taken until they are. */
    void defer(Collection<TopicPartition> partitions) {
        unresolved.addAll(partitions);
    }

    Set<TopicPartition> unresolved() {
        return unresolved;
    }

    /** The deferred partitions were placed late: their rewinds go to the worker at the end of this put(). */
    void resolved(Map<TopicPartition, Long> seeks) {
        positions.rewind(seeks);
        unresolved.clear();
    }

    void unassign(Collection<TopicPartition> partitions) {
        positions.unassign(partitions);
        unresolved.removeAll(partitions);
        partitions.forEach(adopted::remove);
    }

    // ---- seeks -----------------------------------------------------------------------------------

    /**
     * Asks the worker to move the consumer (see {@link PartitionPositions#seekTarget} for why a
     * table position is sought one record early) and notes where it was sent.
     */
    void seek(Map<TopicPartition, Long> positionsToRead) {
        if (positionsToRead.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> targets = new HashMap<>();
        positionsToRead.forEach((tp, offset) -> targets.put(tp, positions.seekTarget(tp, offset)));
        positions.sought(targets);
        seeker.accept(targets);
    }

    /** Hands the pending rewinds of still-assigned partitions to the worker (at the end of put()). */
    void seekPending() {
        seek(positions.takeSeeks());
    }

    /**
     * Hands the pending rewinds to the worker before put() throws a RetriableException; they stay
     * pending, as the worker delivers the same batch again before the seeks apply.
     */
    void seekPendingBeforeRedelivery() {
        seek(positions.pendingSeeks());
    }

    // ---- records ---------------------------------------------------------------------------------

    /**
     * Whether a delivered record is new (not in the table or the batch yet, not ahead of a rewind).
     * The first record after a seek that lies below where the consumer was sent means the partition
     * no longer holds that offset: logged once, and the records skipped for it counted.
     */
    boolean admit(TopicPartition tp, long offset) {
        OptionalLong sought = positions.landedBelowSeek(tp, offset);
        if (sought.isPresent()) {
            log.warn("Kafka delivered {}@{} after the consumer was sent to offset {} (table position {}): the partition "
                    + "no longer holds the records there (topic deleted and created again, or its log truncated, e.g. "
                    + "by an unclean leader election). Records below the table position are taken as already in table "
                    + "{} and skipped; if they are new records, set the position through the worker's offsets API "
                    + "(PATCH /connectors/{}/offsets)", tp, offset, sought.getAsLong(),
                    positions.tableOffset(tp).map(String::valueOf).orElse("none"), tableUri, config.connectorName());
        }
        if (positions.admit(tp, offset)) {
            return true;
        }
        if (positions.belowTablePosition(tp)) {
            metrics.skippedBelowPosition();
        }
        return false;
    }

    /** The record at {@code offset} is part of the batch now (as a row, or skipped on purpose). */
    void taken(TopicPartition tp, long offset) {
        positions.taken(tp, offset);
    }

    // ---- the batch's txn versions ------------------------------------------------------------------

    boolean batchMoved() {
        return positions.batchMoved();
    }

    /**
     * What the batch's commit writes (each moved partition's next offset) and expects (the version
     * the batch started from); the first commit after taking over a partition also retires the
     * other connector's appId (version -1), expecting the position it was taken over at.
     */
    BatchTxn batchTxn() {
        Map<String, Optional<Long>> expected = new LinkedHashMap<>();
        Map<String, Long> versions = new LinkedHashMap<>();
        Map<TopicPartition, Long> advanced = positions.batchEnds();
        for (Map.Entry<TopicPartition, Long> e : advanced.entrySet()) {
            String appId = appId(e.getKey());
            Ownership.Adopt a = adopted.get(e.getKey());
            expected.put(appId, a != null ? a.ownVersion() : positions.tableOffset(e.getKey()));
            versions.put(appId, e.getValue());
            if (a != null) {
                expected.put(a.appId(), Optional.of(a.version()));
                versions.put(a.appId(), TableSnapshot.NO_POSITION);
            }
        }
        return new BatchTxn(advanced, expected, versions);
    }

    /** The batch landed: its ends are the table's positions now, taken-over appIds are retired. */
    void committed(BatchTxn txn) {
        positions.committed(txn.advanced());
        txn.advanced().keySet().forEach(adopted::remove);
    }

    /**
     * Another writer moved some of the batch's txn versions: takes the table's versions and returns
     * the rewinds. Throws when it moved a taken-over appId: the other connector still runs.
     */
    Map<TopicPartition, Long> fenced(BatchTxn txn, TableCommitter.Fenced f) {
        for (Ownership.Adopt a : adopted.values()) {
            if (f.moved().contains(a.appId())) {
                throw new ConnectException("The connector that wrote appId " + a.appId() + " into table " + tableUri
                        + " still runs: it committed again after this connector took over its position ("
                        + DeltaSinkConfig.TXN_ADOPT_CONNECTORS + "). Stop it, then restart this connector's task");
            }
        }
        Map<TopicPartition, Optional<Long>> now = new HashMap<>();
        for (TopicPartition tp : txn.advanced().keySet()) {
            now.put(tp, f.tableVersions().getOrDefault(appId(tp), Optional.empty()));
        }
        return positions.fenced(now);
    }

    /** The batch is dropped: rewinds its partitions and those of {@code unread} (at the next put()). */
    void dropBatch(List<SinkRecord> unread) {
        positions.dropBatch(unread);
    }

    /** The partition's position in the table: absent when the table holds none (or a reset). */
    Optional<Long> position(TopicPartition tp) {
        return positions.position(tp);
    }

    /** The positions of one partition, when it feeds several tables (routing by a field value). */
    PartitionPositions positions() {
        return positions;
    }

    /** The offsets to report to the worker (see {@link PartitionPositions#tableOffsets}). */
    Map<TopicPartition, OffsetAndMetadata> tableOffsets(Map<TopicPartition, OffsetAndMetadata> consumed) {
        return positions.tableOffsets(consumed);
    }
}
