package io.deltasink.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.delta.kernel.expressions.AlwaysTrue;
import io.deltasink.maintenance.CompactionOptions;
import io.deltasink.maintenance.CompactionResult;
import io.deltasink.maintenance.Compactor;
import io.deltasink.proc.Preset;
import io.deltasink.storage.StorageSettings;
import io.deltasink.testing.DeltaTableReader;

/**
 * The command in-process, on real tables in a temporary folder: the output contract (result alone
 * on stdout, one JSON document with --json, one line on stderr and status 1 or 2 on failure),
 * argument errors that must stop a run before it touches the table (a mistyped --dry-run), and
 * what optimize and vacuum do to the table's files and rows.
 */
class DeltaSinkCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;
    private static Path table;
    private static long rows;

    /** Output of one run. */
    record Run(int status, String out, String err) {
        List<String> errLines() {
            return err.isEmpty() ? List.of() : List.of(err.split("\n"));
        }

        JsonNode json() throws IOException {
            return JSON.readTree(out);
        }
    }

    @BeforeAll
    static void smallFiles() {
        table = dir.resolve("sensor_events");
        rows = SmallFilesTable.write(Preset.sensorEventsLocal().with("table.location", table.toString()).config(), 12, 25);
    }

    static Run run(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new DeltaSinkCommand(env, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Clock.systemUTC()).run(args);
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static Run run(String... args) {
        return run(Map.of(), args);
    }

    private static void assertUsageError(Run run, String expected) {
        assertEquals(DeltaSinkCommand.USAGE, run.status(), run.toString());
        assertEquals("", run.out(), "nothing on stdout");
        assertEquals(1, run.errLines().size(), "one line on stderr: " + run.err());
        assertTrue(run.err().startsWith("delta-sink: "), run.err());
        assertTrue(run.err().contains(expected), "'" + expected + "' in " + run.err());
    }

    @Test
    void argumentErrorsAreOneLineWithStatusTwo() {
        assertUsageError(run(), "no command");
        assertUsageError(run("compact", "--table", table.toString()), "unknown command 'compact'");
        assertUsageError(run("inspect"), "needs --table <location> or --config <file>");
        assertUsageError(run("inspect", "--table"), "--table needs a value");
        assertUsageError(run("inspect", "--table", table.toString(), "--retention", "7d"), "unknown option --retention for inspect");
        assertUsageError(run("vacuum", "--table", table.toString(), "--retention", "seven days"), "--retention takes a duration");
        assertUsageError(run("vacuum", "--table", table.toString(), "--dry-run=yes"), "--dry-run takes no value");
        assertUsageError(run("inspect", "--table", table.toString(), "--set", "novalue"), "--set takes key=value");
        assertUsageError(run("inspect", "--config", dir.resolve("missing.json").toString()), "no config file");
    }

    /** A misspelt --dry-run must not become a real vacuum: nothing under the table is deleted. */
    @Test
    void aMistypedDryRunDeletesNothing() throws IOException {
        List<Path> before = files(table);
        Run run = run("vacuum", "--table", table.toString(), "--retention", "0d", "--force", "--dryrun");
        assertUsageError(run, "unknown option --dryrun for vacuum");
        assertEquals(before, files(table));
    }

    @Test
    void helpGoesToStdoutWithStatusZero() {
        Run general = run("--help");
        assertEquals(0, general.status());
        assertTrue(general.out().startsWith("Usage: delta-sink <command>"), general.out());
        assertTrue(general.out().contains("optimize"), general.out());
        assertEquals("", general.err());
        Run vacuum = run("vacuum", "--help");
        assertEquals(0, vacuum.status());
        assertTrue(vacuum.out().contains("--retention") && vacuum.out().contains("--table"), vacuum.out());
    }

    @Test
    void inspectPrintsOneJsonDocumentAndText() throws IOException {
        long version = DeltaTableReader.version(table.toString());
        Run json = run("inspect", "--table", table.toString(), "--json");
        assertEquals(0, json.status(), json.toString());
        JsonNode report = json.json();
        assertEquals(version, report.path("version").asLong(), json.out());
        assertTrue(report.path("location").asText().endsWith("sensor_events"), json.out());
        try (var parser = JSON.createParser(json.out())) {
            JSON.readTree(parser);
            assertEquals(null, parser.nextToken(), "one JSON document, nothing after it: " + json.out());
        }

        Run text = run("inspect", "--table", table.toString());
        assertEquals(0, text.status(), text.toString());
        assertTrue(text.out().contains(Long.toString(version)), text.out());
        assertFalse(text.out().trim().startsWith("{"), "text, not JSON: " + text.out());
    }

    @Test
    void aMissingTableFailsWithStatusOneAndOneLine() {
        Run run = run("inspect", "--table", dir.resolve("no-such-table").toString(), "--json");
        assertEquals(DeltaSinkCommand.FAILED, run.status(), run.toString());
        assertEquals("", run.out());
        assertEquals(1, run.errLines().size(), run.err());
        assertTrue(run.err().startsWith("delta-sink: "), run.err());
    }

    /**
     * optimize on a copy of the table: fewer files afterwards, the same multiset of rows read by the
     * independent reader, and the JSON counts agree with the log; a dry run before it changes nothing.
     */
    @Test
    void optimizeCompactsAndKeepsEveryRow() throws IOException {
        Path copy = copyOf(table, "optimized");
        List<Map<String, Object>> rowsBefore = DeltaTableReader.readAll(copy.toString());
        long versionBefore = DeltaTableReader.version(copy.toString());
        int filesBefore = DeltaTableReader.load(copy.toString()).filesKept(AlwaysTrue.ALWAYS_TRUE).size();

        Run plan = run("optimize", "--table", copy.toString(), "--min-age", "0s", "--dry-run", "--json");
        assertEquals(0, plan.status(), plan.toString());
        assertEquals(-1, plan.json().path("version").asLong(), plan.out());
        assertEquals(versionBefore, DeltaTableReader.version(copy.toString()), "a dry run commits nothing");

        Run run = run("optimize", "--table", copy.toString(), "--min-age", "0s", "--json");
        assertEquals(0, run.status(), run.toString());
        JsonNode result = run.json();
        assertEquals(versionBefore + 1, result.path("version").asLong(), run.out());
        int filesAfter = DeltaTableReader.load(copy.toString()).filesKept(AlwaysTrue.ALWAYS_TRUE).size();
        assertEquals(filesBefore - result.path("filesRemoved").asInt() + result.path("filesAdded").asInt(), filesAfter);
        assertTrue(filesAfter < filesBefore, filesBefore + " -> " + filesAfter);
        assertEquals(rows, result.path("rowsRewritten").asLong(), run.out());
        assertEquals(sorted(rowsBefore), sorted(DeltaTableReader.readAll(copy.toString())), "rows unchanged");
    }

    /**
     * vacuum after optimize, with an orphan file left 8 days ago by a batch never committed: a
     * retention under the table's is refused without --force; a dry run lists the orphan and deletes
     * nothing; the real run deletes exactly the orphan (the files optimize replaced a moment ago
     * are within the retention and stay for time travel); rows unchanged.
     */
    @Test
    void vacuumDryRunThenRealRun() throws IOException {
        Path copy = copyOf(table, "vacuumed");
        assertEquals(0, run("optimize", "--table", copy.toString(), "--min-age", "0s").status());
        Path orphan = orphan(copy);
        List<Map<String, Object>> rowsBefore = sorted(DeltaTableReader.readAll(copy.toString()));
        List<Path> before = files(copy);

        Run refused = run("vacuum", "--table", copy.toString(), "--retention", "1h", "--json");
        assertEquals(DeltaSinkCommand.FAILED, refused.status(), "a retention under the table's needs --force: " + refused);
        assertEquals(1, refused.errLines().size(), refused.err());
        assertEquals(before, files(copy));

        Run dry = run("vacuum", "--table", copy.toString(), "--dry-run", "--json");
        assertEquals(0, dry.status(), dry.toString());
        assertTrue(dry.json().path("dryRun").asBoolean(), dry.out());
        assertEquals(1, dry.json().path("deletedFiles").asLong(), dry.out());
        assertEquals(Files.size(orphan), dry.json().path("deletedBytes").asLong(), dry.out());
        assertEquals(before, files(copy), "a dry run deletes nothing");

        Run real = run("vacuum", "--table", copy.toString(), "--json");
        assertEquals(0, real.status(), real.toString());
        assertFalse(real.json().path("dryRun").asBoolean(), real.out());
        assertEquals(1, real.json().path("deletedFiles").asLong(), real.out());
        List<Path> expected = new ArrayList<>(before);
        expected.remove(orphan);
        assertEquals(expected, files(copy));
        assertEquals(rowsBefore, sorted(DeltaTableReader.readAll(copy.toString())), "rows unchanged");
    }

    /**
     * optimize with a --config whose compaction keys differ from the defaults (target, bound per run,
     * no minimum age, gzip): its plan is the library's plan for those options and not the defaults';
     * each command-line option overrides its key (--min-age 1h finds nothing; --target-file-size and
     * --max-bytes give the defaults' plan back, the small-file size following the target); the real
     * run writes gzip, and --compression zstd overrides that.
     */
    @Test
    void optimizeTakesTheCompactionKeysOfTheConfigAndTheCommandLineOverridesThem() throws Exception {
        Path copy = copyOf(table, "configured");
        long biggest = 0;
        for (Path f : files(copy)) {
            biggest = Math.max(biggest, Files.size(f));
        }
        long target = 4 * biggest + 1;
        long perRun = 2 * target;
        Path config = configFile(copy, "configured", Map.of(
                "compaction.target.file.bytes", Long.toString(target),
                "compaction.max.bytes.per.run", Long.toString(perRun),
                "compaction.min.age.ms", "0",
                "parquet.compression", "gzip"));
        CompactionOptions configured = CompactionOptions.defaults().withTargetFileBytes(target)
                .withSmallFileBytes(target / 4).withMaxBytesPerRun(perRun).withMinAge(Duration.ZERO);
        CompactionOptions defaults = CompactionOptions.defaults().withMinAge(Duration.ZERO)
                .withMaxBytesPerRun(268_435_456L);
        CompactionResult expected;
        CompactionResult unconfigured;
        try (StorageSettings storage = new StorageSettings(copy.toString(), Map.of())) {
            Compactor compactor = new Compactor(storage, Clock.systemUTC());
            expected = compactor.plan(configured);
            unconfigured = compactor.plan(defaults);
        }
        assertTrue(expected.partitions() > 0 && !expected.equals(unconfigured), expected + " / " + unconfigured);

        assertEquals(expected, plan("--config", config.toString()));
        assertEquals(0, plan("--config", config.toString(), "--min-age", "1h").partitions(), "--min-age overrides");
        assertEquals(unconfigured, plan("--config", config.toString(), "--target-file-size", "128m",
                "--max-bytes", "256m"), "--target-file-size and --max-bytes override");

        Run run = run("optimize", "--config", config.toString(), "--json");
        assertEquals(0, run.status(), run.toString());
        assertEquals(expected.filesAdded(), run.json().path("filesAdded").asInt(), run.out());
        assertEquals(Set.of(CompressionCodecName.GZIP), codecs(newFiles(copy, run.json().path("version").asLong())));

        Path other = copyOf(table, "configured-zstd");
        Path otherConfig = configFile(other, "configured-zstd", Map.of("compaction.min.age.ms", "0",
                "parquet.compression", "gzip"));
        Run zstd = run("optimize", "--config", otherConfig.toString(), "--compression", "zstd", "--json");
        assertEquals(0, zstd.status(), zstd.toString());
        assertEquals(Set.of(CompressionCodecName.ZSTD), codecs(newFiles(other, zstd.json().path("version").asLong())));
    }

    /**
     * vacuum with a --config setting vacuum.retention.ms to 1 hour (under the table's 7 days, so
     * forced as in the connector): an orphan of 2 hours is listed and deleted; --retention overrides
     * the key (3h keeps it, and needs --force like any retention under the table's).
     */
    @Test
    void vacuumTakesVacuumRetentionMsOfTheConfigAndTheCommandLineOverridesIt() throws IOException {
        Path copy = copyOf(table, "retention");
        Path orphan = orphan(copy);
        Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(Duration.ofHours(2))));
        Path config = configFile(copy, "retention", Map.of("vacuum.retention.ms", "3600000"));
        List<Path> before = files(copy);

        Run refused = run("vacuum", "--config", config.toString(), "--retention", "3h", "--json");
        assertEquals(DeltaSinkCommand.FAILED, refused.status(), "3h is under the table's 7 days: " + refused);
        Run longer = run("vacuum", "--config", config.toString(), "--retention", "3h", "--force", "--json");
        assertEquals(0, longer.status(), longer.toString());
        assertEquals("3h", longer.json().path("retention").asText(), longer.out());
        assertEquals(0, longer.json().path("deletedFiles").asLong(), longer.out());
        assertEquals(before, files(copy));

        Run dry = run("vacuum", "--config", config.toString(), "--dry-run", "--json");
        assertEquals(0, dry.status(), dry.toString());
        assertEquals("1h", dry.json().path("retention").asText(), dry.out());
        assertEquals(1, dry.json().path("deletedFiles").asLong(), dry.out());
        assertEquals(before, files(copy), "a dry run deletes nothing");

        Run real = run("vacuum", "--config", config.toString(), "--json");
        assertEquals(0, real.status(), real.toString());
        assertEquals(1, real.json().path("deletedFiles").asLong(), real.out());
        List<Path> expected = new ArrayList<>(before);
        expected.remove(orphan);
        assertEquals(expected, files(copy));
    }

    private static CompactionResult plan(String... args) throws IOException {
        List<String> argv = new ArrayList<>(List.of("optimize", "--dry-run", "--json"));
        argv.addAll(List.of(args));
        Run run = run(argv.toArray(String[]::new));
        assertEquals(0, run.status(), run.toString());
        return JSON.readValue(run.out(), CompactionResult.class);
    }

    /** A connector config file (the local preset wrapped as PUT to a worker) for {@code table}, with {@code extra}. */
    private static Path configFile(Path table, String name, Map<String, String> extra) throws IOException {
        Preset preset = Preset.sensorEventsLocal().with("table.location", table.toString()).with(extra);
        Path file = dir.resolve(name + ".json");
        Files.writeString(file, JSON.writeValueAsString(Map.of("name", preset.name(), "config", preset.config())));
        return file;
    }

    /** The files a version added, on disk. */
    private static List<Path> newFiles(Path table, long version) {
        List<Path> out = new ArrayList<>();
        for (JsonNode add : DeltaTableReader.actions(table.toString(), version, "add")) {
            out.add(table.resolve(URLDecoder.decode(add.path("path").asText(), StandardCharsets.UTF_8)));
        }
        assertFalse(out.isEmpty(), "version " + version + " added no file");
        return out;
    }

    /** The codecs of every column chunk of the files, from their footers. */
    private static Set<CompressionCodecName> codecs(List<Path> files) throws IOException {
        Set<CompressionCodecName> out = new TreeSet<>();
        for (Path p : files) {
            try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(
                    new org.apache.hadoop.fs.Path(p.toUri()), new Configuration()))) {
                for (BlockMetaData block : reader.getFooter().getBlocks()) {
                    block.getColumns().forEach(c -> out.add(c.getCodec()));
                }
            }
        }
        return out;
    }

    /** A Parquet file no commit references, as a killed batch leaves it, last written 8 days ago. */
    static Path orphan(Path table) throws IOException {
        Path partition;
        try (Stream<Path> dirs = Files.list(table)) {
            partition = dirs.filter(p -> p.getFileName().toString().startsWith("device_type=")).findFirst().orElseThrow();
        }
        Path source = files(partition).get(0);
        Path orphan = source.resolveSibling("part-orphan-of-a-killed-batch.parquet");
        Files.copy(source, orphan);
        Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(Duration.ofDays(8))));
        return orphan;
    }

    private static Path copyOf(Path source, String name) throws IOException {
        Path target = dir.resolve(name);
        try (Stream<Path> paths = Files.walk(source)) {
            for (Path p : (Iterable<Path>) paths::iterator) {
                Path t = target.resolve(source.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        return target;
    }

    /** Every data file under a table (not the log), sorted. */
    static List<Path> files(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            return paths.filter(Files::isRegularFile)
                    .filter(p -> !root.relativize(p).toString().startsWith("_delta_log"))
                    .filter(p -> p.getFileName().toString().endsWith(".parquet"))
                    .sorted().toList();
        }
    }

    static List<Map<String, Object>> sorted(Collection<Map<String, Object>> rows) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<String, Object> row : rows) {
            out.add(new HashMap<>(row));
        }
        out.sort((a, b) -> a.toString().compareTo(b.toString()));
        return out;
    }
}
