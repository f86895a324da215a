package io.deltasink.commit;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Pattern;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.CommitOutcomeUnknownException;
import io.deltasink.table.DeltaTable;
import io.deltasink.table.TableSnapshot;

/**
 * Offsets set from outside, through the worker's offsets API (KIP-875: {@code PATCH} and
 * {@code DELETE /connectors/<name>/offsets} on a stopped connector). The table is where the
 * connector's offsets live, so a new offset is written into the table's log as its partition's
 * txn version, and a reset (a null offset) as {@link TableSnapshot#NO_POSITION}: one commit with
 * txn actions only for the whole request. The worker moves the consumer group afterwards.
 *
 * <p>Refused with a message that says what to do instead: offsets for a topic the connector does
 * not read, new offsets while there is no table yet, and a reset for which the worker names no
 * partition (the consumer group has no offsets) while a table exists.
 */
public final class OffsetsOverride {
    private static final Logger log = LoggerFactory.getLogger(OffsetsOverride.class);

    private final DeltaSinkConfig config;
    private final DeltaTable table;
    private final Predicate<String> connectorTopic;
    private final String topicsSetting;
    private final String engineInfo;
    private final TableCommitter committer;

    /**
     * @param props the connector's configuration as the worker passes it (with {@code topics} or
     *              {@code topics.regex})
     */
    public OffsetsOverride(DeltaSinkConfig config, Map<String, String> props, DeltaTable table, String engineInfo,
                           TableCommitter.Sleeper sleeper) {
        this.config = Objects.requireNonNull(config, "config");
        this.table = Objects.requireNonNull(table, "table");
        this.engineInfo = Objects.requireNonNull(engineInfo, "engineInfo");
        this.committer = new TableCommitter(table, config.commitMaxRetries(), config.retryBackoffMs(),
                Objects.requireNonNull(sleeper, "sleeper"));
        String regex = props.get("topics.regex");
        String topics = props.get("topics");
        if (regex != null && !regex.isBlank()) {
            Pattern pattern = Pattern.compile(regex.trim());
            this.connectorTopic = t -> pattern.matcher(t).matches();
            this.topicsSetting = "topics.regex=" + regex.trim();
        } else if (topics != null && !topics.isBlank()) {
            List<String> names = List.of(topics.trim().split("\\s*,\\s*"));
            this.connectorTopic = names::contains;
            this.topicsSetting = "topics=" + String.join(",", names);
        } else {
            this.connectorTopic = t -> true;
            this.topicsSetting = "(no topics configured)";
        }
    }

    /**
     * Writes the positions into the tables that hold them: the one table, or with {@code ${topic}} in
     * table.location each topic's table (one commit per table, in the order of their locations; a
     * failure stops at that table, and sending the request again writes only what is still missing).
     *
     * @param storage the connector's storage (with {@code ${topic}}: the folder of its tables)
     */
    public static void applyPerTable(DeltaSinkConfig config, Map<String, String> props, StorageSettings storage,
                                     String engineInfo, TableCommitter.Sleeper sleeper,
                                     Map<TopicPartition, Long> offsets) {
        if (config.tablePerField()) {
            throw new ConnectException("Cannot alter or reset the offsets of connector " + config.connectorName()
                    + ": with " + DeltaSinkConfig.ROUTE_VARIABLE + " in " + DeltaSinkConfig.TABLE_LOCATION + " each "
                    + "Kafka partition's position is kept in every table under " + storage.tableUri() + " that it "
                    + "fed, and the tables that records from a new position would go to are not known before they "
                    + "are read. Nothing was changed. To start elsewhere, run the connector under a new name with "
                    + "another " + DeltaSinkConfig.TABLE_LOCATION);
        }
        if (!config.tablePerTopic()) {
            new OffsetsOverride(config, props, new DeltaTable(storage.createEngine(), storage.tableUri()), engineInfo,
                    sleeper).apply(offsets);
            return;
        }
        if (offsets.isEmpty()) {
            throw new ConnectException("Cannot reset the offsets of connector " + config.connectorName()
                    + ": its consumer group has no committed offsets, so the worker named no partition to reset, "
                    + "but the Delta tables under " + storage.tableUri() + " may hold positions the connector would "
                    + "resume from. Reset partitions explicitly with PATCH /connectors/" + config.connectorName()
                    + "/offsets and the offsets to start from, e.g. {\"offsets\": [{\"partition\": "
                    + "{\"kafka_topic\": \"<topic>\", \"kafka_partition\": 0}, \"offset\": {\"kafka_offset\": 0}}]}");
        }
        Map<String, Map<TopicPartition, Long>> perTable = new TreeMap<>();
        offsets.forEach((tp, offset) -> perTable.computeIfAbsent(
                storage.at(config.tableLocation(tp.topic())).tableUri(), t -> new HashMap<>()).put(tp, offset));
        perTable.forEach((uri, tableOffsets) -> new OffsetsOverride(config, props,
                new DeltaTable(storage.createEngine(), uri), engineInfo, sleeper).apply(tableOffsets));
    }

    /**
     * Writes the positions into the table (one commit; none when the table already holds them).
     *
     * @param offsets partition -> the next offset to read, or null to reset the partition to
     *                {@code start.position}
     * @throws ConnectException when the change cannot be made safely, saying why and what to do
     */
    public void apply(Map<TopicPartition, Long> offsets) {
        checkTopics(offsets.keySet());
        Map<String, Long> wanted = new TreeMap<>();
        offsets.forEach((tp, offset) -> wanted.put(config.appId(tp.topic(), tp.partition()),
                offset == null ? TableSnapshot.NO_POSITION : offset));
        boolean resetOnly = offsets.values().stream().allMatch(Objects::isNull);
        Optional<TableSnapshot> latest = table.latest();
        if (latest.isEmpty()) {
            if (resetOnly) {
                log.info("Offsets of connector {} reset: there is no Delta table at {} yet, so nothing to change",
                        config.connectorName(), table.path());
                return;
            }
            throw new ConnectException("Cannot set the offsets of connector " + config.connectorName()
                    + ": there is no Delta table at " + table.path() + " yet, and the connector keeps its offsets "
                    + "in the table. Resume the connector so that it creates the table (it reads partitions the "
                    + "table has not seen from start.position), then stop it and set the offsets again.");
        }
        TableSnapshot snapshot = latest.get();
        if (offsets.isEmpty()) {
            throw new ConnectException("Cannot reset the offsets of connector " + config.connectorName()
                    + ": its consumer group has no committed offsets, so the worker named no partition to reset, "
                    + "but the Delta table at " + table.path() + " may hold positions the connector would resume "
                    + "from. Reset partitions explicitly with PATCH /connectors/" + config.connectorName()
                    + "/offsets and the offsets to start from, e.g. {\"offsets\": [{\"partition\": "
                    + "{\"kafka_topic\": \"<topic>\", \"kafka_partition\": 0}, \"offset\": {\"kafka_offset\": 0}}]}");
        }
        Map<String, Long> changes = changes(snapshot, wanted);
        if (changes.isEmpty()) {
            log.info("Offsets of connector {}: the Delta table {} already holds {} at version {}; nothing to commit",
                    config.connectorName(), table.path(), wanted, snapshot.version());
            return;
        }
        // fenced like a batch: the entries must still be what this request saw, or a task still writes them
        Map<String, Optional<Long>> expected = new TreeMap<>();
        changes.keySet().forEach(appId -> expected.put(appId, snapshot.txnVersion(appId)));
        TableCommitter.Outcome outcome;
        try {
            outcome = committer.commit(expected, new TableCommitter.Attempt(changes,
                    base -> table.commitPositions(base, changes, engineInfo)));
        } catch (CommitOutcomeUnknownException e) {
            throw new ConnectException("Cannot tell whether the offsets of connector " + config.connectorName()
                    + " were written to the Delta table at " + table.path() + " (" + e.getMessage() + "). Send the "
                    + "request again: positions the table already holds are not written twice.", e);
        } catch (TableCommitter.RacesLost e) {
            throw new ConnectException("Cannot set the offsets of connector " + config.connectorName()
                    + ": other writers kept committing to the Delta table at " + table.path() + " ("
                    + e.getMessage() + "). Make sure no task of the connector still runs, then retry.", e);
        } catch (RetriableException e) {
            // the table could not be read between attempts: every earlier attempt met another writer's commit
            throw new ConnectException("Cannot set the offsets of connector " + config.connectorName()
                    + " in the Delta table at " + table.path() + ": " + e.getMessage()
                    + ". Nothing was changed; send the request again.", e);
        }
        if (outcome instanceof TableCommitter.Fenced f) {
            throw new ConnectException("Cannot set the offsets of connector " + config.connectorName()
                    + ": while they were being set, another writer moved " + f.moved() + " in the Delta table at "
                    + table.path() + " (now " + f.tableVersions() + " at version " + f.tableVersion()
                    + "). A task of the connector (or another connector writing the same positions) still runs: "
                    + "stop it, then set the offsets again.");
        }
        long version = ((TableCommitter.Committed) outcome).version();
        log.info("Offsets of connector {} set in Delta table {} at version {}: {} (-1: reset to {})",
                config.connectorName(), table.path(), version, changes,
                config.startEarliest() ? "earliest" : "the consumer group's offset");
    }

    private void checkTopics(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            if (!connectorTopic.test(tp.topic())) {
                throw new ConnectException("Cannot set the offset of " + tp + " for connector "
                        + config.connectorName() + ": topic '" + tp.topic() + "' is not one the connector reads ("
                        + topicsSetting + "), and the table only keeps positions of those topics");
            }
        }
    }

    /** The entries that differ from the table; a reset of a partition the table never saw is no change. */
    private static Map<String, Long> changes(TableSnapshot snapshot, Map<String, Long> wanted) {
        Map<String, Long> out = new TreeMap<>();
        wanted.forEach((appId, version) -> {
            Optional<Long> now = snapshot.txnVersion(appId);
            boolean same = now.map(version::equals).orElse(version == TableSnapshot.NO_POSITION);
            if (!same) {
                out.put(appId, version);
            }
        });
        return out;
    }
}
