package io.deltasink.demo;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

import io.deltasink.proc.Preset;
import io.deltasink.proc.TableProgress;
import io.deltasink.testing.Producers;
import io.deltasink.testing.S3ProxyServer;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.TableLocation;

/**
 * The five-minute tour: one JVM runs a single-node Kafka (KRaft) and a Connect worker, the
 * sensor-events connector is created through the worker's REST API from the shipped preset,
 * a few thousand sensor events (and a few broken ones) are produced, and the resulting Delta
 * table in ./demo-data/sensor_events is summarised, with the commands to read it elsewhere.
 *
 * <p>S3 mode ({@code -Ddemo.storage=s3}): an S3 server (S3Proxy, 127.0.0.1, its files in
 * ./demo-data/s3) is started as well, and the connector is created from the MinIO preset
 * pointed at it, so the table is {@code s3a://sensor-data/delta/sensor_events}.
 *
 * <p>Run from the project root: {@code mvn -q -B -Pdemo test-compile exec:java}. Each run starts
 * with an empty Kafka, so a table left by an earlier run is deleted first: its txn versions
 * (Kafka offsets of the old topic) would make the connector skip the new topic's first records.
 */
public final class Demo {
    private static final String TOPIC = "sensor-events";
    private static final int PARTITIONS = 3;
    /** Per day; every fifth event is a door sensor, the others smart plugs. */
    private static final int EVENTS_PER_DAY = 1_500;
    private static final Duration CATCH_UP = Duration.ofSeconds(120);
    /** The bucket of the MinIO preset's table. */
    private static final String BUCKET = "sensor-data";
    private static final String SECRET_KEY = "s3.secret.key";

    private Demo() {
    }

    public static void main(String[] args) {
        System.setProperty("log4j2.configurationFile", "io/deltasink/demo/demo-log4j2.properties");
        try {
            run();
        } catch (Throwable t) {
            // exec:java reports a failed main only once all non-daemon threads ended, which
            // Kafka's never do after a failed start: report here and leave
            System.err.println("[demo] FAILED: " + t);
            t.printStackTrace();
            System.exit(1);
        }
    }

    private static void run() throws Exception {
        String storage = System.getProperty("demo.storage", "local");
        Path demoData = Path.of("demo-data").toAbsolutePath().normalize();
        say("Delta Lake sink demo (" + storage + " storage)");
        if (storage.equals("s3")) {
            Path s3Dir = demoData.resolve("s3");
            deleteEarlierRun(s3Dir);
            say("Starting an S3 server (S3Proxy, files in " + s3Dir + ") ...");
            try (S3ProxyServer server = new S3ProxyServer(s3Dir, BUCKET).start()) {
                // the MinIO preset as shipped, with the endpoint and credentials of this server
                Preset preset = Preset.sensorEventsMinio().with(server.connectorSettings());
                URI location = URI.create(preset.config().get("table.location"));
                if (!BUCKET.equals(location.getHost())) {
                    throw new IllegalStateException("The MinIO preset's table is not in bucket " + BUCKET + ": " + location);
                }
                say("S3 at " + server.endpoint() + " (path-style, plain HTTP), bucket " + BUCKET + ".");
                try (TableLocation table = TableLocation.onS3(server, location.getPath().substring(1))) {
                    runWith(table, preset, Preset.SENSOR_EVENTS_MINIO);
                }
                say("Stopping the S3 server ...");
            }
            say("Done. The S3 server's files stay in " + s3Dir + "; the next run deletes them and starts over.");
        } else if (storage.equals("local")) {
            Path dir = demoData.resolve("sensor_events");
            deleteEarlierRun(dir);
            TableLocation table = TableLocation.local(dir);
            runWith(table, Preset.sensorEventsLocal().with("table.location", table.uri()), Preset.SENSOR_EVENTS_LOCAL);
            say("Done. The table stays in " + dir + "; the next run deletes it and starts over.");
        } else {
            throw new IllegalArgumentException("demo.storage is '" + storage + "'; use local (the default) or s3");
        }
    }

    private static void deleteEarlierRun(Path dir) throws IOException {
        if (Files.exists(dir)) {
            deleteRecursively(dir);
            say("Deleted what an earlier run left in " + dir + ": this run starts with an empty Kafka.");
        }
    }

    private static void runWith(TableLocation table, Preset preset, Path presetFile) throws Exception {
        String dlqTopic = preset.config().get("errors.deadletterqueue.topic.name");
        say("Starting a single-node Kafka (KRaft) and a Connect worker in this JVM ...");
        EmbeddedConnectCluster connect = new EmbeddedConnectCluster.Builder()
                .name("delta-demo")
                .numWorkers(1)
                .numBrokers(1)
                .workerProps(new HashMap<>(Map.of("offset.flush.interval.ms", "2000",
                        "plugin.discovery", "service_load")))
                .build();
        try {
            startQuietly(connect);
            runOn(connect, table, preset, presetFile, dlqTopic);
        } finally {
            say("Stopping the worker and Kafka ...");
            connect.stop();
        }
    }

    private static void runOn(EmbeddedConnectCluster connect, TableLocation table, Preset preset, Path presetFile,
                              String dlqTopic) throws Exception {
        try (Admin admin = connect.kafka().createAdminClient()) {
            connect.kafka().createTopic(TOPIC, PARTITIONS);
            say("Kafka at " + connect.kafka().bootstrapServers() + ", topic " + TOPIC + " with " + PARTITIONS
                    + " partitions.");

            String url = connect.endpointForResource("connectors/" + preset.name() + "/config");
            String body = new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(preset.config());
            Map<String, String> shown = new LinkedHashMap<>(preset.config());
            shown.computeIfPresent(SECRET_KEY, (k, v) -> "********");
            say("PUT " + url + " with the \"config\" of " + presetFile + " ("
                    + (table.onS3() ? "s3.* set for the demo's S3 server" : "table.location overridden") + "):\n"
                    + new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(shown));
            HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url))
                    .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
            say("-> HTTP " + response.statusCode());
            if (response.statusCode() >= 300) {
                throw new IllegalStateException("Connector not created: " + response.body());
            }
            awaitRunning(connect.endpointForResource("connectors/" + preset.name() + "/status"));

            int bad = produce(connect.kafka().bootstrapServers());
            List<TopicPartition> partitions = TableProgress.partitions(TOPIC, PARTITIONS);
            Map<TopicPartition, Long> ends = TableProgress.endOffsets(admin, partitions);
            say("Waiting until the table holds every partition's end offset ...");
            long started = System.nanoTime();
            Map<TopicPartition, Optional<Long>> txn = TableProgress.awaitCaughtUp(table, preset.name(), ends, CATCH_UP,
                    () -> String.valueOf(connect.connectorStatus(preset.name())));
            say(String.format(Locale.ROOT, "Caught up in %.1f s.", (System.nanoTime() - started) / 1e9));
            long dlq = awaitDlq(admin, dlqTopic, bad);

            summarise(table, preset.name(), txn, ends, dlqTopic, dlq);
        }
    }

    /**
     * Starts Kafka and the worker. The embedded broker's storage formatter prints its bootstrap
     * metadata to stdout; that is held back and shown only if the start fails.
     */
    private static void startQuietly(EmbeddedConnectCluster connect) {
        PrintStream out = System.out;
        ByteArrayOutputStream held = new ByteArrayOutputStream();
        System.setOut(new PrintStream(held, true, StandardCharsets.UTF_8));
        try {
            connect.start();
        } catch (RuntimeException | Error e) {
            out.print(held.toString(StandardCharsets.UTF_8));
            throw e;
        } finally {
            System.setOut(out);
        }
    }

    /** Polls GET /connectors/{name}/status until the connector and its task are RUNNING. */
    private static void awaitRunning(String statusUrl) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(statusUrl)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            last = response.body();
            if (response.statusCode() == 200) {
                JsonNode status = new ObjectMapper().readTree(last);
                JsonNode tasks = status.path("tasks");
                String connector = status.path("connector").path("state").asText();
                String task = tasks.isEmpty() ? "(none yet)" : tasks.get(0).path("state").asText();
                if ("FAILED".equals(connector) || "FAILED".equals(task)) {
                    throw new IllegalStateException("Connector failed: " + last);
                }
                if ("RUNNING".equals(connector) && "RUNNING".equals(task)) {
                    say("GET " + statusUrl + " -> connector RUNNING, task 0 RUNNING");
                    return;
                }
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("Connector not RUNNING after 60 s: " + last);
    }

    /** Produces the sample events and a few broken records; returns how many are broken. */
    private static int produce(String bootstrap) {
        Map<String, Object> props = Producers.settings(bootstrap);
        List<String> broken = List.of(
                "this is not JSON",
                "{\"device_type\":\"smart_plug\",\"ingested_at\":\"2026-06-22T10:00:00+00:00\",\"payload\":\"{}\"}",
                "{\"device_id\":\"door-99\",\"device_type\":\"door_window\",\"ingested_at\":\"yesterday\","
                        + "\"payload\":\"{\\\"contact\\\": true}\"}",
                "{\"device_id\":\"plug-98\",\"device_type\":\"smart_plug\",\"ingested_at\":\"2026-06-22T10:00:00+00:00\"}",
                "{\"device_id\":\"plug-97\",\"device_type\":\"smart_plug\",\"ingested_at\":\"9999-12-31T23:00:00-05:00\","
                        + "\"payload\":\"{\\\"power\\\": 1.5}\"}");
        int plugs = 0;
        int doors = 0;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                new StringSerializer())) {
            for (LocalDate day : List.of(SensorEvents.DAY.minusDays(1), SensorEvents.DAY)) {
                for (int seq = 0; seq < EVENTS_PER_DAY; seq++) {
                    SensorEvents.Event e = SensorEvents.event(seq, day);
                    producer.send(new ProducerRecord<>(TOPIC, e.deviceId(), e.json()));
                    if (e.isSmartPlug()) {
                        plugs++;
                    } else {
                        doors++;
                    }
                }
            }
            for (String value : broken) {
                producer.send(new ProducerRecord<>(TOPIC, "broken", value));
            }
            producer.flush();
        }
        say(String.format(Locale.ROOT, "Produced %,d sensor events (%,d smart plugs, %,d door sensors; %s and %s) "
                + "and %d broken records.", plugs + doors, plugs, doors, SensorEvents.DAY.minusDays(1), SensorEvents.DAY,
                broken.size()));
        return broken.size();
    }

    private static long awaitDlq(Admin admin, String dlqTopic, int expected)
            throws InterruptedException, ExecutionException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        long count = 0;
        while (System.nanoTime() < deadline) {
            if (admin.listTopics().names().get().contains(dlqTopic)) {
                count = TableProgress.endOffsets(admin, List.of(new TopicPartition(dlqTopic, 0))).values()
                        .stream().mapToLong(Long::longValue).sum();
                if (count >= expected) {
                    break;
                }
            }
            Thread.sleep(200);
        }
        return count;
    }

    private static void summarise(TableLocation table, String connector, Map<TopicPartition, Optional<Long>> txn,
                                  Map<TopicPartition, Long> ends, String dlqTopic, long dlq) {
        List<Map<String, Object>> rows = table.rows();
        Map<String, Long> perPartition = new TreeMap<>();
        for (Map<String, Object> row : rows) {
            perPartition.merge(String.format("%-12s %s", row.get("device_type"), row.get("event_date")), 1L, Long::sum);
        }
        StringBuilder out = new StringBuilder();
        out.append("\n==================== the table ====================\n");
        out.append("location       ").append(table.uri()).append('\n');
        out.append("version        ").append(table.version()).append('\n');
        out.append(String.format(Locale.ROOT, "rows           %,d%n", rows.size()));
        out.append("rows per table partition (device_type, event_date):\n");
        perPartition.forEach((k, v) -> out.append(String.format(Locale.ROOT, "  %s  %,6d%n", k, v)));
        out.append("Kafka partition -> offset stored in the table (txn appId ").append(connector)
                .append("/<topic>/<partition>) vs. topic end offset:\n");
        ends.forEach((tp, end) -> out.append(String.format(Locale.ROOT, "  %-18s table %6s   topic %6d%n", tp,
                txn.get(tp).map(String::valueOf).orElse("-"), end)));
        out.append("dead letter queue ").append(dlqTopic).append(": ").append(dlq)
                .append(" record(s) (values the mapping could not convert, with the error in their headers)\n");
        String path = table.onS3() ? "./" + Path.of("").toAbsolutePath().relativize(table.files()).toString()
                .replace('\\', '/') : "./demo-data/sensor_events";
        out.append("\n==================== read it yourself ====================\n");
        if (table.onS3()) {
            out.append("The demo's S3 server has stopped; its objects are plain files, so the same table can be read\n"
                    + "from " + path + ". For a real MinIO, see \"Writing to MinIO / S3\" in the README.\n");
        }
        out.append("DuckDB (duckdb CLI with its delta extension):\n");
        out.append("  duckdb -c \"INSTALL delta; LOAD delta; SELECT device_type, count(*) "
                + "FROM delta_scan('" + path + "') GROUP BY 1;\"\n");
        out.append("Spark (pip install pyspark delta-spark), in Python:\n");
        out.append("  from delta import configure_spark_with_delta_pip\n");
        out.append("  from pyspark.sql import SparkSession\n");
        out.append("  spark = configure_spark_with_delta_pip(SparkSession.builder\n");
        out.append("      .config(\"spark.sql.extensions\", \"io.delta.sql.DeltaSparkSessionExtension\")\n");
        out.append("      .config(\"spark.sql.catalog.spark_catalog\", "
                + "\"org.apache.spark.sql.delta.catalog.DeltaCatalog\")).getOrCreate()\n");
        out.append("  spark.read.format(\"delta\").load(\"" + path + "\")"
                + ".groupBy(\"device_type\", \"event_date\").count().show()\n");
        System.out.println(out);
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static void say(String message) {
        System.out.println("[demo] " + message);
    }
}
