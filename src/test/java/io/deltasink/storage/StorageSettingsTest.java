package io.deltasink.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.delta.kernel.defaults.internal.logstore.LogStoreProvider;
import io.deltasink.config.DeltaSinkConfig;

class StorageSettingsTest {
    static final String SECRET = "Sup3r-Secret-Value-xyz";

    @TempDir
    Path dir;
    private final List<StorageSettings> opened = new ArrayList<>();

    @AfterEach
    void closeStorage() {
        opened.forEach(StorageSettings::close);
    }

    private static Map<String, String> props() {
        Map<String, String> p = new HashMap<>();
        p.put("name", "sensors");
        p.put(DeltaSinkConfig.TABLE_LOCATION, "s3://sensor-data/delta/sensor_events/");
        return p;
    }

    private StorageSettings storage(Map<String, String> p) {
        StorageSettings storage = StorageSettings.from(new DeltaSinkConfig(p));
        opened.add(storage);
        return storage;
    }

    @Test
    void s3KeysMapToS3A() {
        Map<String, String> p = props();
        p.put("s3.endpoint", "http://127.0.0.1:9000");
        p.put("s3.region", "eu-central-1");
        p.put("s3.access.key", "minio");
        p.put("s3.secret.key", SECRET);
        p.put("s3.path.style.access", "true");
        p.put("s3.ssl.enabled", "false");
        StorageSettings s = storage(p);
        Configuration conf = s.hadoopConf();
        assertEquals("s3a://sensor-data/delta/sensor_events", s.tableUri());
        assertEquals("http://127.0.0.1:9000", conf.get("fs.s3a.endpoint"));
        assertEquals("eu-central-1", conf.get("fs.s3a.endpoint.region"));
        assertEquals("minio", conf.get("fs.s3a.access.key"));
        assertEquals(SECRET, conf.get("fs.s3a.secret.key"));
        assertEquals("true", conf.get("fs.s3a.path.style.access"));
        assertEquals("false", conf.get("fs.s3a.connection.ssl.enabled"));
    }

    @Test
    void withoutKeysTheDefaultCredentialChainStays() {
        Configuration defaults = new Configuration();
        Configuration conf = storage(props()).hadoopConf();
        assertNull(conf.get("fs.s3a.access.key"));
        assertNull(conf.get("fs.s3a.secret.key"));
        assertNull(conf.get("fs.s3a.endpoint"));
        assertNull(conf.get("fs.s3a.endpoint.region"));
        assertEquals(defaults.get("fs.s3a.aws.credentials.provider"), conf.get("fs.s3a.aws.credentials.provider"));
        assertEquals("false", conf.get("fs.s3a.path.style.access"));
        assertEquals("true", conf.get("fs.s3a.connection.ssl.enabled"));
    }

    @Test
    void hadoopPassThroughOverridesTheS3Keys() {
        Map<String, String> p = props();
        p.put("s3.endpoint", "http://minio:9000");
        p.put("s3.path.style.access", "true");
        p.put("delta.hadoop.fs.s3a.endpoint", "http://other:9000");
        p.put("delta.hadoop.fs.s3a.path.style.access", "false");
        p.put("delta.hadoop.fs.s3a.connection.maximum", "8");
        Configuration conf = storage(p).hadoopConf();
        assertEquals("http://other:9000", conf.get("fs.s3a.endpoint"));
        assertEquals("false", conf.get("fs.s3a.path.style.access"));
        assertEquals("8", conf.get("fs.s3a.connection.maximum"));
    }

    @Test
    void halfAKeyPairFailsNamingTheMissingKeyWithoutTheSecret() {
        Map<String, String> p = props();
        p.put("s3.secret.key", SECRET);
        ConfigException e = assertThrows(ConfigException.class, () -> storage(p));
        assertTrue(e.getMessage().startsWith("s3.access.key is required"), e.getMessage());
        assertFalse(e.getMessage().contains(SECRET), e.getMessage());

        Map<String, String> q = props();
        q.put("s3.access.key", "minio");
        e = assertThrows(ConfigException.class, () -> storage(q));
        assertTrue(e.getMessage().startsWith("s3.secret.key is required"), e.getMessage());
    }

    @Test
    void endpointMustBeAUriWithAHost() {
        assertNull(StorageSettings.endpointProblem("http://127.0.0.1:9000"));
        assertNull(StorageSettings.endpointProblem("https://s3.eu-central-1.amazonaws.com"));
        assertNull(StorageSettings.endpointProblem("minio:9000"));
        assertNull(StorageSettings.endpointProblem("s3.eu-central-1.amazonaws.com"));
        assertNotNull(StorageSettings.endpointProblem("http://"));
        assertNotNull(StorageSettings.endpointProblem("http:///bucket"));
        assertNotNull(StorageSettings.endpointProblem("http://minio 9000"));
        assertNotNull(StorageSettings.endpointProblem("ftp://minio:21"));
        assertNotNull(StorageSettings.endpointProblem("http://:9000"));

        Map<String, String> p = props();
        p.put("s3.endpoint", "http://");
        ConfigException e = assertThrows(ConfigException.class, () -> storage(p));
        assertTrue(e.getMessage().startsWith("s3.endpoint"), e.getMessage());
    }

    @Test
    void withoutConditionalWritesKernelUsesTheSingleJvmLogStore() {
        Configuration defaults = storage(props()).hadoopConf();
        Map<String, String> p = props();
        p.put(DeltaSinkConfig.S3_CONDITIONAL_WRITES, "false");
        Configuration conf = storage(p).hadoopConf();
        for (String scheme : StorageSettings.S3_SCHEMES) {
            assertTrue(LogStoreProvider.getLogStore(defaults, scheme) instanceof ConditionalPutLogStore, scheme);
            assertEquals(StorageSettings.SINGLE_DRIVER_LOG_STORE,
                    LogStoreProvider.getLogStore(conf, scheme).getClass().getName(), scheme);
        }
        assertNull(conf.get("fs.s3a.create.conditional.enabled"), "no conditional create asked of S3A");
        assertEquals("false", conf.get("fs.s3a.create.performance"));
    }

    @Test
    void secretIsHiddenInTheParsedConfig() {
        Map<String, String> p = props();
        p.put("s3.access.key", "minio");
        p.put("s3.secret.key", SECRET);
        DeltaSinkConfig config = new DeltaSinkConfig(p);
        assertEquals(SECRET, config.s3SecretKey());
        assertFalse(config.values().toString().contains(SECRET), "AbstractConfig must hide PASSWORD values");
    }

    @Test
    void s3aFileSystemsAreScopedAndTheLocalOneIsLeftAsItIs() throws IOException {
        Map<String, String> p = props();
        p.put("delta.hadoop.fs.s3a.impl.disable.cache", "false");
        StorageSettings storage = storage(p);
        Configuration conf = storage.hadoopConf();
        assertEquals(ScopedFileSystem.class.getName(), conf.get("fs.s3a.impl"));
        assertEquals("true", conf.get("fs.s3a.impl.disable.cache"), "a cached view would be shared across tasks");
        assertEquals(storage.fileSystems().id(), conf.get(FileSystemScope.ID_KEY));
        assertNull(conf.get("fs.s3.impl"), "s3:// has no implementation unless the user names one");

        FileSystem local = new org.apache.hadoop.fs.Path(dir.toUri()).getFileSystem(conf);
        assertInstanceOf(LocalFileSystem.class, local);
        assertNotSame(local, new org.apache.hadoop.fs.Path(dir.toUri()).getFileSystem(conf), "uncached as before");
        assertEquals(0, storage.fileSystems().created());
    }

    /** A stand-in for S3A that needs no server: the scope must create whatever class the user named. */
    @Test
    void theImplementationTheUserNamedIsSharedPerSchemeAndBucketAndClosedWithTheSettings() throws IOException {
        Map<String, String> p = props();
        p.put("delta.hadoop.fs.s3a.impl", StandIn.class.getName());
        p.put("delta.hadoop.fs.s3.impl", StandIn.class.getName());
        StorageSettings storage = storage(p);
        Configuration conf = storage.hadoopConf();
        assertEquals(ScopedFileSystem.class.getName(), conf.get("fs.s3.impl"));

        FileSystem a = new org.apache.hadoop.fs.Path("s3a://bucket-a/t/x").getFileSystem(conf);
        FileSystem a2 = new org.apache.hadoop.fs.Path("s3a://bucket-a/t/y").getFileSystem(new Configuration(conf));
        FileSystem s3 = new org.apache.hadoop.fs.Path("s3://bucket-a/t/x").getFileSystem(conf);
        StandIn real = assertInstanceOf(StandIn.class, assertInstanceOf(ScopedFileSystem.class, a).getRawFileSystem());
        assertSame(real, ((ScopedFileSystem) a2).getRawFileSystem(), "a copied configuration keeps the scope");
        assertNotSame(real, ((ScopedFileSystem) s3).getRawFileSystem());
        assertEquals(2, storage.fileSystems().created());

        a.close();
        assertFalse(real.closed, "closing a view leaves the shared instance open");
        storage.close();
        assertTrue(real.closed);
        assertTrue(((StandIn) ((ScopedFileSystem) s3).getRawFileSystem()).closed);
        assertNull(FileSystemScope.lookup(storage.fileSystems().id()));
        assertThrows(IOException.class, () -> new org.apache.hadoop.fs.Path("s3a://bucket-a/t").getFileSystem(conf));
    }

    /**
     * The worker's core-site.xml (found, as Hadoop finds it, through the thread's context class
     * loader) applies on top of Hadoop's defaults, and the connector's settings on top of both.
     */
    @Test
    void aWorkersCoreSiteAppliesUnderTheConnectorsSettings() throws Exception {
        Files.writeString(dir.resolve(StorageSettings.CORE_SITE), String.join("\n", "<configuration>",
                "<property><name>deltasink.test.site</name><value>from core-site</value></property>",
                "<property><name>fs.s3a.multipart.size</name><value>99M</value></property>",
                "<property><name>fs.s3a.connection.maximum</name><value>7</value></property>",
                "</configuration>"));
        CountingLoader loader = new CountingLoader(dir);
        Map<String, String> p = props();
        p.put("delta.hadoop.fs.s3a.connection.maximum", "9");
        Configuration conf = withContextLoader(loader, () -> storage(p).hadoopConf());
        assertEquals("from core-site", conf.get("deltasink.test.site"));
        assertEquals("file:///", conf.get("fs.defaultFS"), "Hadoop's defaults");
        assertEquals("16M", conf.get(StorageSettings.S3A_MULTIPART_SIZE), "the connector's default over core-site");
        assertEquals("9", conf.get("fs.s3a.connection.maximum"), "delta.hadoop.* over core-site");
    }

    /**
     * A class that adds a default resource (as Hadoop's JobConf does, loaded when the first file
     * system is made) leaves the table's configuration as it is: Hadoop's XML is parsed once.
     */
    @Test
    void aDefaultResourceAddedLaterDoesNotParseTheSettingsAgain() throws Exception {
        CountingLoader loader = new CountingLoader(dir);
        Configuration conf = withContextLoader(loader, () -> {
            Configuration c = storage(props()).hadoopConf();
            c.get("fs.defaultFS");
            return c;
        });
        assertEquals(1, loader.lookups(StorageSettings.CORE_DEFAULT));
        // a name no class path holds: nothing to read, but every configuration on Hadoop's defaults
        // is read again
        Configuration.addDefaultResource("deltasink-absent-" + UUID.randomUUID() + ".xml");
        assertEquals("file:///", conf.get("fs.defaultFS"));
        assertEquals(1, loader.lookups(StorageSettings.CORE_DEFAULT));
        Configuration plain = withContextLoader(loader, () -> {
            Configuration c = new Configuration();
            c.get("fs.defaultFS");
            Configuration.addDefaultResource("deltasink-absent-" + UUID.randomUUID() + ".xml");
            c.get("fs.defaultFS");
            return c;
        });
        assertEquals(3, loader.lookups(StorageSettings.CORE_DEFAULT), "Hadoop's own default configuration, read twice");
        assertEquals("file:///", plain.get("fs.defaultFS"));
    }

    private static <T> T withContextLoader(ClassLoader loader, Callable<T> action) throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            return action.call();
        } finally {
            thread.setContextClassLoader(before);
        }
    }

    /** Finds resources in a folder first, then as its parent does; counts the look-ups by name. */
    private static final class CountingLoader extends URLClassLoader {
        private final Map<String, Integer> lookups = new ConcurrentHashMap<>();

        CountingLoader(Path folder) throws IOException {
            super(new URL[] {folder.toUri().toURL()}, StorageSettingsTest.class.getClassLoader());
        }

        @Override
        public URL getResource(String name) {
            lookups.merge(name, 1, Integer::sum);
            URL own = findResource(name);
            return own != null ? own : super.getResource(name);
        }

        int lookups(String name) {
            return lookups.getOrDefault(name, 0);
        }
    }

    /** Hadoop creates it by name: public with a no-argument constructor. */
    public static final class StandIn extends RawLocalFileSystem {
        volatile boolean closed;

        @Override
        public void close() throws IOException {
            closed = true;
            super.close();
        }
    }
}
