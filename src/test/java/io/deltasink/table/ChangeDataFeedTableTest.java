package io.deltasink.table;

import static io.deltasink.table.Fixtures.ENGINE_INFO;
import static io.deltasink.table.Fixtures.PARTITIONS;
import static io.deltasink.table.Fixtures.SCHEMA;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.RowSchema;
import io.deltasink.testing.DeltaTableReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables with the change data feed on (delta.enableChangeDataFeed=true): the protocol the Delta
 * spec asks for, and every kind of commit the connector writes read back from the log as a change
 * reader sees it: appends are inserts (adds with dataChange=true, no cdc files), a compaction is no
 * change (dataChange=false on both sides), a schema change keeps the property. Tables with the feed
 * on that Spark created are accepted and written. (The feed read back by Spark: ChangeFeedSparkIT.)
 */
class ChangeDataFeedTableTest {
    private static final Map<String, String> CDF = Map.of("delta.enableChangeDataFeed", "true");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void createdWithTheChangeDataFeedFeatureAndEveryCommitReadsAsTheFeedNeeds() {
        String path = Fixtures.tablePath(dir);
        DeltaTable table = new DeltaTable(Fixtures.engine(), path);
        TableSnapshot created = table.createOrCheck(SCHEMA, PARTITIONS, CDF, ENGINE_INFO);

        // the spec: writer version 4, or writer version 7 naming the changeDataFeed feature
        TableProtocol protocol = created.protocol();
        assertTrue(protocol.minWriterVersion() == 4 || protocol.minWriterVersion() == 7
                && protocol.writerFeatures().contains("changeDataFeed"), protocol.toString());
        assertEquals(1, protocol.minReaderVersion(), "the feed needs no reader feature: " + protocol);
        assertEquals("true", created.properties().get("delta.enableChangeDataFeed"));

        long append = table.commitAppend(created, List.of(Fixtures.oneRowFile(path, 1), Fixtures.oneRowFile(path, 2)),
                Map.of("sensors/events/0", 3L), ENGINE_INFO);
        assertEquals(List.of(true, true), dataChange(path, append, "add"), "appends are inserts");
        assertTrue(DeltaTableReader.actions(path, append, "cdc").isEmpty(), "an append needs no cdc file");

        List<Column> wider = new ArrayList<>(SCHEMA.columns());
        wider.add(Column.of("battery", ColumnType.INT, true));
        TableSnapshot evolved = table.createOrCheck(new RowSchema(wider), PARTITIONS, Map.of(), ENGINE_INFO,
                SchemaEvolution.ADD_COLUMNS);
        assertEquals(append + 1, evolved.version());
        JsonNode metaData = DeltaTableReader.actions(path, evolved.version(), "metaData").get(0);
        assertEquals("true", metaData.path("configuration").path("delta.enableChangeDataFeed").asText(),
                "the schema change keeps the feed on: " + metaData);
        assertTrue(DeltaTableReader.actions(path, evolved.version(), "protocol").isEmpty());
        assertEquals(protocol, evolved.protocol());

        Set<String> before = evolved.files().stream().map(TableFile::logPath).collect(Collectors.toSet());
        long rewrite = table.commitRewrite(evolved, before, List.of(Fixtures.oneRowFile(path, 1)), ENGINE_INFO);
        assertEquals(List.of(false), dataChange(path, rewrite, "add"), "a compaction's adds are no change");
        assertEquals(List.of(false, false), dataChange(path, rewrite, "remove"), "a compaction's removes are no change");
        assertTrue(DeltaTableReader.actions(path, rewrite, "cdc").isEmpty());
        assertEquals("true", table.existing().properties().get("delta.enableChangeDataFeed"));
    }

    /** Spark 3.x / 4.x create a table with the feed on as (1,4), or (3,7) with table features. */
    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "1;4;;",
        "1;7;;appendOnly,changeDataFeed,invariants",
        "3;7;deletionVectors;appendOnly,changeDataFeed,deletionVectors,invariants"})
    void aTableSparkCreatedWithTheFeedOnIsAcceptedAndWritten(int reader, int writer, String readerFeatures,
                                                             String writerFeatures) throws Exception {
        String path = sparkStyleTable(reader, writer, readerFeatures, writerFeatures);
        DeltaTable table = new DeltaTable(Fixtures.engine(), path);

        TableSnapshot checked = table.createOrCheck(SCHEMA, PARTITIONS, CDF, ENGINE_INFO);
        assertEquals(0, checked.version());
        assertEquals(reader, checked.protocol().minReaderVersion());
        assertEquals(writer, checked.protocol().minWriterVersion());
        long version = table.commitAppend(checked, List.of(Fixtures.oneRowFile(path, 7)), Map.of("sensors/events/0", 8L),
                ENGINE_INFO);

        assertEquals(1, version);
        assertEquals(List.of(true), dataChange(path, version, "add"));
        assertTrue(DeltaTableReader.actions(path, version, "protocol").isEmpty(), "the protocol is left as it is");
        List<Map<String, Object>> rows = DeltaTableReader.readAll(path);
        assertEquals(1, rows.size());
        assertEquals(7L, rows.get(0).get("seq"));
    }

    @Test
    void anExistingTableKeepsItsPropertiesWhenTheConfigAsksForTheFeed() {
        String path = Fixtures.tablePath(dir);
        Fixtures.createTable(Fixtures.engine(), path, Map.of());

        TableSnapshot checked = new DeltaTable(Fixtures.engine(), path).createOrCheck(SCHEMA, PARTITIONS, CDF, ENGINE_INFO);

        assertEquals(0, checked.version(), "no commit turns the feed on");
        assertFalse(checked.properties().containsKey("delta.enableChangeDataFeed"));
    }

    @Test
    void aPropertyDeltaDoesNotKnowIsRefusedByNameBeforeAnythingIsWritten() {
        String path = Fixtures.tablePath(dir);
        DeltaTable table = new DeltaTable(Fixtures.engine(), path);

        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> table.createOrCheck(
                SCHEMA, PARTITIONS, Map.of("delta.enableChangeDataFed", "true"), ENGINE_INFO));
        assertTrue(unknown.getMessage().startsWith("table property delta.enableChangeDataFed=true is refused by Delta "
                + "Kernel"), unknown.getMessage());
        IllegalArgumentException notABoolean = assertThrows(IllegalArgumentException.class, () -> table.createOrCheck(
                SCHEMA, PARTITIONS, Map.of("delta.enableChangeDataFeed", "yes"), ENGINE_INFO));
        assertTrue(notABoolean.getMessage().contains("delta.enableChangeDataFeed=yes is refused by Delta Kernel: must "
                + "be true or false"), notABoolean.getMessage());
        assertTrue(table.latest().isEmpty(), "no table was created");

        DeltaTable.checkTableProperties(Map.of("delta.enableChangeDataFeed", "TRUE", "delta.appendOnly", "false",
                "owner", "sensors"));
    }

    private static List<Boolean> dataChange(String path, long version, String kind) {
        List<Boolean> out = new ArrayList<>();
        DeltaTableReader.actions(path, version, kind).forEach(a -> out.add(a.get("dataChange").asBoolean()));
        return out;
    }

    /**
     * A table as Spark writes it: version 0 with the given protocol and a metaData with the feed on
     * (the schema taken from a table the connector created elsewhere).
     */
    private String sparkStyleTable(int reader, int writer, String readerFeatures, String writerFeatures)
            throws Exception {
        String template = dir.resolve("template").toUri().toString();
        Fixtures.createTable(Fixtures.engine(), template, Map.of());
        ObjectNode metaData = (ObjectNode) DeltaTableReader.actions(template, 0, "metaData").get(0).deepCopy();
        metaData.putObject("configuration").put("delta.enableChangeDataFeed", "true");
        ObjectNode protocol = JSON.createObjectNode().put("minReaderVersion", reader).put("minWriterVersion", writer);
        if (readerFeatures != null) {
            ArrayNode features = protocol.putArray("readerFeatures");
            List.of(readerFeatures.split(",")).forEach(features::add);
        }
        if (writerFeatures != null) {
            ArrayNode features = protocol.putArray("writerFeatures");
            List.of(writerFeatures.split(",")).forEach(features::add);
        }
        ObjectNode commitInfo = JSON.createObjectNode().put("timestamp", 1_750_000_000_000L)
                .put("operation", "CREATE TABLE").put("engineInfo", "Apache-Spark/4.2.0 Delta-Lake/4.4.0");
        Path log = dir.resolve("spark").resolve("_delta_log");
        Files.createDirectories(log);
        Files.writeString(log.resolve("00000000000000000000.json"),
                JSON.createObjectNode().set("commitInfo", commitInfo) + "\n"
                        + JSON.createObjectNode().set("protocol", protocol) + "\n"
                        + JSON.createObjectNode().set("metaData", metaData) + "\n");
        return dir.resolve("spark").toUri().toString();
    }
}
