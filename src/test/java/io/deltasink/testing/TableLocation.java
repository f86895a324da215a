package io.deltasink.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.UndeclaredThrowableException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.security.UserGroupInformation;

import com.fasterxml.jackson.databind.JsonNode;

import io.delta.kernel.exceptions.TableNotFoundException;

/**
 * Where a test's Delta table lives and how to read it back with {@link DeltaTableReader}: a local
 * directory, or an {@code s3a://} location on an {@link S3ProxyServer}.
 *
 * <p>Reads over S3 share one S3A client per location: they run as a Hadoop user of their own
 * with the FileSystem cache on, so the client is never one the connector in the same JVM uses,
 * and polling does not create a client per call. {@link #close()} closes it.
 * {@link #files()} is the local directory holding the table's files (for S3Proxy: its filesystem
 * backend), so a test can watch the log's file names without going through S3.
 */
public final class TableLocation implements AutoCloseable {
    private static final Pattern COMMIT_FILE = Pattern.compile("\\d{20}\\.json");

    private final String uri;
    private final Path files;
    private final Map<String, String> connectorSettings;
    /** Null for a local table: every read gets a fresh default configuration. */
    private final Configuration s3Conf;
    private final UserGroupInformation reader;

    private TableLocation(String uri, Path files, Map<String, String> connectorSettings, Configuration s3Conf) {
        this.uri = uri;
        this.files = files;
        this.connectorSettings = connectorSettings;
        this.s3Conf = s3Conf;
        this.reader = s3Conf == null ? null : UserGroupInformation.createRemoteUser("delta-test-reader");
    }

    /** A table in a local directory. */
    public static TableLocation local(Path dir) {
        Path abs = dir.toAbsolutePath();
        return new TableLocation(abs.toString(), abs, Map.of("table.location", abs.toString()), null);
    }

    /** The table {@code s3a://<bucket>/<key>} on {@code server}. */
    public static TableLocation onS3(S3ProxyServer server, String key) {
        String uri = "s3a://" + server.bucket() + "/" + key;
        Map<String, String> settings = new LinkedHashMap<>(server.connectorSettings());
        settings.put("table.location", uri);
        Configuration conf = server.hadoopConf();
        conf.setBoolean("fs.s3a.impl.disable.cache", false);
        return new TableLocation(uri, server.bucketDir().resolve(key), Map.copyOf(settings), conf);
    }

    /** The value for the connector's table.location. */
    public String uri() {
        return uri;
    }

    /** The local directory that holds the table's files. */
    public Path files() {
        return files;
    }

    public boolean onS3() {
        return s3Conf != null;
    }

    /** table.location and, on S3, the s3.* settings that reach the server. */
    public Map<String, String> connectorSettings() {
        return connectorSettings;
    }

    /** The highest commit version, from the log's file names in {@link #files()}; -1 while there is none. */
    public long latestVersion() {
        Path log = files.resolve("_delta_log");
        if (!Files.isDirectory(log)) {
            return -1;
        }
        try (Stream<Path> names = Files.list(log)) {
            return names.map(p -> p.getFileName().toString())
                    .filter(n -> COMMIT_FILE.matcher(n).matches())
                    .mapToLong(n -> Long.parseLong(n.substring(0, 20)))
                    .max().orElse(-1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The actions of commit {@code version}, read as plain JSON lines from its file in {@link #files()}: no
     * Hadoop file system or configuration, so a benchmark can follow the log while the clock runs without
     * taking CPU from what it measures. {@link #actions} reads the same through the table's file system.
     */
    public List<JsonNode> actionsOfFile(long version) {
        Path file = files.resolve("_delta_log").resolve(String.format(Locale.ROOT, "%020d.json", version));
        try (BufferedReader lines = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return DeltaTableReader.actions(lines);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- independent reads (through S3A for an S3 table) ---------------------------------------------

    /** The latest txn version of {@code appId}; empty as well while there is no table yet. */
    public Optional<Long> txnVersion(String appId) {
        if (latestVersion() < 0) {
            return Optional.empty();
        }
        try {
            return read(conf -> DeltaTableReader.txnVersion(uri, appId, conf));
        } catch (TableNotFoundException e) {
            return Optional.empty(); // the log directory exists but its first commit has not landed yet
        }
    }

    public long version() {
        return read(conf -> DeltaTableReader.version(uri, conf));
    }

    public List<Map<String, Object>> rows() {
        return read(conf -> DeltaTableReader.readAll(uri, conf));
    }

    /** The number of rows of the latest version, counted by a scan. */
    public long rowCount() {
        return read(conf -> DeltaTableReader.countRows(uri, conf));
    }

    public List<String> logFileNames() {
        return read(conf -> DeltaTableReader.logFileNames(uri, conf));
    }

    public List<JsonNode> actions(long version) {
        return read(conf -> DeltaTableReader.actions(uri, version, conf));
    }

    /** Relative directories (e.g. {@code device_type=smart_plug/event_date=2026-06-22}) that hold data files, listed through the table's file system. */
    public List<String> dataDirectories() {
        return read(conf -> {
            try {
                org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path(uri);
                FileSystem fs = root.getFileSystem(conf);
                String prefix = fs.makeQualified(root).toString() + "/";
                List<String> dirs = new ArrayList<>();
                RemoteIterator<LocatedFileStatus> found = fs.listFiles(root, true);
                while (found.hasNext()) {
                    String path = found.next().getPath().toString();
                    if (path.endsWith(".parquet") && path.startsWith(prefix)) {
                        String relative = path.substring(prefix.length());
                        String dir = relative.contains("/") ? relative.substring(0, relative.lastIndexOf('/')) : "";
                        if (!dir.startsWith("_delta_log") && !dirs.contains(dir)) {
                            dirs.add(dir);
                        }
                    }
                }
                dirs.sort(null);
                return dirs;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    private <T> T read(Function<Configuration, T> action) {
        if (s3Conf == null) {
            return action.apply(new Configuration());
        }
        try {
            return reader.doAs((PrivilegedExceptionAction<T>) () -> action.apply(s3Conf));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (UndeclaredThrowableException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    /** Closes the S3A client of the reads. */
    @Override
    public void close() {
        if (reader != null) {
            try {
                FileSystem.closeAllForUGI(reader);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Override
    public String toString() {
        return uri;
    }
}
