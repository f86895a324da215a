package io.deltasink.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.maintenance.InspectOptions;
import io.deltasink.maintenance.Inspector;
import io.deltasink.maintenance.TableReport;
import io.deltasink.proc.Preset;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;
import io.deltasink.testing.KafkaBroker;

/**
 * Inspect's Kafka lag against a real broker: a table written by the connector's task for three
 * partitions of a topic, more records produced to the topic than the table holds, and a
 * position of another connector and of a topic the broker does not have. Each of the connector's
 * app ids gets its topic-partition, the partition's end offset and the lag (end minus the table's
 * position) exactly, through the library and through {@code delta-sink inspect --json}.
 */
class InspectLagIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CONNECTOR = "lag";
    private static final String TOPIC = "lag-events";
    /** Positions the connector's task writes to the table, per Kafka partition. */
    private static final Map<Integer, Long> TABLE = Map.of(0, 40L, 1, 25L, 2, 10L);
    /** Records in each Kafka partition: partition 1 is caught up. */
    private static final Map<Integer, Integer> PRODUCED = Map.of(0, 55, 1, 25, 2, 40);
    private static final String OTHER_CONNECTOR = "old-connector/" + TOPIC + "/0";
    private static final String GONE_TOPIC = CONNECTOR + "/gone-topic/0";

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @TempDir
    static Path dir;
    private static Map<String, String> settings;

    @BeforeAll
    static void tableBehindTheTopic() {
        settings = Preset.sensorEventsLocal().with(Map.of(DeltaSinkConfig.CONNECTOR_NAME, CONNECTOR, "topics", TOPIC,
                DeltaSinkConfig.TABLE_LOCATION, dir.resolve("table").toString(),
                DeltaSinkConfig.COMPACTION_ENABLED, "false", DeltaSinkConfig.VACUUM_ENABLED, "false")).config();
        SmallFilesTable.writeUpTo(settings, TOPIC, TABLE);
        try (StorageSettings storage = StorageSettings.from(new DeltaSinkConfig(settings))) {
            DeltaTable table = new DeltaTable(storage.createEngine(), storage.tableUri());
            table.commitPositions(table.latest().orElseThrow(), Map.of(OTHER_CONNECTOR, 5L, GONE_TOPIC, 3L),
                    "kafka-connect-delta-sink/test");
        }
        kafka.createTopic(TOPIC, PRODUCED.size());
        PRODUCED.forEach((p, n) -> kafka.produce(TOPIC, p, n));
    }

    /** The positions inspect must report, app ids sorted; {@code otherConnectorMapped}: no connector name given. */
    private static List<TableReport.Position> expected(boolean otherConnectorMapped) {
        List<TableReport.Position> out = new ArrayList<>();
        out.add(new TableReport.Position(GONE_TOPIC, 3, null, null, null, null));
        for (int p = 0; p < 3; p++) {
            long end = PRODUCED.get(p);
            out.add(new TableReport.Position(CONNECTOR + "/" + TOPIC + "/" + p, TABLE.get(p), TOPIC, p, end,
                    end - TABLE.get(p)));
        }
        out.add(otherConnectorMapped ? new TableReport.Position(OTHER_CONNECTOR, 5, TOPIC, 0, 55L, 50L)
                : new TableReport.Position(OTHER_CONNECTOR, 5, null, null, null, null));
        return out;
    }

    private static List<TableReport.Position> positions(JsonNode report) throws IOException {
        List<TableReport.Position> out = new ArrayList<>();
        for (JsonNode p : report.path("positions")) {
            out.add(JSON.treeToValue(p, TableReport.Position.class));
        }
        return out;
    }

    private static Path configFile(String name, Map<String, String> extra) throws IOException {
        Map<String, String> config = new LinkedHashMap<>(settings);
        config.remove(DeltaSinkConfig.CONNECTOR_NAME);
        config.putAll(extra);
        Path file = dir.resolve(name + ".json");
        Files.writeString(file, JSON.writeValueAsString(Map.of("name", CONNECTOR, "config", config)));
        return file;
    }

    @Test
    void theInspectorPutsEachPartitionsEndOffsetAndLagBesideTheTablesPosition() {
        try (StorageSettings storage = StorageSettings.from(new DeltaSinkConfig(settings))) {
            TableReport report = new Inspector(storage, Clock.systemUTC()).inspect(InspectOptions.defaults()
                    .withKafka(Map.of("bootstrap.servers", kafka.bootstrapServers()), CONNECTOR, null));
            assertEquals(expected(false), report.positions());
            assertTrue(report.toText().contains(CONNECTOR + "/" + TOPIC + "/2: 10, end offset 40, lag 30"),
                    report.toText());
        }
    }

    @Test
    void theCommandCarriesTheSameNumbersWithBootstrapServersFromTheCommandLineOrTheConfig() throws IOException {
        Path config = configFile("plain", Map.of());
        DeltaSinkCommandTest.Run given = DeltaSinkCommandTest.run("inspect", "--json", "--config", config.toString(),
                "--bootstrap-servers", kafka.bootstrapServers());
        assertEquals(0, given.status(), given.toString());
        assertEquals(expected(false), positions(given.json()), given.out());

        Path withKafka = configFile("with-kafka", Map.of("bootstrap.servers", kafka.bootstrapServers()));
        DeltaSinkCommandTest.Run fromConfig = DeltaSinkCommandTest.run("inspect", "--json", "--config",
                withKafka.toString());
        assertEquals(0, fromConfig.status(), fromConfig.toString());
        assertEquals(expected(false), positions(fromConfig.json()), fromConfig.out());
    }

    @Test
    void withoutAConnectorNameEveryConnectorsPositionGetsItsLag() throws IOException {
        DeltaSinkCommandTest.Run run = DeltaSinkCommandTest.run("inspect", "--json", "--table",
                dir.resolve("table").toString(), "--bootstrap-servers", kafka.bootstrapServers());
        assertEquals(0, run.status(), run.toString());
        assertEquals(expected(true), positions(run.json()), run.out());
    }
}
