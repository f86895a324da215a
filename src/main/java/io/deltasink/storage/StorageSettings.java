package io.deltasink.storage;

import java.net.URI;
import java.nio.file.Paths;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;

/**
 * Storage for one table: its normalized location, the Hadoop configuration built from the
 * pass-through settings, and the Kernel engine on top of it.
 */
public final class StorageSettings {
    private final String tableUri;
    private final Configuration hadoopConf;

    public StorageSettings(String location, Map<String, String> hadoopSettings) {
        this.tableUri = normalize(location);
        this.hadoopConf = new Configuration();
        // The worker may run many tasks against many tables: never share cached FileSystem objects
        // across differently configured tasks through Hadoop's static cache.
        hadoopConf.setBoolean("fs.file.impl.disable.cache", true);
        hadoopConf.setBoolean("fs.s3a.impl.disable.cache", true);
        hadoopSettings.forEach(hadoopConf::set);
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

    public String tableUri() {
        return tableUri;
    }

    public Path tablePath() {
        return new Path(tableUri);
    }

    public Configuration hadoopConf() {
        return hadoopConf;
    }

    public Engine createEngine() {
        return DefaultEngine.create(hadoopConf);
    }
}
