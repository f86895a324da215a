package io.deltasink.storage;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.kafka.common.config.ConfigException;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

import io.delta.kernel.engine.Engine;
import io.deltasink.config.DeltaSinkConfig;

/**
 * Storage for one table: its normalized location, the Hadoop configuration built from the
 * pass-through settings, and the Kernel engine on top of it.
 *
 * <p>It owns the S3 file systems made through its configuration (one per bucket, see
 * {@link FileSystemScope}); {@link #close()} closes them. Whoever creates it closes it.
 */
public final class StorageSettings implements AutoCloseable {
    /** The schemes Kernel treats as S3 (its default log store for them is single-JVM only). */
    public static final List<String> S3_SCHEMES = List.of("s3a", "s3", "s3n");
    static final String S3A_CREATE_PERFORMANCE = "fs.s3a.create.performance";
    static final String S3A_CONDITIONAL_CREATE = "fs.s3a.create.conditional.enabled";
    /** Delta's S3 log store (Kernel's default for S3): mutual exclusion within one JVM only. */
    public static final String SINGLE_DRIVER_LOG_STORE = "io.delta.storage.S3SingleDriverLogStore";
    static final String LOCAL_FILE_SYSTEM_IMPL = "fs.file.impl";
    static final String CORE_DEFAULT = "core-default.xml";
    static final String CORE_SITE = "core-site.xml";
    static final String S3A_UPLOAD_BUFFER = "fs.s3a.fast.upload.buffer";
    static final String S3A_UPLOAD_ACTIVE_BLOCKS = "fs.s3a.fast.upload.active.blocks";
    static final String S3A_MULTIPART_SIZE = "fs.s3a.multipart.size";
    /**
     * How S3A buffers an upload, unless delta.hadoop.* says otherwise. Each open output stream fills a
     * block of fs.s3a.multipart.size and queues up to fs.s3a.fast.upload.active.blocks more for upload;
     * "array" and "bytebuffer" allocate every block whole in memory (heap / direct) at its first byte,
     * "disk" writes them to fs.s3a.buffer.dir. Hadoop 3.4.3's defaults are disk, 4 and 64M (a worker's
     * core-site.xml can change them): these keep blocks on disk and, should a user pick memory, keep
     * each stream to 3 blocks of 16 MiB, which the writer then counts per open file.
     */
    static final Map<String, String> S3A_UPLOAD_DEFAULTS = Map.of(
            S3A_UPLOAD_BUFFER, "disk",
            S3A_UPLOAD_ACTIVE_BLOCKS, "2",
            S3A_MULTIPART_SIZE, "16M");

    private final String tableUri;
    private final Configuration hadoopConf;
    private final FileSystemScope fileSystems;
    /** False for a view made by {@link #at}: the scope is closed by the settings it was made from. */
    private final boolean ownsFileSystems;

    private StorageSettings(String tableUri, StorageSettings of) {
        this.tableUri = tableUri;
        this.hadoopConf = of.hadoopConf;
        this.fileSystems = of.fileSystems;
        this.ownsFileSystems = false;
    }

    public StorageSettings(String location, Map<String, String> hadoopSettings) {
        this.ownsFileSystems = true;
        this.tableUri = normalize(location);
        this.hadoopConf = hadoopDefaults();
        // The worker may run many tasks against many tables: never share cached FileSystem objects
        // across differently configured tasks through Hadoop's static cache. Local file systems
        // are cheap to make per call; the S3 ones are shared within this object's scope instead.
        hadoopConf.setBoolean("fs.file.impl.disable.cache", true);
        // local files without a chmod child process per new file or folder (unless the user names a class)
        hadoopConf.set(LOCAL_FILE_SYSTEM_IMPL, NioLocalFileSystem.class.getName());
        S3A_UPLOAD_DEFAULTS.forEach(hadoopConf::set);
        hadoopSettings.forEach(hadoopConf::set);
        useExclusiveLogStores(hadoopConf, hadoopSettings);
        this.fileSystems = FileSystemScope.install(hadoopConf, S3_SCHEMES);
    }

    /**
     * Hadoop's defaults and the worker's core-site.xml, as {@code new Configuration()} reads them,
     * named as resources of this configuration instead of taken as Hadoop's default resources.
     * Hadoop reads a configuration built on the default resources again, all its XML parsed anew,
     * whenever a class adds one: the first file system a task makes loads Hadoop's JobConf, which
     * adds the MapReduce and YARN defaults, none of which a table's storage reads.
     */
    static Configuration hadoopDefaults() {
        Configuration conf = new Configuration(false);
        conf.addResource(CORE_DEFAULT);
        conf.addResource(CORE_SITE);
        return conf;
    }

    /**
     * Makes Kernel commit to S3 through {@link ConditionalPutLogStore} (S3 conditional writes, safe
     * across JVMs) instead of its default S3 log store, which only locks within one JVM, and to
     * local files through {@link ExclusiveLocalLogStore} instead of a check-then-rename that lets a
     * second writer replace a commit. A log store the user configured for a scheme
     * (delta.hadoop.io.delta.kernel.logStore.SCHEME.impl) is kept. S3A's create-performance mode is
     * always off: it turns a create into a blind overwrite.
     */
    private static void useExclusiveLogStores(Configuration conf, Map<String, String> userSettings) {
        if (!userSettings.containsKey(logStoreKey("file"))) {
            conf.set(logStoreKey("file"), ExclusiveLocalLogStore.class.getName());
        }
        boolean ours = false;
        for (String scheme : S3_SCHEMES) {
            String key = logStoreKey(scheme);
            if (!userSettings.containsKey(key)) {
                conf.set(key, ConditionalPutLogStore.class.getName());
                ours = true;
            }
        }
        if (ours && !userSettings.containsKey(S3A_CONDITIONAL_CREATE)) {
            conf.setBoolean(S3A_CONDITIONAL_CREATE, true);
        }
        conf.setBoolean(S3A_CREATE_PERFORMANCE, false);
    }

    /** The Hadoop key through which Delta Kernel's default engine picks the log store of a scheme. */
    public static String logStoreKey(String scheme) {
        return "io.delta.kernel.logStore." + scheme.toLowerCase(Locale.ROOT) + ".impl";
    }

    /**
     * Storage for the connector's table (with a table per topic: the folder of the tables, see
     * {@link #at}): the s3.* settings mapped to S3A, then delta.hadoop.* on top.
     * With s3.conditional.writes=false the S3 schemes get Delta's single-JVM log store instead of
     * {@link ConditionalPutLogStore} (unless delta.hadoop.* names a log store).
     */
    public static StorageSettings from(DeltaSinkConfig config) {
        Map<String, String> settings = new LinkedHashMap<>(s3aSettings(config));
        if (!config.s3ConditionalWrites()) {
            for (String scheme : S3_SCHEMES) {
                settings.put(logStoreKey(scheme), SINGLE_DRIVER_LOG_STORE);
            }
        }
        settings.putAll(config.hadoopSettings());
        return new StorageSettings(config.tableLocationRoot(), settings);
    }

    /**
     * The Hadoop S3A keys for the s3.* settings. The credentials only when both keys are given;
     * with none, S3A's default credential providers (ending in the AWS default chain) stay in place.
     */
    public static Map<String, String> s3aSettings(DeltaSinkConfig config) {
        Map<String, String> out = new LinkedHashMap<>();
        String endpoint = config.s3Endpoint();
        if (!endpoint.isEmpty()) {
            String problem = endpointProblem(endpoint);
            if (problem != null) {
                throw new ConfigException(DeltaSinkConfig.S3_ENDPOINT + " " + problem);
            }
            out.put("fs.s3a.endpoint", endpoint);
        }
        if (!config.s3Region().isEmpty()) {
            out.put("fs.s3a.endpoint.region", config.s3Region());
        }
        String missing = missingCredentialKey(!config.s3AccessKey().isEmpty(), !config.s3SecretKey().isEmpty());
        if (missing != null) {
            throw new ConfigException(credentialProblem(missing));
        }
        if (!config.s3AccessKey().isEmpty()) {
            out.put("fs.s3a.access.key", config.s3AccessKey());
            out.put("fs.s3a.secret.key", config.s3SecretKey());
        }
        out.put("fs.s3a.path.style.access", Boolean.toString(config.s3PathStyleAccess()));
        out.put("fs.s3a.connection.ssl.enabled", Boolean.toString(config.s3SslEnabled()));
        return out;
    }

    /**
     * Why an s3.endpoint value is unusable, or null when it is fine: it must be a URI with a host,
     * http or https, or a bare host[:port].
     */
    public static String endpointProblem(String endpoint) {
        String value = endpoint.trim();
        String withScheme = value.contains("://") ? value : "https://" + value;
        URI uri;
        try {
            uri = new URI(withScheme);
        } catch (URISyntaxException e) {
            return "'" + value + "' is not a valid URI: " + e.getReason()
                    + "; expected e.g. http://minio:9000 or https://s3.eu-central-1.amazonaws.com";
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            return "'" + value + "' must use http or https; expected e.g. http://minio:9000";
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            return "'" + value + "' has no host; expected e.g. http://minio:9000 or https://s3.eu-central-1.amazonaws.com";
        }
        return null;
    }

    /** The credential key that is missing when only one of the two is given, else null. */
    public static String missingCredentialKey(boolean accessKeyGiven, boolean secretKeyGiven) {
        if (accessKeyGiven && !secretKeyGiven) {
            return DeltaSinkConfig.S3_SECRET_KEY;
        }
        if (secretKeyGiven && !accessKeyGiven) {
            return DeltaSinkConfig.S3_ACCESS_KEY;
        }
        return null;
    }

    /** The message for a half-given key pair, naming the missing key (never a key's value). */
    public static String credentialProblem(String missingKey) {
        String other = missingKey.equals(DeltaSinkConfig.S3_SECRET_KEY)
                ? DeltaSinkConfig.S3_ACCESS_KEY : DeltaSinkConfig.S3_SECRET_KEY;
        return missingKey + " is required when " + other + " is set (give both, or neither to use the AWS "
                + "default credential chain)";
    }

    /** The table location as a URI string: plain paths become file: URIs, s3:// becomes s3a://. */
    public static String normalize(String location) {
        String loc = location.trim();
        while (loc.length() > 1 && loc.endsWith("/")) {
            loc = loc.substring(0, loc.length() - 1);
        }
        if (loc.startsWith("s3://")) {
            return "s3a://" + loc.substring("s3://".length());
        }
        URI uri = URI.create(loc.replace(" ", "%20"));
        if (uri.getScheme() == null) {
            return Paths.get(loc).toAbsolutePath().normalize().toUri().toString().replaceAll("/$", "");
        }
        return loc;
    }

    /**
     * The same storage (configuration, S3 file systems) for the table at {@code location}; closing
     * the view does nothing, closing these settings closes the view's file systems too.
     */
    public StorageSettings at(String location) {
        return new StorageSettings(normalize(location), this);
    }

    public String tableUri() {
        return tableUri;
    }

    public Path tablePath() {
        return new Path(tableUri);
    }

    public Configuration hadoopConf() {
        return hadoopConf;
    }

    /**
     * Memory an open output stream of the table's file system holds outside the Parquet writer: for
     * S3 with in-memory upload buffers (fs.s3a.fast.upload.buffer array or bytebuffer) the block being
     * filled plus the blocks queued for upload, each fs.s3a.multipart.size; 0 for local tables and
     * disk-buffered uploads.
     */
    public long uploadBufferBytesPerFile() {
        String scheme = tablePath().toUri().getScheme();
        if (scheme == null || !S3_SCHEMES.contains(scheme.toLowerCase(Locale.ROOT))) {
            return 0;
        }
        if (hadoopConf.getTrimmed(S3A_UPLOAD_BUFFER, "disk").equalsIgnoreCase("disk")) {
            return 0;
        }
        long block = hadoopConf.getLongBytes(S3A_MULTIPART_SIZE, 64L << 20);
        int queued = hadoopConf.getInt(S3A_UPLOAD_ACTIVE_BLOCKS, 4);
        return block * (1L + Math.max(0, queued));
    }

    public Engine createEngine() {
        return new SinkEngine(hadoopConf);
    }

    /** The S3 file systems of this storage. */
    FileSystemScope fileSystems() {
        return fileSystems;
    }

    /**
     * Closes the S3 file systems made through {@link #hadoopConf()} (their thread pools and HTTP
     * connections); afterwards an S3 file system of this configuration cannot be had any more.
     * Idempotent.
     */
    @Override
    public void close() {
        if (ownsFileSystems) {
            fileSystems.close();
        }
    }
}
