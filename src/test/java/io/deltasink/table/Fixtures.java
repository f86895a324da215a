package io.deltasink.table;

import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;

/** The sensor table of the seeds, shrunk: schema, rows and helpers shared by the table tests. */
final class Fixtures {
    static final String ENGINE_INFO = "kafka-connect-delta-sink/0.1.0 connector=test";
    static final List<String> PARTITIONS = List.of("device_type", "event_date");

    static final List<Column> DATA_COLUMNS = List.of(
            Column.of("device_id", ColumnType.STRING, false),
            Column.of("event_time", ColumnType.TIMESTAMP, true),
            Column.of("linkquality", ColumnType.INT, true),
            Column.of("power", ColumnType.DOUBLE, true),
            Column.of("contact", ColumnType.BOOLEAN, true),
            Column.of("seq", ColumnType.LONG, true),
            new Column("amount", ColumnType.DECIMAL, 10, 2, true));

    static final RowSchema SCHEMA = schema();

    private Fixtures() {
    }

    private static RowSchema schema() {
        List<Column> all = new ArrayList<>(DATA_COLUMNS);
        all.add(1, Column.of("device_type", ColumnType.STRING, false));
        all.add(Column.of("event_date", ColumnType.DATE, true));
        return new RowSchema(all);
    }

    static Engine engine() {
        return DefaultEngine.create(new Configuration());
    }

    static String tablePath(Path dir) {
        return dir.resolve("table").toUri().toString();
    }

    static long micros(String iso) {
        Instant i = Instant.parse(iso);
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000L;
    }

    static int days(String date) {
        return (int) LocalDate.parse(date).toEpochDay();
    }

    static Map<String, Object> row(String deviceId, String eventTime, Integer linkquality, Double power,
                                   Boolean contact, Long seq, String amount) {
        Map<String, Object> row = new HashMap<>();
        row.put("device_id", deviceId);
        row.put("event_time", eventTime == null ? null : micros(eventTime));
        row.put("linkquality", linkquality);
        row.put("power", power);
        row.put("contact", contact);
        row.put("seq", seq);
        row.put("amount", amount == null ? null : new BigDecimal(amount));
        return row;
    }

    /** One file of {@code rows} in partition (deviceType, date). */
    static DataFile file(String tablePath, String deviceType, String date, List<Map<String, Object>> rows) {
        Map<String, String> partition = new HashMap<>();
        partition.put("device_type", deviceType);
        partition.put("event_date", date);
        String dir = "device_type=" + deviceType + "/event_date="
                + (date == null ? "__HIVE_DEFAULT_PARTITION__" : date);
        return TestParquetFiles.write(tablePath, dir, DATA_COLUMNS, partition, rows);
    }

    /** A small file with one row, for tests that only need some commit. */
    static DataFile oneRowFile(String tablePath, long seq) {
        return file(tablePath, "plug", "2026-06-22",
                List.of(row("dev-" + seq, "2026-06-22T08:16:00Z", 200, 1.5, null, seq, "1.00")));
    }

    static DeltaTable createTable(Engine engine, String tablePath, Map<String, String> properties) {
        DeltaTable table = new DeltaTable(engine, tablePath);
        table.createOrCheck(SCHEMA, PARTITIONS, properties, ENGINE_INFO);
        return table;
    }
}
