package io.deltasink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import io.deltasink.it.ConnectHarness.Coordinates;
import io.deltasink.it.SensorFeed.ExpectedRow;
import io.deltasink.testing.TableLocation;

/**
 * The check every scenario ends with: the table, read by an independent reader, holds exactly the
 * expected rows, each Kafka record (topic, partition, offset) once, every row's columns match the
 * event that was produced, and the table's txn versions equal the topic's end offsets.
 */
final class ExactlyOnce {
    private static final int SHOWN = 10;

    private ExactlyOnce() {
    }

    /** Waits until the connector has committed everything produced, then runs {@link #assertTable}. */
    static void awaitAndAssert(ConnectHarness harness, String connector, String topic, Path table,
                               Map<Coordinates, ExpectedRow> expected) {
        awaitAndAssert(harness, connector, topic, TableLocation.local(table), expected);
    }

    static void awaitAndAssert(ConnectHarness harness, String connector, String topic, TableLocation table,
                               Map<Coordinates, ExpectedRow> expected) {
        harness.awaitTableCaughtUp(connector, topic, table);
        assertTable(harness, connector, topic, table, expected);
    }

    static void assertTable(ConnectHarness harness, String connector, String topic, TableLocation table,
                            Map<Coordinates, ExpectedRow> expected) {
        assertRows(table, connector, expected);
        Map<Integer, Long> end = harness.endOffsets(topic);
        assertEquals(end, TableState.txnVersions(table, connector, topic, ConnectHarness.PARTITIONS),
                "txn versions in the table vs the topic's end offsets");
    }

    /** The table's rows are exactly {@code expected}: no duplicate, none missing, none extra, all columns right. */
    static void assertRows(Path table, String connector, Map<Coordinates, ExpectedRow> expected) {
        assertRows(TableLocation.local(table), connector, expected);
    }

    static void assertRows(TableLocation table, String connector, Map<Coordinates, ExpectedRow> expected) {
        List<Map<String, Object>> rows = table.rows();

        Map<Coordinates, Integer> seen = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        for (Map<String, Object> row : rows) {
            Coordinates at = coordinates(row);
            if (seen.merge(at, 1, Integer::sum) > 1) {
                continue; // reported below as a duplicate
            }
            ExpectedRow want = expected.get(at);
            if (want == null) {
                problems.add("unexpected row for " + at + ": " + row);
                continue;
            }
            String mismatch = mismatch(want, row);
            if (mismatch != null) {
                problems.add("row " + at + " " + mismatch);
            }
        }
        List<String> duplicates = seen.entrySet().stream().filter(e -> e.getValue() > 1)
                .map(e -> e.getKey() + " x" + e.getValue()).toList();
        List<Coordinates> missing = expected.keySet().stream().filter(c -> !seen.containsKey(c)).toList();

        StringBuilder report = new StringBuilder();
        section(report, "duplicated records", duplicates);
        section(report, "missing records", missing);
        section(report, "wrong rows", problems);
        if (report.length() > 0) {
            fail("table " + table.uri() + " of " + connector + " holds " + rows.size() + " rows, expected "
                    + expected.size() + report);
        }
        assertEquals(expected.size(), rows.size(), "row count");
    }

    static Coordinates coordinates(Map<String, Object> row) {
        return new Coordinates(String.valueOf(row.get("kafka_topic")),
                ((Number) row.get("kafka_partition")).intValue(), ((Number) row.get("kafka_offset")).longValue());
    }

    /** Null when the row holds what the event said, else what differs. */
    static String mismatch(ExpectedRow want, Map<String, Object> row) {
        List<String> diffs = new ArrayList<>();
        compare(diffs, "device_id", want.deviceId(), row.get("device_id"));
        compare(diffs, "device_type", want.deviceType(), row.get("device_type"));
        compare(diffs, "event_date", want.eventDate(), asDate(row.get("event_date")));
        Object lq = row.get("linkquality");
        compare(diffs, "linkquality", want.linkquality(), lq == null ? null : ((Number) lq).intValue());
        return diffs.isEmpty() ? null : String.join(", ", diffs);
    }

    private static void compare(List<String> diffs, String column, Object want, Object got) {
        if (!Objects.equals(want, got)) {
            diffs.add(column + " is " + got + ", expected " + want);
        }
    }

    /** The reader's date value as a LocalDate (it may hand out a LocalDate or days since the epoch). */
    static LocalDate asDate(Object value) {
        if (value == null || value instanceof LocalDate) {
            return (LocalDate) value;
        }
        if (value instanceof Number n) {
            return LocalDate.ofEpochDay(n.longValue());
        }
        return LocalDate.parse(value.toString());
    }

    private static void section(StringBuilder out, String title, List<?> items) {
        if (items.isEmpty()) {
            return;
        }
        out.append("\n").append(items.size()).append(' ').append(title).append(": ")
                .append(items.subList(0, Math.min(SHOWN, items.size())));
        if (items.size() > SHOWN) {
            out.append(" ...");
        }
    }
}
