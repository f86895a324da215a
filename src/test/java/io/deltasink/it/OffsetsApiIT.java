package io.deltasink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToIntFunction;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorOffset;
import org.apache.kafka.connect.runtime.rest.errors.ConnectRestException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.it.ConnectHarness.Coordinates;
import io.deltasink.it.ConnectHarness.Sent;
import io.deltasink.it.SensorFeed.ExpectedRow;

/**
 * KIP-875 offsets through the worker's REST API, with the table as the place offsets live: GET
 * shows the table's positions; PATCH and DELETE on a stopped connector write into the table's log
 * (a commit with txn actions only) and so change where the resumed connector reads; a request
 * that cannot be honoured safely fails with the connector's message and leaves the table alone.
 */
class OffsetsApiIT {
    private static final int EVENTS = 3_000; // 1,000 per partition

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension("offsets-api", 1);

    @Test
    void patchMovesWhereTheConnectorResumes(@TempDir Path table) throws Exception {
        String topic = "sensor-events-offsets-patch";
        String connector = "delta-offsets-patch";
        Map<Coordinates, ExpectedRow> expected = runAndStop(topic, connector, table);
        Map<Integer, Long> end = cluster.harness().endOffsets(topic);

        alterWhenGroupIsFree(connector, new TopicPartition(topic, 0), 100L);

        TableState.Commit last = lastCommit(table);
        assertTxnOnly(last, Map.of(TableState.appId(connector, topic, 0), 100L));
        Map<Integer, Long> patched = new TreeMap<>(end);
        patched.put(0, 100L);
        assertEquals(patched, TableState.txnVersions(table, connector, topic, ConnectHarness.PARTITIONS),
                "txn versions after PATCH");
        assertEquals(patched, restOffsets(connector, topic), "GET offsets after PATCH");

        resume(connector);
        cluster.harness().awaitTableCaughtUp(connector, topic, table);
        // offsets 100.. of partition 0 were read again, as asked: those rows are in the table twice
        assertRowCounts(table, connector, expected, at -> at.partition() == 0 && at.offset() >= 100 ? 2 : 1);
        awaitRestOffsets(connector, topic, end);
    }

    @Test
    void deleteMakesTheConnectorStartOverFromStartPosition(@TempDir Path table) throws Exception {
        String topic = "sensor-events-offsets-delete";
        String connector = "delta-offsets-delete";
        Map<Coordinates, ExpectedRow> expected = runAndStop(topic, connector, table);
        Map<Integer, Long> end = cluster.harness().endOffsets(topic);

        resetWhenGroupIsFree(connector);

        Map<String, Long> reset = new TreeMap<>();
        Map<Integer, Long> resetVersions = new TreeMap<>();
        for (int p = 0; p < ConnectHarness.PARTITIONS; p++) {
            reset.put(TableState.appId(connector, topic, p), -1L);
            resetVersions.put(p, -1L);
        }
        assertTxnOnly(lastCommit(table), reset);
        assertEquals(resetVersions, TableState.txnVersions(table, connector, topic, ConnectHarness.PARTITIONS));
        assertEquals(Map.of(), restOffsets(connector, topic), "GET offsets after DELETE");

        resume(connector); // start.position=earliest: every partition from its beginning
        cluster.harness().awaitTableCaughtUp(connector, topic, table);
        assertRowCounts(table, connector, expected, at -> 2);
        awaitRestOffsets(connector, topic, end);
    }

    @Test
    void anOffsetForATopicTheConnectorDoesNotReadIsRefusedWithItsReason(@TempDir Path table) throws Exception {
        String topic = "sensor-events-offsets-refused";
        String connector = "delta-offsets-refused";
        runAndStop(topic, connector, table);
        long version = lastCommit(table).version();

        ConnectRestException e = assertThrows(ConnectRestException.class, () -> cluster.harness().connect()
                .alterSinkConnectorOffset(connector, new TopicPartition("audit-log", 0), 5L));
        assertEquals(500, e.statusCode(), e.getMessage());
        assertTrue(e.getMessage().contains("topic 'audit-log' is not one the connector reads (topics=" + topic + ")"),
                e.getMessage());

        assertEquals(version, lastCommit(table).version(), "the table is unchanged");
        assertEquals(cluster.harness().endOffsets(topic), restOffsets(connector, topic), "the group is unchanged");
    }

    // ---- steps --------------------------------------------------------------------------------------

    /**
     * Produces the events, runs the connector until the table holds them all, checks that GET
     * offsets shows the table's positions (= the end offsets), and stops the connector.
     */
    private static Map<Coordinates, ExpectedRow> runAndStop(String topic, String connector, Path table)
            throws Exception {
        cluster.harness().createTopic(topic);
        List<Sent> sent = new ArrayList<>(cluster.harness().produce(topic, SensorFeed.good(0, EVENTS)));
        Map<Coordinates, ExpectedRow> expected = SensorFeed.expectedRows(sent);
        Map<String, String> config = ConnectHarness.presetConfig(topic, table);
        config.put("start.position", "earliest");
        cluster.harness().startConnector(connector, config);
        ExactlyOnce.awaitAndAssert(cluster.harness(), connector, topic, table, expected);

        Map<Integer, Long> end = cluster.harness().endOffsets(topic);
        assertEquals(end, TableState.txnVersions(table, connector, topic, ConnectHarness.PARTITIONS));
        awaitRestOffsets(connector, topic, end);

        cluster.harness().connect().stopConnector(connector);
        cluster.harness().connect().assertions().assertConnectorIsStopped(connector, "the connector did not stop");
        return expected;
    }

    private static void resume(String connector) throws InterruptedException {
        cluster.harness().connect().resumeConnector(connector);
        cluster.harness().connect().assertions().assertConnectorAndExactlyNumTasksAreRunning(connector, 1,
                "the connector did not resume");
    }

    /** PATCH one partition; retried while the stopped task's consumer is still leaving the group. */
    private static void alterWhenGroupIsFree(String connector, TopicPartition tp, long offset) {
        retryWhileTasksStop(() -> cluster.harness().connect().alterSinkConnectorOffset(connector, tp, offset));
    }

    /** DELETE; retried while the stopped task's consumer is still leaving the group. */
    private static void resetWhenGroupIsFree(String connector) {
        retryWhileTasksStop(() -> cluster.harness().connect().resetConnectorOffsets(connector));
    }

    private static void retryWhileTasksStop(Runnable request) {
        ConnectHarness.awaitCondition(() -> {
            try {
                request.run();
                return true;
            } catch (ConnectRestException e) {
                if (e.getMessage().contains("haven't stopped completely")) {
                    return false;
                }
                throw e;
            }
        }, Duration.ofSeconds(60), () -> "the offsets request kept failing while the tasks stopped");
    }

    // ---- reading --------------------------------------------------------------------------------------

    /** GET /connectors/<name>/offsets, as partition -> offset for {@code topic}. */
    private static Map<Integer, Long> restOffsets(String connector, String topic) {
        Map<Integer, Long> out = new TreeMap<>();
        for (ConnectorOffset o : cluster.harness().connect().connectorOffsets(connector).offsets()) {
            if (topic.equals(o.partition().get("kafka_topic"))) {
                out.put(((Number) o.partition().get("kafka_partition")).intValue(),
                        ((Number) o.offset().get("kafka_offset")).longValue());
            }
        }
        return out;
    }

    /** The group follows the table at the task's next offset commit: wait for it. */
    private static void awaitRestOffsets(String connector, String topic, Map<Integer, Long> want) {
        ConnectHarness.awaitCondition(() -> want.equals(restOffsets(connector, topic)), Duration.ofSeconds(60),
                () -> "GET offsets shows " + restOffsets(connector, topic) + ", the table holds " + want);
    }

    private static TableState.Commit lastCommit(Path table) {
        List<TableState.Commit> commits = TableState.commits(table);
        return commits.get(commits.size() - 1);
    }

    /** The commit holds txn actions with exactly {@code txns}, a commitInfo, and nothing else. */
    private static void assertTxnOnly(TableState.Commit commit, Map<String, Long> txns) {
        Map<String, Long> found = new TreeMap<>();
        for (JsonNode action : commit.actions()) {
            if (action.has("txn")) {
                found.put(action.get("txn").get("appId").asText(), action.get("txn").get("version").asLong());
            } else if (!action.has("commitInfo")) {
                fail("commit " + commit.version() + " holds more than txn actions: " + action);
            }
        }
        assertEquals(txns, found, "txn actions of commit " + commit.version());
        assertEquals("Manual Update", commit.commitInfo().orElseThrow().path("operation").asText());
    }

    /** Every produced record is in the table exactly {@code times(coordinates)} times, with the right columns. */
    private static void assertRowCounts(Path table, String connector, Map<Coordinates, ExpectedRow> expected,
                                        ToIntFunction<Coordinates> times) {
        Map<Coordinates, Integer> counts = new TreeMap<>();
        List<String> wrong = new ArrayList<>();
        for (Map<String, Object> row : TableState.rows(table)) {
            Coordinates at = ExactlyOnce.coordinates(row);
            counts.merge(at, 1, Integer::sum);
            ExpectedRow want = expected.get(at);
            String mismatch = want == null ? "is not a produced record" : ExactlyOnce.mismatch(want, row);
            if (mismatch != null && wrong.size() < 10) {
                wrong.add(at + " " + mismatch);
            }
        }
        assertEquals(List.of(), wrong, "rows of " + connector);
        List<String> off = new ArrayList<>();
        for (Coordinates at : expected.keySet()) {
            int want = times.applyAsInt(at);
            int got = counts.getOrDefault(at, 0);
            if (want != got && off.size() < 10) {
                off.add(at + " x" + got + " (expected x" + want + ")");
            }
        }
        assertEquals(List.of(), off, "records of " + connector + " not in the table the expected number of times");
        long total = expected.keySet().stream().mapToLong(times::applyAsInt).sum();
        assertEquals(total, counts.values().stream().mapToLong(Integer::longValue).sum(), "row count");
    }
}
