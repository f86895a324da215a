package io.deltasink.commit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.deltasink.Converters;
import io.deltasink.Version;
import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.storage.StorageSettings;
import io.deltasink.testing.RecordingContext;

/**
 * Test fixture: sessions as a task builds them (the connector's config keys, its converter
 * factory, real storage), against a table in a folder of its own per test unless the settings
 * name another location; the storage of every session is closed after each test. Register with
 * {@code @RegisterExtension final Sessions sessions = Sessions.of(...)}.
 */
final class Sessions implements BeforeEachCallback, AfterEachCallback {
    private final Map<String, String> base;
    private final List<StorageSettings> opened = new ArrayList<>();
    private Path dir;

    private Sessions(Map<String, String> base) {
        this.base = Map.copyOf(base);
    }

    /** Sessions of connector {@code name} with these settings (table.location defaults to the test's folder). */
    static Sessions of(String name, Map<String, String> settings) {
        Map<String, String> base = new HashMap<>(settings);
        base.put(DeltaSinkConfig.CONNECTOR_NAME, name);
        base.putIfAbsent(DeltaSinkConfig.COMMIT_RETRY_BACKOFF_MS, "1");
        return new Sessions(base);
    }

    @Override
    public void beforeEach(ExtensionContext context) throws IOException {
        dir = Files.createTempDirectory("sessions");
    }

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        opened.forEach(StorageSettings::close);
        opened.clear();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** The test's own folder; the default table is its {@code table} folder. */
    Path dir() {
        return dir;
    }

    /** The table location of the base settings, as the connector normalizes it. */
    String table() {
        return StorageSettings.normalize(props(Map.of()).get(DeltaSinkConfig.TABLE_LOCATION));
    }

    /** The base settings with {@code extra} on top. */
    Map<String, String> props(Map<String, String> extra) {
        Map<String, String> p = new HashMap<>(base);
        p.putIfAbsent(DeltaSinkConfig.TABLE_LOCATION, dir.resolve("table").toString());
        p.putAll(extra);
        return p;
    }

    /** Storage for these settings, closed after the test. */
    StorageSettings storage(DeltaSinkConfig config) {
        StorageSettings storage = StorageSettings.from(config);
        opened.add(storage);
        return storage;
    }

    /** A session as a task makes it, reporting to {@code context}. */
    SinkSession create(RecordingContext context, Map<String, String> extra) {
        DeltaSinkConfig config = new DeltaSinkConfig(props(extra));
        return new SinkSession(config, storage(config), Converters.factory(config, Clock.systemUTC()), context,
                Clock.systemUTC(), ms -> { }, Version.engineInfo(config.connectorName()));
    }

    SinkSession create(RecordingContext context) {
        return create(context, Map.of());
    }
}
