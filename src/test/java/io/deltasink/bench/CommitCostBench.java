package io.deltasink.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkRecord;

import io.deltasink.Converters;
import io.deltasink.Version;
import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.commit.SinkSession;
import io.deltasink.model.DataFile;
import io.deltasink.proc.Preset;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;
import io.deltasink.table.TableSnapshot;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SensorEvents;

/**
 * Time per commit as a table grows: a table of the seed preset (its checkpoint interval) is brought
 * to each version asked for by appends of one file each through {@link DeltaTable} (files that are
 * referenced, never read), then K batches of R seed records go through a task's {@link SinkSession}
 * (put, then the flush: Parquet files closed, snapshot loaded, fencing check, commit written,
 * checkpoint every N commits) and each flush is timed, after a warm-up of the same flushes on a
 * table of its own. Prints the median, min and max per version.
 * Run from the project root:
 * {@code mvn -q -B -Pbench test-compile exec:java -Dbench.main=io.deltasink.bench.CommitCostBench
 * -Dexec.args="[versions=10,1000,10000] [commits=30] [records=10] [warmup=50] [table=PATH]"}.
 */
public final class CommitCostBench {
    private static final List<String> OPTIONS = List.of("versions", "commits", "records", "warmup", "table");
    private static final String TOPIC = "sensor-events";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    private CommitCostBench() {
    }

    public static void main(String[] args) throws Exception {
        BenchArgs parsed = BenchArgs.parse(OPTIONS, args);
        int commits = Integer.parseInt(parsed.single("commits", "30"));
        int perCommit = Integer.parseInt(parsed.single("records", "10"));
        int warmup = Integer.parseInt(parsed.single("warmup", "50"));
        List<Long> versions = new ArrayList<>();
        for (String v : parsed.list("versions", "10,1000,10000")) {
            versions.add(Long.parseLong(v.replace("_", "")));
        }
        Path dir = Files.createTempDirectory("commit-cost-bench-");
        // table=PATH goes on with a table of an earlier run (a version it has already is not filled again)
        DeltaSinkConfig config = config(Path.of(parsed.single("table", dir.resolve("table").toString())));
        // the same code warmed up on a table of its own first, so version 10 is not timed cold
        DeltaSinkConfig scratch = config(dir.resolve("warm-up"));
        StorageSettings scratchStorage = StorageSettings.from(scratch);
        try {
            measure(scratch, scratchStorage, warmup, perCommit, 0, new long[warmup]);
        } finally {
            scratchStorage.close();
        }
        String appId = "bench/" + TOPIC + "/0";
        String engineInfo = Version.engineInfo(config.connectorName());

        List<String> lines = new ArrayList<>();
        StorageSettings storage = StorageSettings.from(config);
        try {
            DeltaTable table = new DeltaTable(storage.createEngine(), storage.tableUri());
            long offset = table.latest().flatMap(t -> t.txnVersion(appId)).orElse(0L);
            long fillMs = 0;
            for (long target : versions) {
                // bring the table to target - 1, so the first measured commit is version `target`
                long fillStart = System.nanoTime();
                TableSnapshot latest = table.latest().orElse(null);
                long version = latest == null ? -1 : latest.version();
                if (version < 0) {
                    // the session creates the table with the preset's columns and properties
                    offset = measure(config, storage, 1, perCommit, offset, new long[1]);
                    latest = table.latest().orElseThrow();
                    version = latest.version();
                }
                while (version < target - 1) {
                    version = table.commitAppend(latest, List.of(referencedFile(version)), Map.of(appId, offset),
                            engineInfo);
                    latest = table.latest().orElseThrow();
                }
                fillMs += (System.nanoTime() - fillStart) / 1_000_000;
                long[] nanos = new long[commits];
                offset = measure(config, storage, commits, perCommit, offset, nanos);
                long[] sorted = nanos.clone();
                Arrays.sort(sorted);
                lines.add(String.format(Locale.ROOT, "%,9d %10.1f %10.1f %10.1f", target,
                        sorted[commits / 2] / 1e6, sorted[0] / 1e6, sorted[commits - 1] / 1e6));
                System.out.println("version " + target + ": " + lines.get(lines.size() - 1) + " (filled in "
                        + fillMs + " ms so far)");
            }
        } finally {
            storage.close();
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "=== CommitCostBench: %d flushes of %d seed records through a task's session "
                + "per version, delta.checkpointInterval=%s ===%n", commits, perCommit,
                config.tableProperties().getOrDefault("delta.checkpointInterval", "(Kernel's default)"));
        System.out.printf(Locale.ROOT, "%9s %10s %10s %10s%n", "version", "median ms", "min ms", "max ms");
        lines.forEach(System.out::println);
        System.out.println("table " + config.tableLocation());
    }

    private static DeltaSinkConfig config(Path table) {
        Map<String, String> props = new HashMap<>(Preset.sensorEventsLocal().config());
        props.put(DeltaSinkConfig.CONNECTOR_NAME, "bench");
        props.put(DeltaSinkConfig.TABLE_LOCATION, table.toString());
        return new DeltaSinkConfig(props);
    }

    /**
     * Opens a session on partition 0, puts {@code commits} batches from {@code offset} on and times
     * each flush; returns the next offset.
     */
    private static long measure(DeltaSinkConfig config, StorageSettings storage, int commits, int perCommit,
                                long offset, long[] nanos) {
        RecordingContext context = new RecordingContext(false);
        SinkSession session = new SinkSession(config, storage, Converters.factory(config, Clock.systemUTC()), context,
                Clock.systemUTC(), ms -> { }, Version.engineInfo(config.connectorName()));
        try {
            session.open(List.of(TP));
            for (int c = 0; c < commits; c++) {
                List<SinkRecord> batch = new ArrayList<>(perCommit);
                for (int i = 0; i < perCommit; i++, offset++) {
                    SensorEvents.Event e = SensorEvents.event(offset);
                    batch.add(new SinkRecord(TOPIC, 0, Schema.OPTIONAL_STRING_SCHEMA, e.deviceId(),
                            Schema.OPTIONAL_STRING_SCHEMA, e.json(), offset, System.currentTimeMillis(),
                            TimestampType.CREATE_TIME));
                }
                session.put(batch);
                long start = System.nanoTime();
                Map<TopicPartition, OffsetAndMetadata> committed = session.commit(Map.of(TP,
                        new OffsetAndMetadata(offset)));
                nanos[c] = System.nanoTime() - start;
                if (!committed.containsKey(TP) || committed.get(TP).offset() != offset) {
                    throw new IllegalStateException("flush " + c + " did not commit offset " + offset + ": " + committed);
                }
            }
        } finally {
            session.stop();
        }
        return offset;
    }

    /** A data file entry for filling the log: a path in the seed's partition that is never read. */
    private static DataFile referencedFile(long version) {
        Map<String, String> partition = Map.of("device_type", SensorEvents.SMART_PLUG,
                "event_date", SensorEvents.DAY.toString());
        return new DataFile("device_type=smart_plug/event_date=" + SensorEvents.DAY + "/fill-" + version + "-"
                + UUID.randomUUID() + ".parquet", partition, 4096, System.currentTimeMillis(),
                new DataFile.FileStats(1, Map.of(), Map.of(), Map.of()));
    }
}
