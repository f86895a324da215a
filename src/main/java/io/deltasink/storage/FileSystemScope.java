package io.deltasink.storage;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.util.ReflectionUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The S3 file systems of one {@link StorageSettings}: one real file system (S3A) per scheme and
 * bucket, created on first use and closed with the scope.
 *
 * <p>Kernel, its log store, the Parquet writer and the session ask Hadoop for a file system on
 * every operation ({@code path.getFileSystem(conf)}). Hadoop's cache cannot be used (it is keyed
 * by scheme, bucket and user, not by configuration, so two connectors with different credentials
 * would share one S3A instance), and without it every call builds a new S3A instance with its own
 * thread pools and HTTP client that nobody closes. So the scope installs {@link ScopedFileSystem}
 * as the implementation of each S3 scheme in its configuration: Hadoop builds that cheap wrapper
 * per call, and the wrapper hands every call to the scope's one real instance.
 */
final class FileSystemScope implements AutoCloseable {
    /** The configuration key through which a {@link ScopedFileSystem} finds its scope. */
    static final String ID_KEY = "io.deltasink.fs.scope.id";
    private static final Logger log = LoggerFactory.getLogger(FileSystemScope.class);

    /**
     * The open scopes by id. Hadoop creates a {@link ScopedFileSystem} by class name and hands it
     * nothing but a Configuration, which holds strings only, so the wrapper needs a place to look
     * its scope up. This is that place and the connector's only static mutable state: an entry
     * lives from {@link #install} to {@link #close} (task start to task stop), so restarts leave
     * nothing behind.
     */
    private static final ConcurrentMap<String, FileSystemScope> OPEN = new ConcurrentHashMap<>();

    private final String id = UUID.randomUUID().toString();
    private final Configuration conf;
    /** scheme -> the implementation class the configuration named before the wrapper replaced it */
    private final Map<String, String> realImpls = new HashMap<>();
    /** "scheme://bucket" -> the real file system; guarded by this */
    private final Map<String, FileSystem> shared = new HashMap<>();
    private final Set<String> creating = new HashSet<>();
    private int created;
    private boolean closed;

    private FileSystemScope(Configuration conf) {
        this.conf = conf;
    }

    /**
     * Makes {@code conf} hand out the scope's shared file systems for those of {@code schemes} that
     * have an implementation configured, and opens the scope. Hadoop's cache is turned off for
     * these schemes (whatever the user set): a cached wrapper would be shared across scopes.
     */
    static FileSystemScope install(Configuration conf, Collection<String> schemes) {
        FileSystemScope scope = new FileSystemScope(conf);
        for (String scheme : schemes) {
            String key = "fs." + scheme + ".impl";
            String impl = conf.get(key);
            if (impl != null && !impl.equals(ScopedFileSystem.class.getName())) {
                scope.realImpls.put(scheme, impl);
                conf.set(key, ScopedFileSystem.class.getName());
                conf.setBoolean("fs." + scheme + ".impl.disable.cache", true);
            }
        }
        conf.set(ID_KEY, scope.id);
        OPEN.put(scope.id, scope);
        return scope;
    }

    /** The open scope with this id, or null when there is none (never opened, or closed). */
    static FileSystemScope lookup(String id) {
        return id == null ? null : OPEN.get(id);
    }

    /** How many scopes are open in this JVM. */
    static int openScopes() {
        return OPEN.size();
    }

    /**
     * A copy of the scope's configuration that builds the real implementations again, outside any
     * scope: for a short-lived file system with settings of its own, which its user closes.
     */
    Configuration unscopedCopy() {
        Configuration copy = new Configuration(conf);
        realImpls.forEach((scheme, impl) -> copy.set("fs." + scheme + ".impl", impl));
        copy.unset(ID_KEY);
        return copy;
    }

    /** The real file system for the scheme and bucket of {@code uri}, created on first use. */
    synchronized FileSystem shared(URI uri) throws IOException {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        String key = scheme + "://" + uri.getAuthority();
        if (closed) {
            throw new IOException("The file systems of this task are closed (task stopped); cannot use " + key);
        }
        FileSystem fs = shared.get(key);
        if (fs != null) {
            return fs;
        }
        if (!creating.add(key)) {
            throw new IOException("Creating the file system for " + key + " needs itself");
        }
        try {
            fs = create(scheme, uri);
        } finally {
            creating.remove(key);
        }
        shared.put(key, fs);
        created++;
        log.debug("Opened the {} file system for {}", fs.getClass().getSimpleName(), key);
        return fs;
    }

    /**
     * A new instance of the real implementation. It gets a copy of the scope's configuration, so
     * whatever it opens itself through {@code getFileSystem} stays in the scope too.
     */
    private FileSystem create(String scheme, URI uri) throws IOException {
        String impl = realImpls.get(scheme);
        if (impl == null) {
            throw new IOException("No file system implementation for scheme " + scheme);
        }
        Configuration copy = new Configuration(conf);
        Class<? extends FileSystem> type;
        try {
            type = copy.getClassByName(impl).asSubclass(FileSystem.class);
        } catch (ClassNotFoundException | ClassCastException e) {
            throw new IOException("File system implementation " + impl + " for scheme " + scheme
                    + " is not a Hadoop FileSystem on the class path", e);
        }
        FileSystem fs = ReflectionUtils.newInstance(type, copy);
        fs.initialize(uri, copy);
        return fs;
    }

    /** How many real file systems this scope has created. */
    synchronized int created() {
        return created;
    }

    /** The real file systems open now, by "scheme://bucket". */
    synchronized Map<String, FileSystem> openFileSystems() {
        return Map.copyOf(shared);
    }

    String id() {
        return id;
    }

    /** Leaves the registry, then closes every real file system of the scope. Idempotent. */
    @Override
    public void close() {
        List<Map.Entry<String, FileSystem>> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            OPEN.remove(id, this);
            toClose = new ArrayList<>(shared.entrySet());
            shared.clear();
        }
        for (Map.Entry<String, FileSystem> e : toClose) {
            try {
                e.getValue().close();
                log.debug("Closed the file system for {}", e.getKey());
            } catch (IOException | RuntimeException failure) {
                log.warn("Could not close the file system for {}", e.getKey(), failure);
            }
        }
    }
}
