package io.deltasink.write;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.convert.ColumnMapping;
import io.deltasink.convert.MappingConverter;
import io.deltasink.model.Column;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;
import io.deltasink.proc.Preset;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;

/**
 * The other tests read our files back through parquet-mr (directly and through Kernel): one decoder.
 * Here DuckDB's own Parquet reader, an independent implementation, reads files written by the real
 * write path ({@link PartitionedWriter}) and every value must be the one written: every column type,
 * nullable and NOT NULL, extremes (integer bounds, NaN, -0.0, infinities, subnormals, the first and
 * last timestamp and date of years 0001 and 9999, the largest decimals, empty, non-ASCII and 100 KiB
 * strings), many pages and row groups, a dictionary kept and one given up mid-file, each codec; and
 * the seed sensor preset's rows.
 */
class IndependentReaderTest {
    private static final RowSchema SCHEMA = ParquetRoundTripTest.ALL_TYPES;
    private static final RowSchema NOT_NULL = new RowSchema(SCHEMA.columns().stream()
            .map(c -> new Column(c.name(), c.type(), c.precision(), c.scale(), false)).toList());
    private static final long TS_MIN = -62_135_596_800_000_000L; // 0001-01-01T00:00:00Z
    private static final long TS_MAX = 253_402_300_799_999_999L; // 9999-12-31T23:59:59.999999Z
    private static final int DATE_MIN = (int) LocalDate.of(1, 1, 1).toEpochDay();
    private static final int DATE_MAX = (int) LocalDate.of(9999, 12, 31).toEpochDay();

    @TempDir
    Path dir;
    private Connection duck;
    private int written;

    @BeforeEach
    void open() throws SQLException {
        duck = DriverManager.getConnection("jdbc:duckdb:");
    }

    @AfterEach
    void close() throws SQLException {
        duck.close();
    }

    @Test
    void everyTypeReadsBackThroughDuckDbAcrossSeedsCodecsPagesAndRowGroups() throws Exception {
        int seed = 100;
        for (String codec : WriterSettings.COMPRESSIONS) {
            for (boolean nullable : new boolean[] {true, false}) {
                seed++;
                WriterSettings settings = WriterSettings.defaults().withCompression(codec)
                        .withRowGroupSizeBytes(seed % 2 == 0 ? 32 * 1024 : 96 * 1024)
                        .withPageSizeBytes(seed % 3 == 0 ? 1024 : 4096);
                RowSchema schema = nullable ? SCHEMA : NOT_NULL;
                List<Object[]> rows = rows(4_000, seed, nullable);
                Path file = write(schema, rows, settings);
                assertDuckDbReads(file, schema, rows);

                Map<String, List<Boolean>> dictionaries = dictionaryPerRowGroup(file);
                assertTrue(dictionaries.get("l").size() > 1, "row groups: " + dictionaries.get("l").size());
                assertTrue(dictionaries.get("l").stream().allMatch(d -> d), "l keeps its dictionary: " + dictionaries);
                assertTrue(dictionaries.get("s").get(0) && !dictionaries.get("s").get(dictionaries.get("s").size() - 1),
                        "s gives its dictionary up: " + dictionaries.get("s"));
            }
        }
    }

    @Test
    void seedSensorPresetRowsReadBackThroughDuckDb() throws Exception {
        Preset preset = Preset.sensorEventsLocal();
        MappingConverter converter = new MappingConverter(ColumnMapping.parse(preset.config().get("columns"),
                Set.of(preset.config().get("columns.not.null").split(","))),
                Clock.fixed(Instant.parse("2026-06-22T10:00:00Z"), ZoneOffset.UTC));
        List<Object[]> rows = new ArrayList<>();
        for (long seq = 0; seq < 20_000; seq++) {
            rows.add(converter.convert(SinkRecords.of("sensor-events", 0, seq, SensorEvents.event(seq).json())));
        }
        WriterSettings settings = WriterSettings.defaults().withRowGroupSizeBytes(256 * 1024).withPageSizeBytes(8192);
        Path file = write(converter.schema(), rows, settings);
        assertDuckDbReads(file, converter.schema(), rows);
    }

    /** Writes the rows through the partitioned writer (no partition columns) into one file. */
    private Path write(RowSchema schema, List<Object[]> rows, WriterSettings settings) throws Exception {
        Path table = dir.resolve("t" + (++written));
        PartitionedWriter writer = new PartitionedWriter(settings, schema, List.of(),
                ParquetTestFiles.hadoopPath(table), new Configuration(), ParquetRoundTripTest.CLOCK);
        for (Object[] row : rows) {
            writer.write(row);
        }
        List<DataFile> files = writer.finish();
        assertEquals(1, files.size(), files.toString());
        return table.resolve(files.get(0).path());
    }

    /**
     * Every value DuckDB reads equals the one written, in file order: doubles and floats by their bits
     * (NaN as NaN), dates as days and timestamps as microseconds since the epoch (UTC), decimals by
     * {@link BigDecimal#equals} (value and scale); and per column DuckDB's count of values and the
     * chunk statistics' null counts from the footer it reads.
     */
    private void assertDuckDbReads(Path file, RowSchema schema, List<Object[]> rows) throws SQLException {
        String select = schema.columns().stream().map(IndependentReaderTest::expression).collect(Collectors.joining(", "));
        String path = file.toAbsolutePath().toString().replace("'", "''");
        int r = 0;
        try (Statement st = duck.createStatement();
             ResultSet rs = st.executeQuery("SELECT " + select + " FROM read_parquet('" + path
                     + "', file_row_number = true) ORDER BY file_row_number")) {
            while (rs.next()) {
                assertTrue(r < rows.size(), "more rows than written");
                Object[] expected = rows.get(r);
                for (int c = 0; c < schema.size(); c++) {
                    assertValue(schema.column(c), expected[c], rs, c + 1, file.getFileName() + " row " + r);
                }
                r++;
            }
        }
        assertEquals(rows.size(), r, "rows");

        Map<String, long[]> counts = new HashMap<>();
        try (Statement st = duck.createStatement();
             ResultSet rs = st.executeQuery("SELECT path_in_schema, sum(num_values), sum(stats_null_count), "
                     + "count(DISTINCT row_group_id) FROM parquet_metadata('" + path + "') GROUP BY path_in_schema")) {
            while (rs.next()) {
                counts.put(rs.getString(1), new long[] {rs.getLong(2), rs.getLong(3), rs.getLong(4)});
            }
        }
        for (int c = 0; c < schema.size(); c++) {
            int column = c;
            long nulls = rows.stream().filter(row -> row[column] == null).count();
            long[] got = counts.get(schema.column(c).name());
            assertEquals(rows.size(), got[0], schema.column(c).name() + " values");
            assertEquals(nulls, got[1], schema.column(c).name() + " nulls");
        }
    }

    private static String expression(Column column) {
        String q = "\"" + column.name().replace("\"", "\"\"") + "\"";
        return switch (column.type()) {
            case DATE -> "(" + q + " - DATE '1970-01-01')";
            case TIMESTAMP -> "epoch_us(" + q + ")";
            default -> q;
        };
    }

    private static void assertValue(Column column, Object expected, ResultSet rs, int i, String where)
            throws SQLException {
        String what = column.name() + " (" + column.deltaTypeName() + ") of " + where;
        Object raw = rs.getObject(i);
        if (expected == null) {
            assertEquals(null, raw, what);
            return;
        }
        assertTrue(raw != null, what + ": null, expected " + expected);
        switch (column.type()) {
            case STRING -> assertEquals(expected, rs.getString(i), what);
            case INT -> assertEquals(expected, rs.getInt(i), what);
            case LONG, TIMESTAMP -> assertEquals(expected, rs.getLong(i), what);
            case SHORT -> assertEquals(expected, rs.getShort(i), what);
            case BYTE -> assertEquals(expected, rs.getByte(i), what);
            case DATE -> assertEquals(((Integer) expected).longValue(), rs.getLong(i), what);
            case BOOLEAN -> assertEquals(expected, rs.getBoolean(i), what);
            case BINARY -> assertArrayEquals((byte[]) expected, rs.getBytes(i), what);
            case DECIMAL -> assertEquals(expected, rs.getBigDecimal(i), what);
            case DOUBLE -> {
                double e = (Double) expected;
                double got = rs.getDouble(i);
                if (Double.isNaN(e)) {
                    assertTrue(Double.isNaN(got), what + ": " + got);
                } else {
                    assertEquals(Double.doubleToRawLongBits(e), Double.doubleToRawLongBits(got), what + ": " + got + " for " + e);
                }
            }
            case FLOAT -> {
                float e = (Float) expected;
                float got = rs.getFloat(i);
                if (Float.isNaN(e)) {
                    assertTrue(Float.isNaN(got), what + ": " + got);
                } else {
                    assertEquals(Float.floatToRawIntBits(e), Float.floatToRawIntBits(got), what + ": " + got + " for " + e);
                }
            }
        }
    }

    /** Per column, per row group in order: whether the chunk has a dictionary page. */
    private Map<String, List<Boolean>> dictionaryPerRowGroup(Path file) throws SQLException {
        Map<String, List<Boolean>> out = new HashMap<>();
        try (Statement st = duck.createStatement();
             ResultSet rs = st.executeQuery("SELECT path_in_schema, dictionary_page_offset IS NOT NULL FROM parquet_metadata('"
                     + file.toAbsolutePath().toString().replace("'", "''") + "') ORDER BY row_group_id")) {
            while (rs.next()) {
                out.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getBoolean(2));
            }
        }
        return out;
    }

    /**
     * {@link DirectColumnWriteTest#rows}, with extremes every few rows, column l down to a few values
     * (its dictionary is kept; s gives its own up in the second half), and, for the NOT NULL schema,
     * each null replaced by a value of {@link ParquetRoundTripTest#full}.
     */
    private static List<Object[]> rows(int count, long seed, boolean nullable) {
        List<Object[]> rows = DirectColumnWriteTest.rows(count, seed);
        Random random = new Random(seed * 31);
        String hundredKib = "ü".repeat(50 * 1024); // 2 bytes each in UTF-8
        long[] longs = {Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L, 42L};
        for (int r = 0; r < rows.size(); r++) {
            Object[] row = rows.get(r);
            if (row[5] != null) {
                row[5] = longs[random.nextInt(longs.length)];
            }
            if (r % 7 == 3) {
                int k = random.nextInt(4);
                // the 100 KiB and unique strings only in the second half, after s's dictionary pages
                boolean secondHalf = r >= count / 2;
                row[1] = k == 0 && secondHalf ? hundredKib : k == 1 ? "" : "日本語 \uD83D\uDE00 " + (secondHalf ? r : r % 3);
                row[2] = random.nextBoolean() ? Integer.MIN_VALUE : Integer.MAX_VALUE;
                row[3] = random.nextBoolean() ? Short.MIN_VALUE : Short.MAX_VALUE;
                row[4] = random.nextBoolean() ? Byte.MIN_VALUE : Byte.MAX_VALUE;
                double[] doubles = {Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
                    Double.MIN_VALUE, -Double.MIN_VALUE, Double.MIN_NORMAL / 3, Double.MAX_VALUE, -Double.MAX_VALUE};
                float[] floats = {Float.NaN, -0.0f, 0.0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
                    Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL / 3, Float.MAX_VALUE, -Float.MAX_VALUE};
                row[6] = doubles[random.nextInt(doubles.length)];
                row[7] = floats[random.nextInt(floats.length)];
                row[10] = random.nextBoolean() ? DATE_MIN : DATE_MAX;
                row[11] = random.nextBoolean() ? TS_MIN : TS_MAX;
                int sign = random.nextBoolean() ? 1 : -1;
                row[12] = new BigDecimal(BigInteger.valueOf(sign * 999_999_999L), 2);
                row[13] = new BigDecimal(BigInteger.valueOf(sign * 999_999_999_999_999_999L), 4);
                row[14] = new BigDecimal(new BigInteger("9".repeat(38)).multiply(BigInteger.valueOf(sign)), 10);
                row[15] = new BigDecimal(new BigInteger("9".repeat(20)).multiply(BigInteger.valueOf(sign)), 0);
            } else if (r % 7 == 5 && nullable) {
                for (int c = 1; c < row.length - 1; c++) {
                    row[c] = null;
                }
            }
            if (!nullable) {
                Object[] full = ParquetRoundTripTest.full(r, r % 2 == 0);
                for (int c = 0; c < row.length; c++) {
                    if (row[c] == null) {
                        row[c] = full[c];
                    }
                }
            }
        }
        return rows;
    }
}
