package io.deltasink.proc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.deltasink.testing.S3ProxyServer;

/**
 * Several JVMs commit to ONE Delta table on s3a:// (S3Proxy, a real S3 HTTP server honouring
 * If-None-Match) at the same time, through {@link io.deltasink.table.DeltaTable} with the
 * connector's storage settings. With Kernel's default S3 log store (a lock inside one JVM) such
 * writers overwrite each other's commit files; with the conditional-put log store every commit a
 * writer was told succeeded is in the log, exactly once, and no commit file was replaced.
 */
class ConcurrentWritersIT {
    static final int WRITERS = 4;
    static final int COMMITS = 15;
    static final String BUCKET = "shared";
    static final String TABLE = "s3a://" + BUCKET + "/delta/concurrent";
    static final Pattern COMMIT_FILE = Pattern.compile("(\\d{20})\\.json");
    static final ObjectMapper JSON = new ObjectMapper();
    /** The S3A settings of the test server that the writers get (the connector adds the rest). */
    static final List<String> SERVER_KEYS = List.of("fs.s3a.endpoint", "fs.s3a.endpoint.region",
            "fs.s3a.access.key", "fs.s3a.secret.key", "fs.s3a.path.style.access", "fs.s3a.connection.ssl.enabled",
            "fs.s3a.attempts.maximum", "fs.s3a.retry.limit");

    @TempDir
    static Path dir;
    static S3ProxyServer server;

    @BeforeAll
    static void start() {
        server = new S3ProxyServer(dir.resolve("s3"), BUCKET).start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    record Reported(String appId, long version, long n) {
    }

    @Test
    void writersInSeparateJvmsNeverOverwriteEachOthersCommits() throws Exception {
        Path work = Files.createDirectories(dir.resolve("writers"));
        Path go = work.resolve("go");
        List<Process> processes = new ArrayList<>();
        List<String> appIds = new ArrayList<>();
        Path argFile = work.resolve("jvm.args");
        Files.writeString(argFile, "-cp \"" + ChildClasspath.current().replace("\\", "\\\\").replace("\"", "\\\"") + "\"\n");
        try {
            for (int w = 0; w < WRITERS; w++) {
                String appId = "writer-" + w;
                appIds.add(appId);
                List<String> cmd = new ArrayList<>(List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                        "@" + argFile,
                        ConcurrentCommitter.class.getName(),
                        TABLE, appId, Integer.toString(COMMITS),
                        work.resolve(appId + ".result").toString(), go.toString()));
                for (String key : SERVER_KEYS) {
                    cmd.add(key + "=" + server.hadoopConf().get(key));
                }
                String logStore = System.getProperty("concurrent.logStore");
                if (logStore != null) {
                    // a manual control run, e.g. -Dconcurrent.logStore=io.delta.storage.S3SingleDriverLogStore
                    // (Kernel's default for s3a, a lock within one JVM) is expected to fail the checks
                    cmd.add("io.delta.kernel.logStore.s3a.impl=" + logStore);
                }
                processes.add(new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(work.resolve(appId + ".log").toFile())
                        .start());
            }
            // all JVMs are up and configured before any commits: maximal contention
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            for (String appId : appIds) {
                while (!Files.exists(work.resolve(appId + ".ready"))) {
                    for (int w = 0; w < WRITERS; w++) {
                        if (!processes.get(w).isAlive()) {
                            fail(appIds.get(w) + " exited early:\n" + Files.readString(work.resolve(appIds.get(w) + ".log")));
                        }
                    }
                    assertTrue(System.nanoTime() < deadline, "writers not ready in 90 s");
                    Thread.sleep(20);
                }
            }
            Files.writeString(go, "go");
            for (int w = 0; w < WRITERS; w++) {
                Process p = processes.get(w);
                String appId = appIds.get(w);
                if (!p.waitFor(Math.max(1, TimeUnit.NANOSECONDS.toSeconds(deadline - System.nanoTime()) + 60), TimeUnit.SECONDS)) {
                    fail(appId + " did not finish:\n" + tail(work.resolve(appId + ".log")));
                }
                assertEquals(0, p.exitValue(), appId + " failed:\n" + tail(work.resolve(appId + ".log")));
            }
        } finally {
            for (Process p : processes) {
                p.destroyForcibly();
            }
        }

        // what the writers were told
        List<Reported> committed = new ArrayList<>();
        Set<String> landed = new HashSet<>();
        int conflicts = 0;
        for (String appId : appIds) {
            List<String> lines = Files.readAllLines(work.resolve(appId + ".result"));
            assertEquals("DONE", lines.get(lines.size() - 1), appId + " did not finish: " + lines);
            for (String line : lines) {
                String[] f = line.split(" ");
                switch (f[0]) {
                    case "COMMIT" -> committed.add(new Reported(f[1], Long.parseLong(f[2]), Long.parseLong(f[3])));
                    case "LANDED" -> landed.add(f[1] + "@" + f[2]);
                    case "CONFLICTS" -> conflicts += Integer.parseInt(f[1]);
                    default -> { }
                }
            }
        }

        // what is in the log: version -> the txn actions (appId@n) of its commit file
        Map<Long, List<String>> log = readLog();
        long last = log.keySet().stream().mapToLong(Long::longValue).max().orElse(-1);
        assertEquals(log.size(), last + 1, "versions are contiguous 0.." + last + ": " + log.keySet());
        assertTrue(log.get(0L).isEmpty(), "version 0 is the create commit: " + log.get(0L));
        for (long v = 1; v <= last; v++) {
            assertEquals(1, log.get(v).size(), "version " + v + " holds exactly one writer's txn: " + log.get(v));
        }

        Set<Long> reportedVersions = new HashSet<>();
        for (Reported r : committed) {
            assertTrue(reportedVersions.add(r.version()), "version " + r.version() + " reported twice");
            assertNotNull(log.get(r.version()), "reported version " + r.version() + " is in the log");
            assertEquals(List.of(r.appId() + "@" + r.n()), log.get(r.version()),
                    "version " + r.version() + " holds the txn of the writer that was told it committed it");
        }
        assertEquals(committed.size() + landed.size(), log.size() - 1,
                "no commit file was overwritten: every commit file but the create one is a reported commit");
        assertEquals(WRITERS * COMMITS, committed.size() + landed.size(), "every writer committed each of its commits");
        Set<String> inLog = new HashSet<>();
        log.values().forEach(inLog::addAll);
        for (String appId : appIds) {
            for (long n = 1; n <= COMMITS; n++) {
                assertTrue(inLog.contains(appId + "@" + n), appId + " commit " + n + " is in the log");
            }
        }
        System.out.printf("ConcurrentWritersIT: %d writers, %d commits, %d conflicts retried, %d landed after a conflict%n",
                WRITERS, committed.size(), conflicts, landed.size());
    }

    /** Every commit file of the table, read straight through S3A: version -> its txn actions. */
    private static Map<Long, List<String>> readLog() throws IOException {
        org.apache.hadoop.fs.Path logDir = new org.apache.hadoop.fs.Path(TABLE + "/_delta_log");
        Map<Long, List<String>> out = new TreeMap<>();
        try (FileSystem fs = logDir.getFileSystem(server.hadoopConf())) {
            for (FileStatus status : fs.listStatus(logDir)) {
                Matcher m = COMMIT_FILE.matcher(status.getPath().getName());
                if (!m.matches()) {
                    continue;
                }
                List<String> txns = new ArrayList<>();
                try (InputStream in = fs.open(status.getPath())) {
                    for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                        if (line.isBlank()) {
                            continue;
                        }
                        JsonNode txn = JSON.readTree(line).get("txn");
                        if (txn != null) {
                            txns.add(txn.get("appId").asText() + "@" + txn.get("version").asLong());
                        }
                    }
                }
                out.put(Long.parseLong(m.group(1)), txns);
            }
        }
        return out;
    }

    private static String tail(Path log) throws IOException {
        if (!Files.exists(log)) {
            return "(no log)";
        }
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    }

}
