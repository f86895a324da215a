package io.deltasink.proc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A Kafka Connect distributed worker in a JVM of its own. By default it is started with this JVM's
 * java and class path (so the connector under test is found by Connect's class-path plugin scan);
 * a {@link Launch} picks another JDK and a plain worker class path, with the connector coming from
 * {@code plugin.path} as in production.
 *
 * <p>{@link #kill()} is SIGKILL: no shutdown hook, no task stop, no final offset commit; what a
 * power cut or the OOM killer does. A restart after {@link #kill()} or {@link #stop()} reuses the
 * same group.id and internal topics, so the worker finds its connectors again.
 * Output of every start goes to one log file in the work directory.
 */
public final class WorkerProcess implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final String bootstrapServers;
    private final String groupId;
    private final Path workDir;
    private final String maxHeap;
    private final List<String> jvmArgs;
    private final Map<String, String> workerOverrides;
    private final Launch launch;
    private final Path logFile;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private volatile Process process;
    private int port;
    private int starts;

    /**
     * @param maxHeap         the worker's -Xmx, e.g. "256m"
     * @param jvmArgs         further JVM options (e.g. -Xlog:gc:file=...)
     * @param workerOverrides worker properties replacing or adding to the defaults (an empty value removes one)
     */
    public WorkerProcess(String bootstrapServers, String groupId, Path workDir, String maxHeap, List<String> jvmArgs,
                         Map<String, String> workerOverrides) {
        this(bootstrapServers, groupId, workDir, maxHeap, jvmArgs, workerOverrides, Launch.testClassPath());
    }

    /**
     * @param launch the JDK and class path of the worker JVM; put {@code plugin.path} into
     *               {@code workerOverrides} when the class path has no connector
     */
    public WorkerProcess(String bootstrapServers, String groupId, Path workDir, String maxHeap, List<String> jvmArgs,
                         Map<String, String> workerOverrides, Launch launch) {
        this.launch = launch;
        this.bootstrapServers = bootstrapServers;
        this.groupId = groupId;
        this.workDir = workDir;
        this.maxHeap = maxHeap;
        this.jvmArgs = List.copyOf(jvmArgs);
        this.workerOverrides = Map.copyOf(workerOverrides);
        this.logFile = workDir.resolve("worker.log");
        // a test JVM that ends without stop() (timeout, Ctrl-C) must not leave a worker behind
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Process p = process;
            if (p != null && p.isAlive()) {
                p.destroyForcibly();
            }
        }, "worker-process-reaper"));
    }

    public WorkerProcess(String bootstrapServers, String groupId, Path workDir, String maxHeap) {
        this(bootstrapServers, groupId, workDir, maxHeap, List.of(), Map.of());
    }

    // ---- lifecycle ------------------------------------------------------------------------------

    /** Starts the worker JVM and waits until its REST API answers GET /. */
    public void start() throws IOException, InterruptedException {
        if (isAlive()) {
            throw new IllegalStateException("Worker already running, pid " + process.pid());
        }
        Files.createDirectories(workDir);
        port = freePort();
        starts++;
        Path props = writeWorkerProperties();
        Path log4j = writeLogConfig();
        Path reload4j = writeReload4jConfig();
        Path argFile = workDir.resolve("jvm.args");
        ChildJvm.writeClassPathArgFile(argFile, launch.classPath());

        List<String> command = new ArrayList<>();
        command.add(launch.javaHome().resolve("bin").resolve("java").toString());
        command.add("-Xmx" + maxHeap);
        command.addAll(jvmArgs);
        // the worker's logging backend reads its own: log4j2 (Kafka 4) or reload4j (Kafka 3)
        command.add("-Dlog4j2.configurationFile=" + log4j.toUri());
        command.add("-Dlog4j.configuration=" + reload4j.toUri());
        command.add("@" + argFile);
        command.add("org.apache.kafka.connect.cli.ConnectDistributed");
        command.add(props.toString());

        Files.writeString(logFile, "===== start " + starts + " at " + Instant.now() + ", port " + port + " =====\n",
                StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(workDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        if (launch.environment() != null) {
            builder.environment().clear();
            builder.environment().putAll(launch.environment());
        }
        process = builder.start();
        awaitRest();
    }

    /** SIGKILL: the JVM dies at once, mid-batch or mid-commit, with no clean shutdown. */
    public void kill() throws InterruptedException {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("Worker pid " + process.pid() + " survived SIGKILL for 30 s");
        }
    }

    /** SIGTERM: Connect's shutdown hook stops tasks and commits offsets; SIGKILL after 60 s. */
    public void stop() throws InterruptedException {
        if (process == null || !process.isAlive()) {
            return;
        }
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            kill();
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    public Path logFile() {
        return logFile;
    }

    /** The last lines of the worker log, for failure messages. */
    public String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(cannot read " + logFile + ": " + e + ")";
        }
    }

    /** Runs {@code jcmd <pid> <command...>} against the worker JVM and returns its output. */
    public String jcmd(String... command) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(launch.javaHome().resolve("bin").resolve("jcmd").toString());
        cmd.add(Long.toString(process.pid()));
        cmd.addAll(List.of(command));
        Process jcmd = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!jcmd.waitFor(60, TimeUnit.SECONDS) || jcmd.exitValue() != 0) {
            throw new IOException("jcmd " + String.join(" ", command) + " failed: " + out);
        }
        return out;
    }

    // ---- REST ------------------------------------------------------------------------------------

    /**
     * PUT /connectors/{name}/config: creates or updates the connector. Retries while the worker
     * is still joining its group (409/500/503), up to 60 s.
     */
    public String putConnectorConfig(String name, Map<String, String> config) throws IOException, InterruptedException {
        String body = JSON.writeValueAsString(config);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            HttpResponse<String> response = send(HttpRequest.newBuilder(uri("/connectors/" + name + "/config"))
                    .header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString(body)));
            int code = response.statusCode();
            if (code == 200 || code == 201) {
                return response.body();
            }
            boolean transientError = code == 409 || code == 500 || code == 503;
            if (!transientError || System.nanoTime() > deadline) {
                throw new IOException("PUT connector " + name + " failed: HTTP " + code + ": " + response.body());
            }
            Thread.sleep(500);
        }
    }

    /** GET /connector-plugins: the connector classes this worker found, with type and version. */
    public JsonNode connectorPlugins() throws IOException, InterruptedException {
        HttpResponse<String> response = send(HttpRequest.newBuilder(uri("/connector-plugins")).GET());
        if (response.statusCode() != 200) {
            throw new IOException("GET /connector-plugins: HTTP " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    /** GET /: the worker's Kafka version ({@code version}), commit and Kafka cluster id. */
    public JsonNode serverInfo() throws IOException, InterruptedException {
        return getJson("/");
    }

    /** GET /connectors/{name}/offsets (KIP-875): a sink's consumer group offsets. */
    public JsonNode connectorOffsets(String name) throws IOException, InterruptedException {
        return getJson("/connectors/" + name + "/offsets");
    }

    /** PUT /connectors/{name}/stop: the connector and its tasks stop, its config stays. */
    public void stopConnector(String name) throws IOException, InterruptedException {
        HttpResponse<String> response = send(HttpRequest.newBuilder(uri("/connectors/" + name + "/stop"))
                .PUT(HttpRequest.BodyPublishers.noBody()));
        if (response.statusCode() != 202 && response.statusCode() != 204) {
            throw new IOException("PUT stop " + name + ": HTTP " + response.statusCode() + ": " + response.body());
        }
    }

    /**
     * PATCH /connectors/{name}/offsets of a stopped sink connector, retried (up to 60 s) while its
     * tasks are still stopping. Returns the response body.
     *
     * @param offsets Kafka partition of {@code topic} -> the next offset to read
     */
    public JsonNode patchSinkOffsets(String name, String topic, Map<Integer, Long> offsets)
            throws IOException, InterruptedException {
        List<Map<String, Object>> entries = new ArrayList<>();
        offsets.forEach((partition, offset) -> entries.add(Map.of(
                "partition", Map.of("kafka_topic", topic, "kafka_partition", partition),
                "offset", Map.of("kafka_offset", offset))));
        String body = JSON.writeValueAsString(Map.of("offsets", entries));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            HttpResponse<String> response = send(HttpRequest.newBuilder(uri("/connectors/" + name + "/offsets"))
                    .header("Content-Type", "application/json")
                    .method("PATCH", HttpRequest.BodyPublishers.ofString(body)));
            if (response.statusCode() == 200) {
                return JSON.readTree(response.body());
            }
            boolean stopping = response.body().contains("haven't stopped completely");
            if (!stopping || System.nanoTime() > deadline) {
                throw new IOException("PATCH offsets of " + name + ": HTTP " + response.statusCode() + ": "
                        + response.body());
            }
            Thread.sleep(500);
        }
    }

    private JsonNode getJson(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = send(HttpRequest.newBuilder(uri(path)).GET());
        if (response.statusCode() != 200) {
            throw new IOException("GET " + path + ": HTTP " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    /** GET /connectors/{name}/status; null while the connector is unknown to the worker. */
    public JsonNode connectorStatus(String name) throws IOException, InterruptedException {
        HttpResponse<String> response = send(HttpRequest.newBuilder(uri("/connectors/" + name + "/status")).GET());
        if (response.statusCode() == 404) {
            return null;
        }
        if (response.statusCode() != 200) {
            throw new IOException("GET status of " + name + ": HTTP " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    /**
     * The state of one task (RUNNING, FAILED, ...) as reported by THIS worker process, or null when
     * it has none yet. The status topic outlives a killed worker, so a RUNNING written by the
     * previous process does not count.
     */
    public String taskState(String name, int task) throws IOException, InterruptedException {
        JsonNode status = connectorStatus(name);
        if (status == null) {
            return null;
        }
        for (JsonNode t : status.path("tasks")) {
            if (t.path("id").asInt(-1) == task && workerId().equals(t.path("worker_id").asText())) {
                return t.path("state").asText(null);
            }
        }
        return null;
    }

    /** This worker's id in status responses. */
    public String workerId() {
        return "127.0.0.1:" + port;
    }

    /** Waits until tasks 0..tasks-1 are RUNNING on this worker; fails fast when one is FAILED. */
    public void awaitTasksRunning(String name, int tasks, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            int running = 0;
            for (int i = 0; i < tasks; i++) {
                String state = taskState(name, i);
                if ("FAILED".equals(state)) {
                    throw new IllegalStateException("Task " + name + "-" + i + " FAILED: "
                            + connectorStatus(name).toPrettyString());
                }
                if ("RUNNING".equals(state)) {
                    running++;
                }
            }
            if (running == tasks) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Tasks of " + name + " not RUNNING after " + timeout + ": "
                        + connectorStatus(name) + "\n" + logTail(40));
            }
            Thread.sleep(200);
        }
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create(url() + path);
    }

    private void awaitRest() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Worker JVM exited with code " + process.exitValue()
                        + " during start-up:\n" + logTail(60));
            }
            try {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri("/"))
                        .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                kill();
                throw new IllegalStateException("Worker REST API not up after " + START_TIMEOUT + ":\n" + logTail(60));
            }
            Thread.sleep(250);
        }
    }

    // ---- files -----------------------------------------------------------------------------------

    private Path writeWorkerProperties() throws IOException {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("bootstrap.servers", bootstrapServers);
        p.put("group.id", groupId);
        p.put("config.storage.topic", groupId + "-configs");
        p.put("offset.storage.topic", groupId + "-offsets");
        p.put("status.storage.topic", groupId + "-status");
        p.put("config.storage.replication.factor", "1");
        p.put("offset.storage.replication.factor", "1");
        p.put("status.storage.replication.factor", "1");
        p.put("offset.storage.partitions", "3");
        p.put("status.storage.partitions", "1");
        p.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        p.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        p.put("listeners", "http://127.0.0.1:" + port);
        p.put("rest.advertised.host.name", "127.0.0.1");
        p.put("rest.advertised.port", Integer.toString(port));
        p.put("offset.flush.interval.ms", "1000");
        // ServiceLoader manifests instead of a reflective scan of ~120 jars: start-up ~10 s, not ~40 s
        // on 2 cores, and it checks that the connector's own manifest is there
        p.put("plugin.discovery", "service_load");
        // a killed worker (and its task's consumer) stays a group member until its session
        // expires: keep that short so a restarted worker gets the work back quickly
        p.put("session.timeout.ms", "6000");
        p.put("heartbeat.interval.ms", "1500");
        p.put("scheduled.rebalance.max.delay.ms", "3000");
        p.put("consumer.session.timeout.ms", "6000");
        p.put("consumer.heartbeat.interval.ms", "1500");
        workerOverrides.forEach((k, v) -> { // an empty value leaves the setting out
            if (v.isEmpty()) {
                p.remove(k);
            } else {
                p.put(k, v);
            }
        });

        StringBuilder text = new StringBuilder("# written by WorkerProcess\n");
        p.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        Path file = workDir.resolve("worker.properties");
        Files.writeString(file, text.toString(), StandardCharsets.UTF_8);
        return file;
    }

    private Path writeLogConfig() throws IOException {
        String config = String.join("\n",
                "status = warn",
                "appender.console.type = Console",
                "appender.console.name = STDOUT",
                "appender.console.layout.type = PatternLayout",
                "appender.console.layout.pattern = [%d{HH:mm:ss,SSS}] %-5p %c{1}: %m (%t)%n",
                "rootLogger.level = WARN",
                "rootLogger.appenderRef.stdout.ref = STDOUT",
                "logger.delta.name = io.deltasink",
                "logger.delta.level = INFO",
                "logger.sinktask.name = org.apache.kafka.connect.runtime.WorkerSinkTask",
                "logger.sinktask.level = INFO",
                "logger.herder.name = org.apache.kafka.connect.runtime.distributed.DistributedHerder",
                "logger.herder.level = INFO",
                "logger.scanner.name = org.apache.kafka.connect.runtime.isolation.PluginScanner",
                "logger.scanner.level = INFO",
                "");
        Path file = workDir.resolve("worker-log4j2.properties");
        Files.writeString(file, config, StandardCharsets.UTF_8);
        return file;
    }

    /** The same levels as {@link #writeLogConfig()} for a worker that logs through reload4j (Kafka 3). */
    private Path writeReload4jConfig() throws IOException {
        String config = String.join("\n",
                "log4j.rootLogger=WARN, stdout",
                "log4j.appender.stdout=org.apache.log4j.ConsoleAppender",
                "log4j.appender.stdout.layout=org.apache.log4j.PatternLayout",
                "log4j.appender.stdout.layout.ConversionPattern=[%d{HH:mm:ss,SSS}] %-5p %c{1}: %m (%t)%n",
                "log4j.logger.io.deltasink=INFO",
                "log4j.logger.org.apache.kafka.connect.runtime.WorkerSinkTask=INFO",
                "log4j.logger.org.apache.kafka.connect.runtime.distributed.DistributedHerder=INFO",
                "log4j.logger.org.apache.kafka.connect.runtime.isolation.PluginScanner=INFO",
                "");
        Path file = workDir.resolve("worker-log4j.properties");
        Files.writeString(file, config, StandardCharsets.UTF_8);
        return file;
    }

    /**
     * The worker JVM's JDK, class path and environment.
     *
     * @param environment the worker's whole environment, or null for this JVM's
     */
    public record Launch(Path javaHome, String classPath, Map<String, String> environment) {
        public Launch {
            environment = environment == null ? null : Map.copyOf(environment);
        }

        /** This JVM's environment. */
        public Launch(Path javaHome, String classPath) {
            this(javaHome, classPath, null);
        }

        /** This JVM's JDK and class path: the connector is on the worker's class path. */
        public static Launch testClassPath() {
            return new Launch(Path.of(System.getProperty("java.home")), ChildClasspath.current());
        }

        /**
         * The same launch in the C locale: this JVM's environment without {@code LANG},
         * {@code LANGUAGE} and every {@code LC_*} variable, then {@code LC_ALL=C}. Java then takes
         * ASCII for file names ({@code sun.jnu.encoding}) and, before Java 18, for
         * {@code file.encoding} too, as on a minimal server or container without a locale.
         */
        public Launch inCLocale() {
            Map<String, String> env = new LinkedHashMap<>(environment == null ? System.getenv() : environment);
            env.keySet().removeIf(k -> k.equals("LANG") || k.equals("LANGUAGE") || k.startsWith("LC_"));
            env.put("LC_ALL", "C");
            return new Launch(javaHome, classPath, env);
        }
    }

    /** Quotes an argument for a java @argfile (backslashes and quotes escaped). */
    /** A TCP port free at the moment of the call. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("No free port", e);
        }
    }
}
