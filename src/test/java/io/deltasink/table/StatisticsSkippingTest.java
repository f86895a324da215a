package io.deltasink.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.delta.kernel.expressions.AlwaysTrue;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.expressions.Predicate;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.write.PartitionedWriter;
import io.deltasink.write.WriterSettings;

/**
 * Column statistics must never make a reader skip a file that holds a match. For each hostile
 * value of a type, files holding it (alone, and among ordinary values) are written by the
 * connector's writer and committed through {@link DeltaTable}; then every comparison with every
 * such value is run as a Kernel scan with the filter (data skipping on the statistics) and compared
 * with the same predicate evaluated on every row of every file. The log's statistics must also be
 * valid per the protocol: JSON numbers for floating point bounds, timestamps and dates in years
 * 0001-9999.
 */
class StatisticsSkippingTest {
    static final List<String> COMPARISONS = List.of("=", "<", "<=", ">", ">=");
    static final Pattern TIMESTAMP_STAT = Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z");
    static final Pattern DATE_STAT = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");

    @TempDir
    Path dir;

    @Test
    void doublesNaNInfinitiesAndSignedZeros() throws IOException {
        List<Object> hostile = List.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, 0.0,
                Double.MIN_VALUE, -Double.MAX_VALUE, Double.MAX_VALUE);
        String table = tableOf(Column.of("x", ColumnType.DOUBLE, true), hostile, List.of(1.5, -1.5),
                List.of(List.of(Double.NaN, Double.NaN), List.of(-0.0, 0.0), List.of(2.0, 3.0)));
        checkNumericBounds(table, "x");
        checkSkipping(table, "x", concat(hostile, List.of(1.5, 2.5)), v -> Literal.ofDouble((Double) v));
    }

    @Test
    void floatsNaNInfinitiesAndSignedZeros() throws IOException {
        List<Object> hostile = List.of(Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0.0f, 0.0f,
                Float.MIN_VALUE, -Float.MAX_VALUE, 0.1f);
        String table = tableOf(Column.of("f", ColumnType.FLOAT, true), hostile, List.of(1.5f, -1.5f),
                List.of(List.of(Float.NaN), List.of(-0.0f, 0.0f), List.of(2.0f, 3.0f)));
        checkNumericBounds(table, "f");
        checkSkipping(table, "f", concat(hostile, List.of(1.5f, 2.5f)), v -> Literal.ofFloat((Float) v));
    }

    @Test
    void timestampsAroundTheEpochAndAtTheEdgesOfTheRange() throws IOException {
        long first = micros("0001-01-01T00:00:00Z");
        long last = micros("9999-12-31T23:59:59.999999Z");
        List<Object> hostile = List.of(-1L, -999L, -1_000L, -1_001L, -1_999_999L, 1L, 999L, 1_001L, first, first + 1,
                last, last - 999, micros("2026-06-22T08:16:00.123456Z"));
        String table = tableOf(Column.of("ts", ColumnType.TIMESTAMP, true), hostile,
                List.of(micros("2000-01-01T00:00:00.000500Z")), List.of(List.of(5_000L, 6_000L)));
        checkTextBounds(table, "ts", TIMESTAMP_STAT);
        checkSkipping(table, "ts", hostile, v -> Literal.ofTimestamp((Long) v));
    }

    @Test
    void datesAtTheEdgesOfTheRange() throws IOException {
        List<Object> hostile = List.of(-1, 0, 1, days("0001-01-01"), days("9999-12-31"), days("1582-10-04"));
        String table = tableOf(Column.of("d", ColumnType.DATE, true), hostile, List.of(days("2026-06-22")),
                List.of(List.of(100, 200)));
        checkTextBounds(table, "d", DATE_STAT);
        checkSkipping(table, "d", hostile, v -> Literal.ofDate((Integer) v));
    }

    @Test
    void decimalsAtTheColumnScale() throws IOException {
        BigDecimal most = new BigDecimal("99999999999999999999999999999999.999999");
        List<Object> hostile = List.of(most, most.negate(), new BigDecimal("-0.000001"), new BigDecimal("0.000001"),
                new BigDecimal("0.000000"), new BigDecimal("-123.456789"));
        String table = tableOf(new Column("dec", ColumnType.DECIMAL, 38, 6, true), hostile,
                List.of(new BigDecimal("1.500000")), List.of(List.of(new BigDecimal("7.000000"))));
        checkSkipping(table, "dec", hostile, v -> Literal.ofDecimal((BigDecimal) v, 38, 6));
    }

    @Test
    void longStringsAndCharactersOutsideTheBasicPlane() throws IOException {
        String top = new String(Character.toChars(Character.MAX_CODE_POINT));
        String emoji = "\uD83D\uDE00";
        List<Object> hostile = List.of("", "a", "\uFFFD", "\uE000", emoji, top, "a".repeat(40),
                "a".repeat(31) + "b" + emoji.repeat(5), emoji.repeat(40), "a".repeat(32) + top + "z",
                "a".repeat(32) + "\uFFFD" + "z", "\uFFFD".repeat(33) + emoji);
        String table = tableOf(Column.of("s", ColumnType.STRING, true), hostile, List.of("m", "b"),
                List.of(List.of("x", "y")));
        checkSkipping(table, "s", hostile, v -> Literal.ofString((String) v));
        // a long string keeps a bound: its prefix, and for a maximum the prefix and the highest code point
        JsonNode longOnly = DeltaTableReader.stats(DeltaTableReader.actions(table, 1, "add").get(12)); // "a" x 40 alone
        assertEquals("a".repeat(32), longOnly.path("minValues").path("s").asText());
        assertEquals("a".repeat(32) + top, longOnly.path("maxValues").path("s").asText());
    }

    // ---- helpers ----------------------------------------------------------------------------------

    /**
     * A table (id, column) with one file per group: each hostile value alone, each hostile value
     * among {@code ordinary} values, and the {@code extra} groups. Ids number the rows.
     */
    private String tableOf(Column column, List<Object> hostile, List<Object> ordinary, List<List<Object>> extra)
            throws IOException {
        RowSchema schema = new RowSchema(List.of(Column.of("id", ColumnType.LONG, false), column));
        List<List<Object>> groups = new ArrayList<>();
        for (Object h : hostile) {
            groups.add(List.of(h));
            groups.add(concat(List.of(h), ordinary));
        }
        groups.addAll(extra);
        groups.add(Arrays.asList(null, ordinary.get(0)));

        String path = Fixtures.tablePath(dir);
        DeltaTable table = new DeltaTable(Fixtures.engine(), path);
        TableSnapshot base = table.createOrCheck(schema, List.of(), Map.of(), Fixtures.ENGINE_INFO);
        PartitionedWriter writer = new PartitionedWriter(WriterSettings.defaults(), schema, List.of(),
                new org.apache.hadoop.fs.Path(path), new Configuration(), Clock.systemUTC());
        List<DataFile> files = new ArrayList<>();
        long id = 0;
        for (List<Object> group : groups) {
            for (Object value : group) {
                writer.write(new Object[] {id++, value});
            }
            files.addAll(writer.finish());
        }
        assertEquals(groups.size(), files.size());
        table.commitAppend(base, files, Map.of(), Fixtures.ENGINE_INFO);
        return path;
    }

    /**
     * Every comparison of {@code column} with every value: the filtered scan returns exactly the rows
     * that match when no file is skipped. Also shows that the statistics are used at all.
     */
    private static void checkSkipping(String table, String column, List<Object> values, Function<Object, Literal> literal) {
        DeltaTableReader.Loaded loaded = DeltaTableReader.load(table);
        List<String> wrong = new ArrayList<>();
        for (Object value : values) {
            for (String op : COMPARISONS) {
                Predicate p = new Predicate(op, new io.delta.kernel.expressions.Column(column), literal.apply(value));
                TreeSet<Long> expected = ids(loaded.matching(p));
                TreeSet<Long> returned = ids(loaded.query(p));
                if (!expected.equals(returned)) {
                    expected.removeAll(returned);
                    wrong.add(column + " " + op + " " + describe(value) + ": rows " + expected + " skipped");
                }
            }
        }
        if (!wrong.isEmpty()) {
            fail("data skipping dropped files holding matches:\n  " + String.join("\n  ", wrong));
        }
        // the statistics are used at all: some file is skipped for "= first value"
        int all = loaded.filesKept(AlwaysTrue.ALWAYS_TRUE).size();
        Predicate probe = new Predicate("=", new io.delta.kernel.expressions.Column(column), literal.apply(values.get(0)));
        assertTrue(loaded.filesKept(probe).size() < all, "no file was skipped for " + probe);
    }

    /** Floating point bounds in the log are JSON numbers (JSON has no NaN or infinity). */
    private static void checkNumericBounds(String table, String column) {
        for (JsonNode bound : bounds(table, column)) {
            assertTrue(bound.isNumber(), column + " bound " + bound + " is not a JSON number");
        }
    }

    /** Text bounds (timestamps, dates) in the log have the protocol's form, years 0001-9999. */
    private static void checkTextBounds(String table, String column, Pattern form) {
        for (JsonNode bound : bounds(table, column)) {
            assertTrue(bound.isTextual() && form.matcher(bound.asText()).matches() && !bound.asText().startsWith("0000"),
                    column + " bound " + bound + " is not a valid Delta value");
        }
    }

    private static List<JsonNode> bounds(String table, String column) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode add : DeltaTableReader.actions(table, 1, "add")) {
            JsonNode stats = DeltaTableReader.stats(add);
            for (String side : List.of("minValues", "maxValues")) {
                JsonNode bound = stats.path(side).get(column);
                if (bound != null && !bound.isNull()) {
                    out.add(bound);
                }
            }
        }
        return out;
    }

    private static TreeSet<Long> ids(List<Map<String, Object>> rows) {
        TreeSet<Long> ids = new TreeSet<>();
        rows.forEach(r -> ids.add((Long) r.get("id")));
        return ids;
    }

    private static String describe(Object value) {
        if (value instanceof String s) {
            StringBuilder sb = new StringBuilder("'");
            s.codePoints().forEach(cp -> sb.append(cp < 0x80 ? Character.toString(cp) : String.format("U+%04X", cp)));
            return sb.append('\'').toString();
        }
        return String.valueOf(value);
    }

    private static List<Object> concat(List<?> a, List<?> b) {
        List<Object> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    private static long micros(String iso) {
        Instant i = Instant.parse(iso);
        return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1000L);
    }

    private static int days(String date) {
        return (int) LocalDate.parse(date).toEpochDay();
    }
}
