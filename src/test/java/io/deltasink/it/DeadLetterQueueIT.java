package io.deltasink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.it.ConnectHarness.Coordinates;
import io.deltasink.it.ConnectHarness.Kind;
import io.deltasink.it.ConnectHarness.Message;
import io.deltasink.it.ConnectHarness.Sent;

/**
 * Records that cannot become rows: with errors.tolerance=all each one goes to the dead letter
 * queue (with its coordinates in the context headers) and the good ones around it still land
 * exactly once; tombstones are skipped. With errors.tolerance=none the first bad record fails
 * the task with a message naming the record and the column.
 */
class DeadLetterQueueIT {
    private static final int GOOD = 10_000;
    private static final int BAD_PER_KIND = 20;
    private static final int TOMBSTONES = 15;

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension("dead-letter-queue", 1);

    @Test
    void badRecordsGoToTheDeadLetterQueueAndGoodOnesLandOnce(@TempDir Path table) throws Exception {
        String topic = "sensor-events-dlq-all";
        String connector = "delta-dlq-all";
        cluster.harness().createTopic(topic);

        // good events with the bad ones and the tombstones mixed in, every kind on every partition
        List<Message> good = SensorFeed.good(0, GOOD);
        List<Message> mixed = new ArrayList<>(good.size() + 200);
        int badIndex = 0;
        int step = GOOD / (BAD_PER_KIND * SensorFeed.Bad.values().length + TOMBSTONES);
        for (int i = 0; i < good.size(); i++) {
            mixed.add(good.get(i));
            if (i % step == step - 1) {
                int slot = badIndex++;
                int kinds = SensorFeed.Bad.values().length;
                if (slot < BAD_PER_KIND * kinds) {
                    mixed.add(SensorFeed.bad(SensorFeed.Bad.values()[slot % kinds], GOOD + slot));
                } else if (slot < BAD_PER_KIND * kinds + TOMBSTONES) {
                    mixed.add(SensorFeed.tombstone(GOOD + slot));
                }
            }
        }
        List<Sent> sent = cluster.harness().produce(topic, mixed);
        Set<Coordinates> badAt = new TreeSet<>();
        Set<Coordinates> tombstonesAt = new TreeSet<>();
        for (Sent s : sent) {
            if (s.message().kind() == Kind.BAD) {
                badAt.add(s.at());
            } else if (s.message().kind() == Kind.TOMBSTONE) {
                tombstonesAt.add(s.at());
            }
        }
        assertEquals(BAD_PER_KIND * SensorFeed.Bad.values().length, badAt.size(), "bad records produced");
        assertEquals(TOMBSTONES, tombstonesAt.size(), "tombstones produced");

        cluster.harness().startConnector(connector, ConnectHarness.presetConfig(topic, table));
        ExactlyOnce.awaitAndAssert(cluster.harness(), connector, topic, table, SensorFeed.expectedRows(sent));

        // the DLQ holds exactly the bad records, each naming where it came from
        ConsumerRecords<byte[], byte[]> dlq = cluster.harness().connect().kafka()
                .consumeAll(Duration.ofMinutes(1).toMillis(), ConnectHarness.dlqTopic(topic));
        Set<Coordinates> dlqAt = new TreeSet<>();
        for (ConsumerRecord<byte[], byte[]> r : dlq) {
            dlqAt.add(new Coordinates(header(r, "__connect.errors.topic"),
                    Integer.parseInt(header(r, "__connect.errors.partition")),
                    Long.parseLong(header(r, "__connect.errors.offset"))));
        }
        assertEquals(badAt.size(), dlq.count(), "DLQ record count");
        assertEquals(badAt, dlqAt, "DLQ records name the bad records' coordinates");

        // every produced record is accounted for exactly once: a row, a DLQ record, or a skipped tombstone
        long rows = TableState.rows(table).size();
        long produced = cluster.harness().endOffsets(topic).values().stream().mapToLong(Long::longValue).sum();
        assertEquals(GOOD, rows, "rows");
        assertEquals(produced, rows + dlq.count() + tombstonesAt.size(), "rows + DLQ + tombstones vs produced");
    }

    @Test
    void withoutToleranceABadRecordFailsTheTaskNamingRecordAndColumn(@TempDir Path table) throws Exception {
        String topic = "sensor-events-dlq-none";
        String connector = "delta-dlq-none";
        cluster.harness().createTopic(topic);
        Map<String, String> config = ConnectHarness.presetConfig(topic, table);
        config.put("errors.tolerance", "none");
        config.keySet().removeIf(k -> k.startsWith("errors.deadletterqueue."));

        // a first batch is committed ...
        List<Sent> sent = new ArrayList<>(cluster.harness().produce(topic, SensorFeed.good(0, 6_000)));
        cluster.harness().startConnector(connector, config);
        cluster.harness().awaitTableCaughtUp(connector, topic, table);
        Map<Integer, Long> beforeBad = cluster.harness().endOffsets(topic);

        // ... then a bad record heads the next batch of its partition
        Message badMessage = SensorFeed.bad(SensorFeed.Bad.WRONG_TYPE_LINKQUALITY, 6_000);
        Coordinates at = cluster.harness().produce(topic, List.of(badMessage)).get(0).at();
        sent.addAll(cluster.harness().produce(topic, SensorFeed.good(6_001, 4_000)));

        cluster.harness().connect().assertions().assertConnectorIsRunningAndTasksHaveFailed(connector, 1,
                "the bad record did not fail the task");
        String trace = cluster.harness().connect().connectorStatus(connector).tasks().get(0).trace();
        assertTrue(trace.contains(at.topic()), "the trace should name the topic " + at.topic() + ":\n" + trace);
        assertTrue(trace.contains(at.topic() + "/" + at.partition() + "@" + at.offset()),
                "the trace should name the record " + at + " (topic/partition@offset):\n" + trace);
        assertTrue(trace.contains("linkquality"), "the trace should name the column linkquality:\n" + trace);

        // the bad record's partition stopped right before it; the table holds exactly the good records
        // below each partition's txn version, once each
        Map<Integer, Long> versions = TableState.txnVersions(table, connector, topic, ConnectHarness.PARTITIONS);
        assertEquals(at.offset(), versions.get(at.partition()), "txn version of the bad record's partition");
        for (int p = 0; p < ConnectHarness.PARTITIONS; p++) {
            assertTrue(versions.get(p) >= beforeBad.get(p), "partition " + p + " went back: " + versions);
        }
        Map<Coordinates, SensorFeed.ExpectedRow> expected = SensorFeed.expectedRows(sent);
        expected.keySet().removeIf(c -> c.offset() >= versions.get(c.partition()));
        ExactlyOnce.assertRows(table, connector, expected);
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
