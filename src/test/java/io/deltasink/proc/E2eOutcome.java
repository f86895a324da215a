package io.deltasink.proc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.proc.E2eFeed.Sent;
import io.deltasink.testing.DeltaTableReader;

/**
 * What the run of {@link EndToEndPackagedIT} left behind (the table, the dead letters, the txn
 * versions) against what was produced, with one check per promise; each check lists every
 * problem it finds.
 */
final class E2eOutcome {
    /** A timestamp statistic as the protocol writes them, with a four-digit year. */
    private static final Pattern STAT_TIMESTAMP =
            Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})");

    private final Path table;
    private final List<Sent> sent;
    private final Map<TopicPartition, Long> ends;
    private final Map<TopicPartition, Optional<Long>> txn;
    private final List<ConsumerRecord<byte[], byte[]>> dlq;
    private final String topic;
    private final Instant testStart;
    private final Map<String, Sent> goodByDeviceId = new HashMap<>();
    private final Map<String, Sent> byCoordinates = new TreeMap<>();
    private List<Map<String, Object>> rows;
    private RuntimeException scanFailure;

    E2eOutcome(Path table, String topic, List<Sent> sent, Map<TopicPartition, Long> ends,
            Map<TopicPartition, Optional<Long>> txn, List<ConsumerRecord<byte[], byte[]>> dlq, Instant testStart) {
        this.table = table;
        this.testStart = testStart;
        this.sent = sent;
        this.ends = ends;
        this.txn = txn;
        this.dlq = dlq;
        this.topic = topic;
        for (Sent s : sent) {
            byCoordinates.put(s.coordinates(), s);
            if (s.input().good()) {
                goodByDeviceId.put(s.input().expected().deviceId(), s);
            }
        }
        try {
            rows = DeltaTableReader.readAll(table.toString());
        } catch (RuntimeException e) {
            scanFailure = e;
        }
    }

    void txnVersionsAreEndOffsets() {
        Map<TopicPartition, Optional<Long>> want = new TreeMap<>(E2eOutcome::compare);
        ends.forEach((tp, end) -> want.put(tp, Optional.of(end)));
        Map<TopicPartition, Optional<Long>> got = new TreeMap<>(E2eOutcome::compare);
        got.putAll(txn);
        assertEquals(want, got, "each partition's txn version in the table vs its end offset");
    }

    /** A Kernel scan reads every row; every file a commit adds exists, in the folder of its partition values. */
    void tableIsWholeForAnIndependentReader() throws IOException {
        List<String> problems = new ArrayList<>();
        if (scanFailure != null) {
            problems.add("a Kernel scan of the table fails: " + causes(scanFailure));
        }
        URI root = table.toUri();
        Map<String, List<JsonNode>> addsByCommit = addsByCommit();
        for (Map.Entry<String, List<JsonNode>> commit : addsByCommit.entrySet()) {
            String name = commit.getKey();
            for (JsonNode add : commit.getValue()) {
                String path = add.path("path").asText();
                URI relative;
                try {
                    relative = new URI(path);
                } catch (URISyntaxException e) {
                    problems.add("commit " + name + " adds a path that is not a URI: " + path);
                    continue;
                }
                Path file = Path.of(root.resolve(relative));
                if (!file.normalize().startsWith(table)) {
                    problems.add("commit " + name + " adds a file outside the table: " + path);
                } else if (!Files.isRegularFile(file)) {
                    problems.add("commit " + name + " adds " + path + ", which is not on disk (" + file + ")");
                }
                String folder = folderProblem(relative.getPath(), add.path("partitionValues"));
                if (folder != null) {
                    problems.add("commit " + name + ": " + folder);
                }
            }
        }
        if (addsByCommit.values().stream().allMatch(List::isEmpty)) {
            problems.add("no commit adds a file (commits: " + addsByCommit.keySet() + ")");
        }
        assertTrue(problems.isEmpty(), "the table is not whole for an independent reader:\n  "
                + String.join("\n  ", problems));
    }

    /**
     * Every timestamp statistic is a timestamp of years 0001-9999 with min &lt;= max, and data
     * skipping on event_time keeps each well-formed record's file: among the files of its
     * partition values one has min &lt;= its event_time (in milliseconds, the statistics'
     * precision) &lt;= max.
     */
    void statisticsAreValidAndCoverEveryRow() {
        List<String> problems = new ArrayList<>();
        List<JsonNode> adds = addsByCommit().values().stream().flatMap(List::stream).toList();
        for (JsonNode add : adds) {
            if (!add.hasNonNull("stats")) {
                continue;
            }
            JsonNode stats = DeltaTableReader.stats(add);
            for (String column : List.of("event_time", "processed_at")) {
                Instant min = statTimestamp(stats.path("minValues").path(column), problems, add, column);
                Instant max = statTimestamp(stats.path("maxValues").path(column), problems, add, column);
                if (min != null && max != null && min.isAfter(max)) {
                    problems.add(add.path("path").asText() + ": " + column + " min " + min + " > max " + max);
                }
            }
        }
        for (Sent s : goodByDeviceId.values()) {
            E2eFeed.Expected e = s.input().expected();
            Instant t = e.eventTime().truncatedTo(ChronoUnit.MILLIS);
            boolean kept = adds.stream()
                    .filter(a -> e.deviceType().equals(a.path("partitionValues").path("device_type").asText(null))
                            && e.eventDate().toString().equals(
                                    a.path("partitionValues").path("event_date").asText(null)))
                    .anyMatch(a -> {
                        if (!a.hasNonNull("stats")) {
                            return true; // no statistics: never skipped
                        }
                        JsonNode stats = DeltaTableReader.stats(a);
                        Instant min = parseInstant(stats.path("minValues").path("event_time"));
                        Instant max = parseInstant(stats.path("maxValues").path("event_time"));
                        return (min == null || !t.isBefore(min)) && (max == null || !t.isAfter(max));
                    });
            if (!kept) {
                problems.add("no file of partition " + e.deviceType() + "/" + e.eventDate() + " has event_time "
                        + "statistics holding " + e.eventTime() + " (" + s.coordinates() + ", " + s.input().label()
                        + "): a reader skipping files by statistics misses the row");
            }
        }
        assertTrue(problems.isEmpty(), "column statistics:\n  " + String.join("\n  ", problems));
    }

    /** The add actions of each commit file of the log, by file name, in version order. */
    private Map<String, List<JsonNode>> addsByCommit() {
        Map<String, List<JsonNode>> out = new TreeMap<>();
        if (Files.isDirectory(table.resolve("_delta_log"))) {
            for (String name : DeltaTableReader.logFileNames(table.toString())) {
                if (name.matches("\\d{20}\\.json")) {
                    out.put(name, DeltaTableReader.actions(table.toString(), Long.parseLong(name.substring(0, 20)), "add"));
                }
            }
        }
        return out;
    }

    /** A statistic's timestamp, or null when absent; a text that is no timestamp of years 0001-9999 is a problem. */
    private static Instant statTimestamp(JsonNode value, List<String> problems, JsonNode add, String column) {
        if (value.isMissingNode() || value.isNull()) {
            return null;
        }
        Instant parsed = value.isTextual() && STAT_TIMESTAMP.matcher(value.asText()).matches()
                ? parseInstant(value) : null;
        if (parsed == null) {
            problems.add(add.path("path").asText() + ": " + column + " statistic " + value
                    + " is not a timestamp of years 0001-9999");
        }
        return parsed;
    }

    private static Instant parseInstant(JsonNode value) {
        try {
            return value.isTextual() ? OffsetDateTime.parse(value.asText()).toInstant() : null;
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /**
     * Rows are exactly the well-formed records, each once, every column as produced, partition
     * values included.
     */
    void rowsAreExactlyTheGoodRecords() {
        assertTrue(rows != null, "no rows to check: the table cannot be scanned");
        Map<String, Integer> seen = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        for (Map<String, Object> row : rows) {
            Object id = row.get("device_id");
            Sent s = id == null ? null : goodByDeviceId.get(id.toString());
            if (s == null) {
                problems.add("a row from no well-formed record" + describeBadOrigin(id) + ": " + row);
                continue;
            }
            seen.merge(s.coordinates(), 1, Integer::sum);
            String mismatch = s.input().expected().mismatch(row);
            if (mismatch != null) {
                problems.add("row of " + s.coordinates() + " (" + s.input().label() + "): " + mismatch);
            }
            Object processed = row.get("processed_at");
            if (!(processed instanceof Instant p) || p.isBefore(testStart)) {
                problems.add("row of " + s.coordinates() + ": processed_at " + processed + ", the test started at "
                        + testStart);
            }
        }
        seen.forEach((at, n) -> {
            if (n != 1) {
                problems.add("well-formed record " + at + " is in the table " + n + " times");
            }
        });
        for (Sent s : goodByDeviceId.values()) {
            if (!seen.containsKey(s.coordinates())) {
                problems.add("well-formed record " + s.coordinates() + " (" + s.input().label() + ") has no row");
            }
        }
        assertTrue(problems.isEmpty(), problems.size() + " problem(s) with the rows (" + rows.size() + " rows, "
                + goodByDeviceId.size() + " well-formed records):\n  " + String.join("\n  ", problems));
    }

    /** The dead letter queue holds each bad record once, named by its original coordinates, with its value. */
    void deadLetterQueueHoldsExactlyTheBadRecords() {
        List<String> problems = new ArrayList<>();
        Map<String, Integer> seen = new TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> r : dlq) {
            String origin = header(r, "__connect.errors.topic") + "/" + header(r, "__connect.errors.partition")
                    + "@" + header(r, "__connect.errors.offset");
            String at = header(r, "__connect.errors.partition") + "@" + header(r, "__connect.errors.offset");
            Sent s = topic.equals(header(r, "__connect.errors.topic")) ? byCoordinates.get(at) : null;
            if (s == null) {
                problems.add("a dead letter from no produced record: " + origin);
                continue;
            }
            seen.merge(at, 1, Integer::sum);
            String message = header(r, "__connect.errors.exception.message");
            if (s.input().good()) {
                problems.add("well-formed record " + at + " (" + s.input().label() + ") is in the dead letter "
                        + "queue: " + message);
            } else if (s.input().skipped()) {
                problems.add("record " + at + " (" + s.input().label() + "), to be skipped, is in the dead letter "
                        + "queue: " + message);
            } else if (!Arrays.equals(s.input().value(), r.value())) {
                problems.add("dead letter of " + at + " does not hold the record's value");
            } else if (!namesTheProblem(message, origin)) {
                problems.add("dead letter of " + at + " (" + s.input().label() + ") does not name the record and "
                        + "column: " + message);
            } else if (s.input().problem() != null && !message.contains(s.input().problem())) {
                problems.add("dead letter of " + at + " (" + s.input().label() + ") does not say \""
                        + s.input().problem() + "\": " + message);
            }
        }
        seen.forEach((at, n) -> {
            if (n != 1) {
                problems.add("record " + at + " is in the dead letter queue " + n + " times");
            }
        });
        for (Sent s : sent) {
            if (s.input().bad() && !seen.containsKey(s.coordinates())) {
                problems.add("bad record " + s.coordinates() + " (" + s.input().label()
                        + ") is not in the dead letter queue");
            }
        }
        assertTrue(problems.isEmpty(), problems.size() + " problem(s) with the dead letter queue (" + dlq.size()
                + " dead letters, " + count(E2eFeed.Fate.DEAD_LETTER) + " bad records):\n  "
                + String.join("\n  ", problems));
    }

    /** A bad record's error message, as the DLQ header carries it, names the record and the column. */
    private static boolean namesTheProblem(String message, String origin) {
        return message != null && message.contains("Cannot convert record " + origin + ", column '");
    }

    /**
     * Every offset below the end offsets is exactly one row or one dead letter, but a tombstone's:
     * skipped by design, it is neither (that its offset is passed all the same is
     * {@link #txnVersionsAreEndOffsets}'s check, that it is counted {@link #skippedAndBadRecordsAreCounted}'s).
     */
    void everyOffsetIsARowOrADeadLetterOnce() {
        Map<String, Integer> count = new TreeMap<>();
        if (rows != null) {
            for (Map<String, Object> row : rows) {
                Sent s = row.get("device_id") == null ? null : goodByDeviceId.get(row.get("device_id").toString());
                count.merge(s == null ? "a row of no record" : s.coordinates(), 1, Integer::sum);
            }
        }
        for (ConsumerRecord<byte[], byte[]> r : dlq) {
            count.merge(header(r, "__connect.errors.partition") + "@" + header(r, "__connect.errors.offset"), 1,
                    Integer::sum);
        }
        List<String> problems = new ArrayList<>();
        long total = 0;
        for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            for (long o = 0; o < e.getValue(); o++) {
                total++;
                String at = e.getKey().partition() + "@" + o;
                int n = count.getOrDefault(at, 0);
                Sent s = byCoordinates.get(at);
                int want = s != null && s.input().skipped() ? 0 : 1;
                if (n != want) {
                    problems.add(at + " (" + (s == null ? "?" : s.input().label()) + "): " + n + " times, not "
                            + want);
                }
                count.remove(at);
            }
        }
        count.forEach((at, n) -> problems.add(at + " is no produced offset: " + n + " times"));
        assertTrue(problems.isEmpty(), "rows + dead letters vs the " + total + " offsets produced ("
                + (rows == null ? "?" : rows.size()) + " rows, " + dlq.size() + " dead letters):\n  "
                + String.join("\n  ", problems));
    }

    /**
     * The task's plugin metrics count each bad record and each tombstone once: a skipped record is
     * counted, not dropped unseen.
     *
     * @param taskMetrics the connector's plugin metrics of task 0 as the worker publishes them over JMX
     */
    void skippedAndBadRecordsAreCounted(Map<String, Object> taskMetrics) {
        Map<String, Double> want = new TreeMap<>();
        want.put("delta-bad-record-total", (double) count(E2eFeed.Fate.DEAD_LETTER));
        want.put("delta-tombstone-total", (double) count(E2eFeed.Fate.SKIPPED));
        Map<String, Double> got = new TreeMap<>();
        for (String name : want.keySet()) {
            got.put(name, taskMetrics.get(name) instanceof Number n ? n.doubleValue() : null);
        }
        assertEquals(want, got, "the task's plugin metrics (all of them: " + taskMetrics + ")");
    }

    private long count(E2eFeed.Fate fate) {
        return sent.stream().filter(s -> s.input().fate() == fate).count();
    }

    /** " (bad record 1@7: label)" when a bad record carried this device id. */
    private String describeBadOrigin(Object deviceId) {
        for (Sent s : sent) {
            if (!s.input().good() && deviceId != null && deviceId.equals(s.input().deviceId())) {
                return " (bad record " + s.coordinates() + ": " + s.input().label() + ")";
            }
        }
        return "";
    }

    private static int compare(TopicPartition a, TopicPartition b) {
        return Integer.compare(a.partition(), b.partition());
    }

    // ---- helpers -----------------------------------------------------------------------------------------

    /**
     * Null when the file's folders, percent-decoded, are {@code device_type=<value>/event_date=<value>}
     * of the add's partition values; otherwise what is wrong.
     */
    static String folderProblem(String relativePath, JsonNode partitionValues) {
        String[] parts = relativePath.split("/");
        String want = "device_type=" + folderValue(partitionValues.path("device_type")) + "/event_date="
                + folderValue(partitionValues.path("event_date"));
        if (parts.length != 3) {
            return "file " + relativePath + " is not in two partition folders " + want;
        }
        String got = unescape(parts[0]) + "/" + unescape(parts[1]);
        return got.equals(want) ? null : "file " + relativePath + " is in folders " + got + ", not " + want;
    }

    /** A partition value as its folder holds it: null as Hive's and Spark's default partition name. */
    private static String folderValue(JsonNode value) {
        return value.isTextual() ? value.asText() : "__HIVE_DEFAULT_PARTITION__";
    }

    /** Percent-decoding of a partition folder name (%XX sequences as UTF-8 bytes; no '+' rule). */
    static String unescape(String folder) {
        byte[] bytes = folder.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '%' && i + 2 < bytes.length && isHex(bytes[i + 1]) && isHex(bytes[i + 2])) {
                out.write(Integer.parseInt(new String(bytes, i + 1, 2, StandardCharsets.US_ASCII), 16));
                i += 2;
            } else {
                out.write(bytes[i]);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static boolean isHex(byte b) {
        return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F');
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    /** The exception and its causes, with where the innermost one was thrown. */
    private static String causes(Throwable t) {
        StringBuilder sb = new StringBuilder();
        Throwable root = t;
        for (Throwable c = t; c != null; c = c.getCause()) {
            sb.append(sb.length() == 0 ? "" : " <- ").append(c);
            root = c;
        }
        StackTraceElement[] trace = root.getStackTrace();
        for (int i = 0; i < Math.min(4, trace.length); i++) {
            sb.append("\n      at ").append(trace[i]);
        }
        return sb.toString();
    }
}
