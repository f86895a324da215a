package io.deltasink.proc;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.util.clusters.EmbeddedKafkaCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.dist.ComponentZip;
import io.deltasink.testing.DeltaTableReader;

/**
 * The acceptance run of the seed job as an operator sets it up: the built component zip in the
 * {@code plugin.path} of a real Connect worker JVM started in the C locale ({@code LC_ALL=C}, no
 * {@code LANG}: Java encodes file names, and on Java 17 all text, in ASCII), the connector created
 * through the REST API from the zip's own {@code etc/sensor-events-local.json} with only the table
 * location changed (same topic, same dead letter queue settings), and a topic of 3 partitions fed
 * well-formed sensor events, device types with non-ASCII and path-hostile characters among them,
 * mixed with every kind of bad input ({@link E2eFeed}).
 *
 * <p>Then: the table holds exactly the well-formed records, each once with its content and
 * partition values; the dead letter queue holds exactly the bad records, named by their original
 * coordinates in the context headers; every offset is one or the other; each partition's txn
 * version is its end offset; the table is whole for an independent reader (a Kernel scan of
 * every row, every file the log names on disk under the folder of its partition values); and its
 * timestamp statistics are valid and never let a reader skip the file of a row. All of these are
 * checked and reported together.
 */
class EndToEndPackagedIT {
    private static final int PARTITIONS = 3;
    private static final Duration CATCH_UP = Duration.ofSeconds(120);
    /** A timestamp statistic as the protocol writes them, with a four-digit year. */
    private static final Pattern STAT_TIMESTAMP =
            Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})");

    private static EmbeddedKafkaCluster kafka;

    @BeforeAll
    static void startBroker() {
        kafka = new EmbeddedKafkaCluster(1, new Properties());
        kafka.start();
    }

    @AfterAll
    static void stopBroker() {
        if (kafka != null) {
            kafka.stop();
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void shippedPresetInACLocaleWorkerWritesTheGoodRecordsOnceAndSendsTheBadOnesToTheDeadLetterQueue()
            throws Exception {
        Instant testStart = Instant.now();
        Path work = Files.createTempDirectory(Path.of("target"), "end-to-end-").toAbsolutePath();
        Path pluginPath = work.resolve("plugins");
        Files.createDirectories(pluginPath);
        Path component = ComponentZip.unzipInto(pluginPath);

        Path table = work.resolve("sensor_events");
        Preset shipped = Preset.load(component.resolve("etc").resolve("sensor-events-local.json"));
        Preset preset = shipped.with("table.location", table.toString());
        String connector = preset.name();
        String topic = preset.config().get("topics");
        String dlqTopic = preset.config().get("errors.deadletterqueue.topic.name");
        assertEquals("all", preset.config().get("errors.tolerance"), "the shipped preset's errors.tolerance");
        assertEquals("true", preset.config().get("errors.deadletterqueue.context.headers.enable"),
                "the shipped preset's errors.deadletterqueue.context.headers.enable");
        assertTrue(dlqTopic != null && !dlqTopic.isBlank(), "the shipped preset names a dead letter queue topic");

        kafka.createTopic(topic, PARTITIONS);
        List<Sent> sent = produce(topic, E2eFeed.inputs(PARTITIONS));

        WorkerProcess.Launch launch = new WorkerProcess.Launch(Jdks.require(17), PlainWorker.CURRENT.classPath())
                .inCLocale();
        WorkerProcess worker = new WorkerProcess(kafka.bootstrapServers(), "end-to-end", work.resolve("worker"),
                "384m", List.of("-XshowSettings:properties"), Map.of("plugin.path", pluginPath.toString()), launch);
        try (Admin admin = kafka.createAdminClient()) {
            worker.start();
            String startLog = Files.readString(worker.logFile());
            assertTrue(startLog.contains("sun.jnu.encoding = ANSI_X3.4-1968"),
                    "the worker JVM encodes file names in ASCII (LC_ALL=C); its settings:\n" + worker.logTail(200));

            worker.putConnectorConfig(connector, preset.config());
            worker.awaitTasksRunning(connector, 1, Duration.ofSeconds(90));
            Map<TopicPartition, Long> ends = TableProgress.endOffsets(admin, TableProgress.partitions(topic, PARTITIONS));
            Map<TopicPartition, Optional<Long>> txn = awaitCaughtUpOrFailed(worker, connector, table, ends);
            List<ConsumerRecord<byte[], byte[]>> dlq = readAll(admin, dlqTopic);
            String status = String.valueOf(worker.connectorStatus(connector));

            Outcome outcome = new Outcome(table, topic, sent, ends, txn, dlq, testStart);
            assertAll("end-to-end run of the shipped preset (task status " + status + ")",
                    outcome::txnVersionsAreEndOffsets,
                    outcome::tableIsWholeForAnIndependentReader,
                    outcome::statisticsAreValidAndCoverEveryRow,
                    outcome::rowsAreExactlyTheGoodRecords,
                    outcome::deadLetterQueueHoldsExactlyTheBadRecords,
                    outcome::everyOffsetIsARowOrADeadLetterOnce);
        } finally {
            worker.stop();
        }
    }

    // ---- feeding ---------------------------------------------------------------------------------------

    /** An input and where it landed. */
    record Sent(E2eFeed.Input input, TopicPartition at, long offset) {
        String coordinates() {
            return at.partition() + "@" + offset;
        }
    }

    private static List<Sent> produce(String topic, List<E2eFeed.Input> inputs) throws Exception {
        Map<String, Object> props = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all");
        List<Sent> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (E2eFeed.Input in : inputs) {
                RecordMetadata md = producer.send(new ProducerRecord<>(topic, in.partition(),
                        in.key().getBytes(StandardCharsets.UTF_8), in.value())).get();
                sent.add(new Sent(in, new TopicPartition(topic, md.partition()), md.offset()));
            }
        }
        return sent;
    }

    // ---- waiting and reading back -----------------------------------------------------------------------

    /**
     * Waits until every partition's txn version is its end offset; stops waiting early when the task
     * FAILED, or after {@link #CATCH_UP}, so the checks report what the table holds then.
     */
    private static Map<TopicPartition, Optional<Long>> awaitCaughtUpOrFailed(WorkerProcess worker, String connector,
                                                                            Path table, Map<TopicPartition, Long> ends)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + CATCH_UP.toNanos();
        long seen = Long.MIN_VALUE;
        Map<TopicPartition, Optional<Long>> txn = Map.of();
        while (true) {
            long latest = TableProgress.latestVersion(table);
            if (latest != seen) { // the txn versions change only with a new commit
                seen = latest;
                txn = TableProgress.txnVersions(table, connector, ends.keySet());
            }
            if (TableProgress.caughtUp(txn, ends) || "FAILED".equals(worker.taskState(connector, 0))
                    || System.nanoTime() > deadline) {
                return txn;
            }
            Thread.sleep(250);
        }
    }

    /** Every record of {@code topic} up to its end offsets now; none when the topic does not exist. */
    private static List<ConsumerRecord<byte[], byte[]>> readAll(Admin admin, String topic)
            throws InterruptedException {
        int partitions;
        try {
            partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return List.of();
            }
            throw new IllegalStateException("Cannot describe " + topic, e.getCause());
        }
        Map<TopicPartition, Long> ends = TableProgress.endOffsets(admin, TableProgress.partitions(topic, partitions));
        Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest", ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(ends.keySet());
            consumer.seekToBeginning(ends.keySet());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (ends.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic + " up to " + ends + " within 60 s");
                }
                consumer.poll(Duration.ofMillis(500)).forEach(out::add);
            }
        }
        return out;
    }

    // ---- the checks ----------------------------------------------------------------------------------------

    /** What the run left behind, and one check per promise. */
    private static final class Outcome {
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

        Outcome(Path table, String topic, List<Sent> sent, Map<TopicPartition, Long> ends,
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
            Map<TopicPartition, Optional<Long>> want = new TreeMap<>(Outcome::compare);
            ends.forEach((tp, end) -> want.put(tp, Optional.of(end)));
            Map<TopicPartition, Optional<Long>> got = new TreeMap<>(Outcome::compare);
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
            List<String> logFiles = Files.isDirectory(table.resolve("_delta_log"))
                    ? DeltaTableReader.logFileNames(table.toString()) : List.of();
            int adds = 0;
            for (String name : logFiles) {
                if (!name.matches("\\d{20}\\.json")) {
                    continue;
                }
                for (JsonNode add : DeltaTableReader.actions(table.toString(), Long.parseLong(name.substring(0, 20)),
                        "add")) {
                    adds++;
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
            if (adds == 0) {
                problems.add("no commit adds a file (log: " + logFiles + ")");
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
            List<JsonNode> adds = new ArrayList<>();
            List<String> logFiles = Files.isDirectory(table.resolve("_delta_log"))
                    ? DeltaTableReader.logFileNames(table.toString()) : List.of();
            for (String name : logFiles) {
                if (name.matches("\\d{20}\\.json")) {
                    adds.addAll(DeltaTableReader.actions(table.toString(), Long.parseLong(name.substring(0, 20)), "add"));
                }
            }
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
                if (s.input().good()) {
                    problems.add("well-formed record " + at + " (" + s.input().label() + ") is in the dead letter "
                            + "queue: " + header(r, "__connect.errors.exception.message"));
                } else if (!Arrays.equals(s.input().value(), r.value())) {
                    problems.add("dead letter of " + at + " does not hold the record's value");
                }
            }
            seen.forEach((at, n) -> {
                if (n != 1) {
                    problems.add("record " + at + " is in the dead letter queue " + n + " times");
                }
            });
            for (Sent s : sent) {
                if (!s.input().good() && !seen.containsKey(s.coordinates())) {
                    problems.add("bad record " + s.coordinates() + " (" + s.input().label()
                            + ") is not in the dead letter queue");
                }
            }
            assertTrue(problems.isEmpty(), problems.size() + " problem(s) with the dead letter queue (" + dlq.size()
                    + " dead letters, " + (sent.size() - goodByDeviceId.size()) + " bad records):\n  "
                    + String.join("\n  ", problems));
        }

        /** Every offset below the end offsets is exactly one row or one dead letter. */
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
                    if (n != 1) {
                        Sent s = byCoordinates.get(at);
                        problems.add(at + " (" + (s == null ? "?" : s.input().label()) + "): " + n + " times");
                    }
                    count.remove(at);
                }
            }
            count.forEach((at, n) -> problems.add(at + " is no produced offset: " + n + " times"));
            assertTrue(problems.isEmpty(), "rows + dead letters vs the " + total + " offsets produced ("
                    + (rows == null ? "?" : rows.size()) + " rows, " + dlq.size() + " dead letters):\n  "
                    + String.join("\n  ", problems));
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
