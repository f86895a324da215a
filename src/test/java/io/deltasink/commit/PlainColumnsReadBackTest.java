package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.proc.Preset;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.RecordingContext;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * The seed preset through a session, three commits of smart-plug events into one table partition:
 * the columns unique per row (raw_payload, event_time, energy) give their dictionary up in the
 * first file, so the next two are written without one, the other columns keep theirs, and Kernel
 * reads every value as sent.
 */
class PlainColumnsReadBackTest {
    private static final String TOPIC = "sensor-events";
    private static final TopicPartition TP0 = new TopicPartition(TOPIC, 0);
    private static final int EVENTS_PER_COMMIT = 30_000;

    @RegisterExtension
    final Sessions sessions = Sessions.of("seed", Map.of());

    @Test
    void columnsUniquePerRowLoseTheirDictionaryAfterTheFirstFileAndReadBackUnchanged() throws IOException {
        Preset preset = Preset.sensorEventsLocal();
        Map<String, String> props = new LinkedHashMap<>(preset.config());
        props.keySet().removeIf(k -> k.startsWith("s3.") || k.startsWith("compaction.") || k.startsWith("vacuum."));
        props.put(DeltaSinkConfig.TABLE_LOCATION, sessions.dir().resolve("table").toString());
        props.put("name", preset.name());
        SinkSession session = sessions.create(new RecordingContext(true), props);
        session.open(List.of(TP0));
        Map<Double, SensorEvents.Event> sent = new HashMap<>();
        List<Path> files = new ArrayList<>();
        long offset = 0;
        for (int c = 0; c < 3; c++) {
            List<SinkRecord> batch = new ArrayList<>();
            for (int i = 0; i < EVENTS_PER_COMMIT; i++, offset++) {
                SensorEvents.Event e = SensorEvents.smartPlug(offset);
                sent.put(e.energy(), e);
                batch.add(SinkRecords.of(TOPIC, 0, offset, e.json()));
            }
            session.put(batch);
            assertEquals(Map.of(TP0, new OffsetAndMetadata(offset)), session.commit(Map.of()));
            files.add(newestDataFile(files));
        }
        session.stop();

        Map<String, Boolean> first = dictionaryPages(files.get(0));
        for (String column : List.of("raw_payload", "event_time", "energy")) {
            assertFalse(first.get(column), column + " gave its dictionary up in the first file");
        }
        assertTrue(first.get("device_id"));
        for (Path later : files.subList(1, 3)) {
            Map<String, Boolean> pages = dictionaryPages(later);
            assertTrue(pages.get("device_id") && pages.get("power") && pages.get("plug_state"), pages.toString());
        }

        List<Map<String, Object>> rows = DeltaTableReader.readAll(sessions.table());
        assertEquals(sent.size(), rows.size());
        for (Map<String, Object> row : rows) {
            SensorEvents.Event e = sent.remove((Double) row.get("energy"));
            assertEquals(e.payloadJson(), row.get("raw_payload"));
            assertEquals(e.ingestedAt(), row.get("event_time"));
            assertEquals(e.deviceId(), row.get("device_id"));
            assertEquals(e.power(), row.get("power"));
            assertEquals(e.state(), row.get("plug_state"));
        }
        assertEquals(Map.of(), sent);
    }

    private Path newestDataFile(List<Path> known) throws IOException {
        try (Stream<Path> walk = Files.walk(sessions.dir().resolve("table"))) {
            List<Path> found = walk.filter(p -> p.getFileName().toString().endsWith(".parquet")
                    && !p.toString().contains("_delta_log") && !known.contains(p)).toList();
            assertEquals(1, found.size(), found.toString());
            return found.get(0);
        }
    }

    /** Per column: whether the file has a dictionary page for it. */
    private static Map<String, Boolean> dictionaryPages(Path file) throws IOException {
        Map<String, Boolean> out = new HashMap<>();
        try (ParquetFileReader reader = ParquetFileReader.open(
                HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file.toUri()), new Configuration()))) {
            for (BlockMetaData block : reader.getFooter().getBlocks()) {
                for (ColumnChunkMetaData c : block.getColumns()) {
                    out.merge(c.getPath().toDotString(), c.getEncodingStats().hasDictionaryPages(), Boolean::logicalOr);
                }
            }
        }
        return out;
    }
}
