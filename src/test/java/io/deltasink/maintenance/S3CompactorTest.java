package io.deltasink.maintenance;

import static io.deltasink.maintenance.SmallFileTables.append;
import static io.deltasink.maintenance.SmallFileTables.at;
import static io.deltasink.maintenance.SmallFileTables.multiset;
import static io.deltasink.maintenance.SmallFileTables.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.S3Server;

/** The compaction of {@link CompactorTest} on a table on S3 (S3Proxy), through the connector's S3 settings. */
class S3CompactorTest {
    @RegisterExtension
    static final S3Server s3 = new S3Server("sensor-data");

    @Test
    void smallFilesOnS3AreCompactedWithTheSameRows() {
        Map<String, String> p = new HashMap<>(s3.server().connectorSettings());
        p.put("name", "compaction");
        p.put(DeltaSinkConfig.TABLE_LOCATION, "s3a://sensor-data/delta/sensor_events");
        p.put(DeltaSinkConfig.COLUMNS, "device_id:string=device_id");
        try (StorageSettings storage = StorageSettings.from(new DeltaSinkConfig(p))) {
            DeltaTable table = SmallFileTables.create(storage);
            for (int c = 0; c < 10; c++) {
                append(storage, table, List.of(row(c, "plug", 20_626), row(c + 100, "door", 20_626)), c + 1,
                        at("2026-06-22T10:00:00Z"));
            }
            String uri = storage.tableUri();
            Configuration conf = s3.server().hadoopConf();
            List<String> before = multiset(DeltaTableReader.readAll(uri, conf));

            CompactionResult result = new Compactor(storage, at("2026-06-23T12:00:00Z"))
                    .run(CompactionOptions.defaults().withMinAge(Duration.ZERO));

            assertEquals("committed", result.outcome(), result.toText());
            assertEquals(20, result.filesRemoved());
            assertEquals(2, result.filesAdded());
            assertEquals(before, multiset(DeltaTableReader.readAll(uri, conf)));
            assertEquals(before, multiset(DeltaTableReader.readAll(uri, result.version() - 1, conf)), "time travel");
            List<JsonNode> actions = DeltaTableReader.actions(uri, result.version(), conf);
            assertEquals(20, actions.stream().filter(a -> a.has("remove")).count());
            assertTrue(actions.stream().filter(a -> a.has("add") || a.has("remove"))
                    .allMatch(a -> !a.elements().next().get("dataChange").asBoolean()), "dataChange=false");
            assertEquals(Long.valueOf(10), DeltaTableReader.txnVersion(uri, SmallFileTables.APP_ID, conf).orElseThrow());
        }
    }
}
