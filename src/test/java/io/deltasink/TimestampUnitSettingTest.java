package io.deltasink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.RecordConversionException;
import io.deltasink.testing.SinkRecords;

/** The connector's timestamp.numeric.unit reaches the converter the task builds, in both mapping modes. */
class TimestampUnitSettingTest {
    private static final SinkRecord EPOCH_SECONDS = SinkRecords.of("t", 0, 0L, "{\"ts\":1750583760}");

    private static Object[] convert(Map<String, String> settings, SinkRecord record) {
        Map<String, String> p = new HashMap<>(settings);
        p.put("name", "sensors");
        p.put(DeltaSinkConfig.TABLE_LOCATION, "/tmp/never-written");
        return Converters.factory(new DeltaSinkConfig(p), Clock.systemUTC()).create(record).convert(record);
    }

    @Test
    void theSettingGivesUnitlessTimestampColumnsTheirUnit() {
        Map<String, String> columns = Map.of(DeltaSinkConfig.COLUMNS, "ts:timestamp=ts");
        RecordConversionException e = assertThrows(RecordConversionException.class,
                () -> convert(columns, EPOCH_SECONDS));
        assertTrue(e.getMessage().contains("timestamp.numeric.unit"), e.getMessage());

        Map<String, String> seconds = new HashMap<>(columns);
        seconds.put(DeltaSinkConfig.TIMESTAMP_NUMERIC_UNIT, "seconds");
        assertEquals(1_750_583_760_000_000L, convert(seconds, EPOCH_SECONDS)[0]);
    }

    @Test
    void autoModeKeepsNumbersAsNumbers() {
        Map<String, String> auto = Map.of(DeltaSinkConfig.COLUMNS, "auto", DeltaSinkConfig.TIMESTAMP_NUMERIC_UNIT, "seconds");
        assertEquals(1_750_583_760L, convert(auto, EPOCH_SECONDS)[0]);
    }
}
