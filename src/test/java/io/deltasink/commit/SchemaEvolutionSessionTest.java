package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.table.TableMismatchException;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.FaultyLogStore;
import io.deltasink.testing.LogEdits;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SinkRecords;

/**
 * A mapping that gains columns while a table is being written ({@code schema.evolution}), through
 * sessions as a task builds them: the table gains the columns, old rows read null, every offset
 * lands once, and no data file is committed under a schema that lacks one of its columns.
 */
class SchemaEvolutionSessionTest {
    private static final String TOPIC = "readings";
    private static final TopicPartition TP0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition TP1 = new TopicPartition(TOPIC, 1);
    private static final String V1 = "id:long=id, temp:double=temp, p:int=@partition, o:long=@offset";
    private static final String V2 = V1 + ", hum:double=hum, note:string=note";
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    final Sessions sessions = Sessions.of("evolving", Map.of());

    private static Map<String, String> mapping(String columns, String evolution) {
        return Map.of(DeltaSinkConfig.COLUMNS, columns, DeltaSinkConfig.SCHEMA_EVOLUTION, evolution,
                DeltaSinkConfig.COLUMNS_NOT_NULL, columns.contains("hum") ? "id,hum" : "id");
    }

    private static List<SinkRecord> records(int partition, long from, long to) {
        List<SinkRecord> out = new ArrayList<>();
        for (long o = from; o < to; o++) {
            out.add(SinkRecords.of(TOPIC, partition, o, "{\"id\":" + (partition * 1000 + o) + ",\"temp\":20.5,\"hum\":"
                    + (40 + o) + ",\"note\":\"n" + o + "\"}"));
        }
        return out;
    }

    private Map<String, Map<String, Object>> rowsByPosition() {
        Map<String, Map<String, Object>> rows = new TreeMap<>();
        for (Map<String, Object> row : DeltaTableReader.readAll(sessions.table())) {
            Object previous = rows.put(row.get("p") + "@" + row.get("o"), row);
            assertNull(previous, "offset " + row.get("p") + "@" + row.get("o") + " twice");
        }
        return rows;
    }

    @Test
    void anUpdatedMappingAddsItsColumnsOldRowsReadNullAndEveryOffsetLandsOnce() {
        SinkSession first = sessions.create(new RecordingContext(true), mapping(V1, "add-columns"));
        first.open(List.of(TP0));
        first.put(records(0, 0, 5));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(5)), first.commit(Map.of()));
        first.stop();

        // the connector restarts with the new mapping (a PUT of its config)
        RecordingContext context = new RecordingContext(true);
        SinkSession second = sessions.create(context, mapping(V2, "add-columns"));
        second.open(List.of(TP0));
        second.put(records(0, 5, 10));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(10)), second.commit(Map.of()));
        second.stop();

        Map<String, Map<String, Object>> rows = rowsByPosition();
        assertEquals(10, rows.size());
        for (long o = 0; o < 10; o++) {
            Map<String, Object> row = rows.get("0@" + o);
            if (o < 5) {
                assertNull(row.get("hum"), row.toString());
                assertNull(row.get("note"), row.toString());
            } else {
                assertEquals(40.0 + o, row.get("hum"));
                assertEquals("n" + o, row.get("note"));
            }
        }
        assertEquals(List.of("id", "temp", "p", "o", "hum", "note"), DeltaTableReader.columnNames(sessions.table()));
    }

    @Test
    void aSchemaCommitStorageReportsAsFailedAlthoughItLandedIsRecognisedAndNotRepeated() {
        for (FaultyLogStore.Fault fault : List.of(FaultyLogStore.Fault.LANDED_THEN_EXISTS,
                FaultyLogStore.Fault.LANDED_THEN_IO_ERROR)) {
            String location = sessions.dir().resolve("table-" + fault).toString();
            Map<String, String> faulty = new HashMap<>(mapping(V1, "add-columns"));
            faulty.put(DeltaSinkConfig.TABLE_LOCATION, location);
            faulty.put(DeltaSinkConfig.HADOOP_PREFIX + FaultyLogStore.KEY, FaultyLogStore.class.getName());
            SinkSession first = sessions.create(new RecordingContext(true), faulty);
            first.open(List.of(TP0));
            first.put(records(0, 0, 5));
            first.commit(Map.of());
            first.stop();

            faulty.putAll(mapping(V2, "add-columns"));
            String table = io.deltasink.storage.StorageSettings.normalize(location);
            FaultyLogStore.arm(table, fault); // the schema commit
            SinkSession second = sessions.create(new RecordingContext(true), faulty);
            second.open(List.of(TP0));
            assertEquals(0, FaultyLogStore.pending(table), "the fault was used by the schema commit");
            second.put(records(0, 5, 10));
            assertEquals(Map.of(TP0, new OffsetAndMetadata(10)), second.commit(Map.of()));
            second.stop();

            long changes = 0;
            for (long v = 0; v <= DeltaTableReader.version(table); v++) {
                changes += DeltaTableReader.actions(table, v, "metaData").size();
            }
            assertEquals(2, changes, fault + ": the creation and one schema change");
            assertEquals(10, DeltaTableReader.readAll(table).size(), fault.toString());
            assertEquals(List.of("id", "temp", "p", "o", "hum", "note"), DeltaTableReader.columnNames(table));
        }
    }

    @Test
    void withoutEvolutionTheUpdatedMappingIsRefusedAsBefore() {
        SinkSession first = sessions.create(new RecordingContext(true), mapping(V1, "none"));
        first.open(List.of(TP0));
        first.put(records(0, 0, 5));
        first.commit(Map.of());
        first.stop();

        SinkSession second = sessions.create(new RecordingContext(true), mapping(V2, "none"));
        ConnectException e = assertThrows(ConnectException.class, () -> {
            second.open(List.of(TP0));
            second.put(records(0, 5, 10));
            second.commit(Map.of());
        });
        assertTrue(e instanceof TableMismatchException || e.getCause() instanceof TableMismatchException,
                e.toString());
        assertTrue(e.getMessage().contains("column 'hum' (double) is in the mapping but not in the table"),
                e.getMessage());
        assertEquals(5, DeltaTableReader.readAll(sessions.table()).size());
        assertEquals(4, DeltaTableReader.columnNames(sessions.table()).size());
    }

    @Test
    void aBatchOfTheOldMappingLandsUnderTheWiderSchemaAnotherTaskAddedMeanwhile() {
        // task 0 still runs the old mapping and holds rows when task 1, with the new one, evolves the table
        SinkSession old = sessions.create(new RecordingContext(true), mapping(V1, "add-columns"));
        old.open(List.of(TP0));
        old.put(records(0, 0, 5));
        SinkSession evolving = sessions.create(new RecordingContext(true), mapping(V2, "add-columns"));
        evolving.open(List.of(TP1));
        evolving.put(records(1, 0, 3));
        assertEquals(Map.of(TP1, new OffsetAndMetadata(3)), evolving.commit(Map.of()));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(5)), old.commit(Map.of()));
        old.stop();
        evolving.stop();

        Map<String, Map<String, Object>> rows = rowsByPosition();
        assertEquals(8, rows.size());
        assertNull(rows.get("0@4").get("hum"));
        assertEquals(42.0, rows.get("1@2").get("hum"));
    }

    @Test
    void aBatchWhoseColumnTheTableNoLongerHasIsNotCommitted() throws Exception {
        SinkSession session = sessions.create(new RecordingContext(true), mapping(V2, "add-columns"));
        session.open(List.of(TP0));
        session.put(records(0, 0, 3));
        assertEquals(Map.of(TP0, new OffsetAndMetadata(3)), session.commit(Map.of()));
        session.put(records(0, 3, 6));
        // another tool replaces the schema by one without 'note' while the batch is open
        long version = DeltaTableReader.version(sessions.table());
        JsonNode metaData = DeltaTableReader.actions(sessions.table(), 0, "metaData").get(0);
        ObjectNode schema = (ObjectNode) JSON.readTree(metaData.get("schemaString").asText());
        ArrayNode kept = JSON.createArrayNode();
        schema.get("fields").forEach(f -> {
            if (!f.get("name").asText().equals("note")) {
                kept.add(f);
            }
        });
        schema.set("fields", kept);
        ObjectNode replaced = metaData.deepCopy();
        replaced.put("schemaString", schema.toString());
        Map<String, Object> action = new HashMap<>();
        action.put("metaData", replaced);
        new LogEdits(sessions.table()).dropVersionChecksums().commitLine(version + 1, JSON.writeValueAsString(action));

        assertEquals(List.of("id", "temp", "p", "o", "hum"), DeltaTableReader.columnNames(sessions.table()));
        // a permanent failure: the offsets stay where the table has them, the next put() stops the task
        assertEquals(Map.of(TP0, new OffsetAndMetadata(3)), session.commit(Map.of()));
        ConnectException e = assertThrows(ConnectException.class, () -> session.put(records(0, 6, 7)));
        Throwable mismatch = e;
        while (mismatch != null && !(mismatch instanceof TableMismatchException)) {
            mismatch = mismatch.getCause();
        }
        assertTrue(mismatch != null && mismatch.getMessage().contains(
                "column 'note' (string) of the files to commit is no longer in the table"), e.toString());
        assertEquals(version + 1, DeltaTableReader.version(sessions.table()), "nothing committed");
        assertEquals(3, DeltaTableReader.readAll(sessions.table()).size());
        session.stop();
    }
}
