package io.deltasink.maintenance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;
import io.deltasink.table.TableSnapshot;
import io.deltasink.write.PartitionedWriter;
import io.deltasink.write.WriterSettings;

/**
 * Test fixture: tables of many small files written the way the connector writes them (its
 * Parquet writer, one append commit with a txn action per batch), over every column type the
 * connector writes, with rows as hostile as the tests want.
 */
final class SmallFileTables {
    static final String ENGINE_INFO = "kafka-connect-delta-sink/test connector=compaction-test";
    static final String APP_ID = "sensors/events/0";
    static final List<String> PARTITIONS = List.of("device_type", "event_date");
    static final RowSchema SCHEMA = new RowSchema(List.of(
            Column.of("device_id", ColumnType.STRING, false),
            Column.of("device_type", ColumnType.STRING, false),
            Column.of("seq", ColumnType.LONG, true),
            Column.of("event_time", ColumnType.TIMESTAMP, true),
            Column.of("power", ColumnType.DOUBLE, true),
            Column.of("ratio", ColumnType.FLOAT, true),
            new Column("amount", ColumnType.DECIMAL, 9, 2, true),
            new Column("total", ColumnType.DECIMAL, 18, 4, true),
            new Column("huge", ColumnType.DECIMAL, 38, 10, true),
            Column.of("payload", ColumnType.BINARY, true),
            Column.of("note", ColumnType.STRING, true),
            Column.of("contact", ColumnType.BOOLEAN, true),
            Column.of("level", ColumnType.INT, true),
            Column.of("small", ColumnType.SHORT, true),
            Column.of("tiny", ColumnType.BYTE, true),
            Column.of("day", ColumnType.DATE, true),
            Column.of("always_null", ColumnType.STRING, true),
            Column.of("event_date", ColumnType.DATE, true)));

    private SmallFileTables() {
    }

    static DeltaTable create(StorageSettings storage) {
        DeltaTable table = new DeltaTable(storage.createEngine(), storage.tableUri());
        table.createOrCheck(SCHEMA, PARTITIONS, Map.of(), ENGINE_INFO);
        return table;
    }

    /** An ordinary row: device {@code seq % 7}, the given table partition. */
    static Object[] row(long seq, String deviceType, int epochDay) {
        return new Object[] {"dev-" + (seq % 7), deviceType, seq, 1_780_000_000_000_000L + seq * 1_000_000L,
                seq * 0.25, (float) seq / 3, BigDecimal.valueOf(seq, 2), BigDecimal.valueOf(seq * 7, 4),
                new BigDecimal("1234567890123456789012345678.0123456789").add(BigDecimal.valueOf(seq)),
                ("p" + seq).getBytes(StandardCharsets.UTF_8), seq % 3 == 0 ? null : "note " + seq, seq % 2 == 0,
                (int) seq, (short) (seq % 30000), (byte) (seq % 100), epochDay, null, epochDay};
    }

    /**
     * Appends {@code rows} as one commit (one file per table partition) whose txn action moves
     * {@link #APP_ID} to {@code offset}; the files' modification time is {@code clock}'s.
     */
    static List<DataFile> append(StorageSettings storage, DeltaTable table, List<Object[]> rows, long offset,
                                 Clock clock) {
        try {
            PartitionedWriter writer = new PartitionedWriter(WriterSettings.defaults(), SCHEMA, PARTITIONS,
                    storage.tablePath(), storage.hadoopConf(), clock);
            for (Object[] row : rows) {
                writer.write(row);
            }
            List<DataFile> files = writer.finish();
            TableSnapshot base = table.latest().orElseThrow();
            table.commitAppend(base, files, Map.of(APP_ID, offset), ENGINE_INFO);
            return files;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Clock at(String instant) {
        return Clock.fixed(Instant.parse(instant), ZoneOffset.UTC);
    }

    /**
     * The rows as a sorted list of canonical strings: equal lists are equal multisets of rows with
     * equal values (binary as hex, decimals with their scale, -0.0 and NaN as such).
     */
    static List<String> multiset(List<Map<String, Object>> rows) {
        List<String> out = new ArrayList<>();
        for (Map<String, Object> row : rows) {
            Map<String, String> canonical = new TreeMap<>();
            row.forEach((k, v) -> canonical.put(k, v instanceof byte[] b ? "0x" + HexFormat.of().formatHex(b)
                    : v == null ? "null" : v.getClass().getSimpleName() + ":" + v));
            out.add(canonical.toString());
        }
        out.sort(null);
        return out;
    }
}
