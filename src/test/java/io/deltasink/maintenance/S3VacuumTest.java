package io.deltasink.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.S3Server;

/**
 * Vacuum and inspect on a table on S3 (S3Proxy) through the connector's S3 settings. S3 objects
 * cannot be aged, so the vacuum's clock runs ahead instead.
 */
class S3VacuumTest {
    @RegisterExtension
    static final S3Server s3 = new S3Server("sensor-data");

    @Test
    void onS3ReferencedFilesStayOrphansAndRemovedFilesGoAndInspectReads() throws Exception {
        Map<String, String> p = new HashMap<>(s3.server().connectorSettings());
        p.put("name", "vacuum");
        p.put(DeltaSinkConfig.TABLE_LOCATION, "s3a://sensor-data/delta/vacuumed");
        p.put(DeltaSinkConfig.COLUMNS, "device_id:string=device_id");
        try (StorageSettings storage = StorageSettings.from(new DeltaSinkConfig(p))) {
            DeltaTable table = SmallFileTables.create(storage);
            for (int c = 0; c < 4; c++) {
                SmallFileTables.append(storage, table, List.of(SmallFileTables.row(c, "plug 50%", 20_626),
                        SmallFileTables.row(c + 100, "door", 20_626)), c + 1, Clock.systemUTC());
            }
            CompactionResult compaction = new Compactor(storage, Clock.systemUTC())
                    .run(CompactionOptions.defaults().withMinAge(Duration.ZERO).withMinFiles(2));
            String uri = storage.tableUri();
            Configuration conf = s3.server().hadoopConf();
            List<String> rows = SmallFileTables.multiset(DeltaTableReader.readAll(uri, conf));
            Path root = new Path(uri);
            FileSystem fs = root.getFileSystem(conf);
            for (String name : List.of("orphan.parquet", "_staging/hidden.parquet")) {
                try (FSDataOutputStream out = fs.create(new Path(root, name))) {
                    out.write(new byte[] {1, 2, 3});
                }
            }
            Clock later = Clock.offset(Clock.systemUTC(), Duration.ofDays(8));

            VacuumResult dry = new Vacuum(storage, later).run(VacuumOptions.defaults().withDryRun(true));
            VacuumResult real = new Vacuum(storage, later).run(VacuumOptions.defaults());
            Set<String> deleted = real.files().stream().map(VacuumResult.File::path).collect(Collectors.toCollection(TreeSet::new));
            assertEquals(dry.files().stream().map(VacuumResult.File::path).collect(Collectors.toCollection(TreeSet::new)), deleted);
            assertEquals(compaction.filesRemoved() + 1, real.deletedFiles(), real.toText());
            assertTrue(deleted.contains("orphan.parquet"), deleted.toString());
            assertTrue(fs.exists(new Path(root, "_staging/hidden.parquet")), "hidden paths stay");
            assertEquals(rows, SmallFileTables.multiset(DeltaTableReader.readAll(uri, conf)));

            TableReport report = new Inspector(storage, Clock.systemUTC()).inspect(InspectOptions.defaults());
            assertEquals(DeltaTableReader.version(uri, conf), report.version());
            assertEquals(compaction.filesAdded(), report.files());
            assertEquals(4L, report.positions().get(0).tableOffset());
        }
    }
}
