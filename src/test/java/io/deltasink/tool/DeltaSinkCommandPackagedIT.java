package io.deltasink.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.deltasink.dist.ComponentZip;
import io.deltasink.proc.Preset;
import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.S3ProxyServer;
import io.deltasink.testing.S3Server;

/**
 * {@code bin/delta-sink} from the unzipped component archive, as a user runs it: a child process
 * started through a symlink from another folder, with Kafka's jars from a Kafka installation
 * (KAFKA_HOME, here made of the Connect worker's class path), on a local table and on S3 (the
 * shipped MinIO preset, credentials from the environment, the endpoint set to S3Proxy). Checks the
 * exit status, that stdout is exactly one JSON document, the files before and after optimize and
 * vacuum, the rows (independent reader), and that the credentials never appear in the output.
 */
class DeltaSinkCommandPackagedIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final S3Server s3 = new S3Server("sensor-data");

    @TempDir
    static Path dir;
    private static Path command;
    private static Path kafkaHome;

    record Run(int status, String out, String err) {
        JsonNode json() throws IOException {
            try (var parser = JSON.createParser(out)) {
                JsonNode doc = JSON.readTree(parser);
                assertEquals(null, parser.nextToken(), "stdout holds one JSON document and nothing else: " + out);
                return doc;
            }
        }
    }

    @BeforeAll
    static void unzip() throws Exception {
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        // the system's unzip, as a user installs it: it keeps the executable bit the archive records
        Process unzip = new ProcessBuilder("unzip", "-q", ComponentZip.path().toString(), "-d", plugins.toString())
                .inheritIO().start();
        assertEquals(0, unzip.waitFor());
        Path script = plugins.resolve(ComponentZip.rootName()).resolve("bin").resolve("delta-sink");
        assertTrue(Files.isExecutable(script), "bin/delta-sink is executable after unzip");
        command = Files.createDirectories(dir.resolve("usr-local-bin")).resolve("delta-sink");
        Files.createSymbolicLink(command, script);
        kafkaHome = kafkaHome("kafka", System.getProperty("connect.worker.classpath"));
    }

    /** A Kafka installation's libs/ holding the jars of a Connect worker's class path file. */
    private static Path kafkaHome(String name, String classpathFile) throws IOException {
        Path libs = Files.createDirectories(dir.resolve(name).resolve("libs"));
        for (String jar : Files.readString(Path.of(classpathFile)).trim().split(java.io.File.pathSeparator)) {
            Path source = Path.of(jar);
            Files.createSymbolicLink(libs.resolve(source.getFileName()), source);
        }
        return libs.getParent();
    }

    private static Run run(Map<String, String> env, String... args) throws Exception {
        List<String> line = new ArrayList<>();
        line.add(command.toString());
        line.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(line).directory(dir.toFile());
        pb.environment().remove("CLASSPATH");
        pb.environment().put("KAFKA_HOME", kafkaHome.toString());
        pb.environment().put("DELTA_SINK_OPTS", "-Xmx256m");
        pb.environment().putAll(env);
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("delta-sink " + String.join(" ", args) + " did not end");
        }
        Run run = new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        assertFalse(run.out().contains(S3ProxyServer.SECRET_KEY) || run.err().contains(S3ProxyServer.SECRET_KEY),
                "the secret key is never printed: " + run);
        assertFalse(run.out().contains(S3ProxyServer.ACCESS_KEY) || run.err().contains(S3ProxyServer.ACCESS_KEY),
                "the access key is never printed: " + run);
        return run;
    }

    private static Run ok(Map<String, String> env, String... args) throws Exception {
        Run run = run(env, args);
        assertEquals(0, run.status(), String.join(" ", args) + ": " + run);
        return run;
    }

    @Test
    void localTable() throws Exception {
        Path table = dir.resolve("sensor_events");
        long rows = SmallFilesTable.write(Preset.sensorEventsLocal().with("table.location", table.toString()).config(), 12, 20);
        checkCommands(Map.of(), new String[] {"--table", table.toString()}, table.toString(), new Configuration(),
                table, rows);

        Run missing = run(Map.of(), "inspect", "--table", dir.resolve("nothing-here").toString(), "--json");
        assertEquals(1, missing.status(), missing.toString());
        assertEquals("", missing.out());
        assertTrue(missing.err().startsWith("delta-sink: ") && missing.err().strip().lines().count() == 1, missing.err());

        Run usage = run(Map.of(), "vacuum", "--table", table.toString(), "--dryrun");
        assertEquals(2, usage.status(), usage.toString());
    }

    /** The shipped MinIO preset as it is, the endpoint set on the command line, the keys from the environment. */
    @Test
    void s3TableThroughTheMinioPreset() throws Exception {
        S3ProxyServer server = s3.server();
        String table = "s3a://sensor-data/delta/sensor_events";
        Preset preset = Preset.sensorEventsMinio().with(server.connectorSettings());
        long rows = SmallFilesTable.write(preset.config(), 12, 20);
        Path config = Path.of(ComponentZip.rootName()).resolve("etc").resolve("sensor-events-minio.json");
        Path shipped = dir.resolve("plugins").resolve(config);
        Map<String, String> env = Map.of("MINIO_ROOT_USER", S3ProxyServer.ACCESS_KEY,
                "MINIO_ROOT_PASSWORD", S3ProxyServer.SECRET_KEY);
        Path bucketTable = server.bucketDir().resolve("delta").resolve("sensor_events");
        checkCommands(env, new String[] {"--config", shipped.toString(), "--set", "s3.endpoint=" + server.endpoint()},
                table, server.hadoopConf(), bucketTable, rows);

        Run unset = run(Map.of("MINIO_ROOT_USER", "x"), "inspect", "--config", shipped.toString(), "--json");
        assertEquals(2, unset.status(), unset.toString());
        assertTrue(unset.err().contains("MINIO_ROOT_PASSWORD"), unset.err());

        Run wrongKey = run(Map.of("MINIO_ROOT_USER", S3ProxyServer.ACCESS_KEY, "MINIO_ROOT_PASSWORD", "wrong-" + S3ProxyServer.SECRET_KEY),
                "inspect", "--config", shipped.toString(), "--set", "s3.endpoint=" + server.endpoint(), "--json", "--verbose");
        assertEquals(1, wrongKey.status(), wrongKey.toString());
        assertEquals("", wrongKey.out());
    }

    /** With Kafka 3.9's jars (reload4j instead of log4j2) stdout still holds only the JSON document. */
    @Test
    void oldestKafkaInstallation() throws Exception {
        Path table = dir.resolve("oldest");
        SmallFilesTable.write(Preset.sensorEventsLocal().with("table.location", table.toString()).config(), 2, 10);
        Path oldest = kafkaHome("kafka-oldest", System.getProperty("connect.worker.oldest.classpath"));
        Run run = ok(Map.of("KAFKA_HOME", oldest.toString()), "inspect", "--table", table.toString(), "--json");
        assertEquals(DeltaTableReader.version(table.toString()), run.json().path("version").asLong());
    }

    @Test
    void refusesJavaBefore17() throws Exception {
        Path jdk = Files.createDirectories(dir.resolve("jdk11").resolve("bin"));
        Path java = jdk.resolve("java");
        Files.writeString(java, "#!/bin/sh\necho 'openjdk version \"11.0.22\" 2024-01-16' >&2\n");
        assertTrue(java.toFile().setExecutable(true));
        Run run = run(Map.of("JAVA_HOME", jdk.getParent().toString()), "inspect", "--table", "/t");
        assertEquals(2, run.status(), run.toString());
        assertTrue(run.err().contains("Java 11") && run.err().contains("Java 17 or later"), run.err());
    }

    /**
     * inspect, optimize (a dry run, then the run), vacuum (a dry run, then the run) on one table:
     * the JSON fields against the table itself. {@code files} is where the table's files are on disk.
     */
    private static void checkCommands(Map<String, String> env, String[] target, String table, Configuration conf,
                                      Path files, long rows) throws Exception {
        List<Map<String, Object>> rowsBefore = DeltaTableReader.readAll(table, conf);
        assertEquals(rows, rowsBefore.size());
        long version = DeltaTableReader.version(table, conf);

        JsonNode report = ok(env, with(target, "inspect", "--json")).json();
        assertEquals(version, report.path("version").asLong(), report.toString());

        List<Path> before = DeltaSinkCommandTest.files(files);
        JsonNode plan = ok(env, with(target, "optimize", "--min-age", "0s", "--dry-run", "--json")).json();
        assertEquals(-1, plan.path("version").asLong(), plan.toString());
        assertEquals(before, DeltaSinkCommandTest.files(files), "a dry run writes nothing");

        JsonNode compaction = ok(env, with(target, "optimize", "--min-age", "0s", "--json")).json();
        assertEquals(version + 1, compaction.path("version").asLong(), compaction.toString());
        assertEquals(plan.path("filesRemoved").asInt(), compaction.path("filesRemoved").asInt(), "as planned");
        assertTrue(compaction.path("filesRemoved").asInt() > compaction.path("filesAdded").asInt(), compaction.toString());
        assertEquals(before.size() + compaction.path("filesAdded").asInt(), DeltaSinkCommandTest.files(files).size(),
                "replaced files stay until vacuum");
        assertEquals(DeltaSinkCommandTest.sorted(rowsBefore), DeltaSinkCommandTest.sorted(DeltaTableReader.readAll(table, conf)),
                "rows unchanged");

        Path orphan = DeltaSinkCommandTest.orphan(files);
        List<Path> withOrphan = DeltaSinkCommandTest.files(files);
        JsonNode dry = ok(env, with(target, "vacuum", "--dry-run", "--json")).json();
        assertTrue(dry.path("dryRun").asBoolean(), dry.toString());
        assertEquals(1, dry.path("deletedFiles").asLong(), "the orphan, older than the retention: " + dry);
        assertEquals(withOrphan, DeltaSinkCommandTest.files(files), "a dry run deletes nothing");

        JsonNode vacuum = ok(env, with(target, "vacuum", "--json")).json();
        assertEquals(1, vacuum.path("deletedFiles").asLong(), vacuum.toString());
        assertFalse(Files.exists(orphan));
        assertEquals(withOrphan.size() - 1, DeltaSinkCommandTest.files(files).size());
        assertEquals(DeltaSinkCommandTest.sorted(rowsBefore), DeltaSinkCommandTest.sorted(DeltaTableReader.readAll(table, conf)),
                "rows unchanged after vacuum");

        String text = ok(env, with(target, "inspect")).out();
        assertTrue(text.contains(Long.toString(version + 1)), text);
    }

    private static String[] with(String[] target, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(1, List.of(target));
        return all.toArray(String[]::new);
    }
}
