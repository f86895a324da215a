package io.deltasink.tool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.deltasink.config.DeltaSinkConfig;

/**
 * The connector settings a run works with: the connector config file (the body PUT to a worker,
 * {@code {"name": .., "config": {..}}}, or the bare map), then {@code --table} for
 * table.location, then each {@code --set key=value}; {@code ${env:X}} references resolved last,
 * so the same keys and the same storage code as the connector apply.
 */
final class ConnectorSettings {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ConnectorSettings() {
    }

    static Map<String, String> from(Arguments args, EnvReferences env) {
        Map<String, String> settings = new LinkedHashMap<>();
        String file = args.value(Arguments.CONFIG);
        if (file != null) {
            settings.putAll(read(Path.of(file)));
        }
        String table = args.value(Arguments.TABLE);
        if (table != null) {
            settings.put(DeltaSinkConfig.TABLE_LOCATION, table);
        }
        for (String set : args.sets()) {
            int eq = set.indexOf('=');
            if (eq <= 0) {
                throw new UsageException(Arguments.SET + " takes key=value, not '" + set + "'");
            }
            settings.put(set.substring(0, eq).trim(), set.substring(eq + 1));
        }
        if (!settings.containsKey(DeltaSinkConfig.TABLE_LOCATION)) {
            throw new UsageException("no table: " + file + " has no " + DeltaSinkConfig.TABLE_LOCATION
                    + " and no " + Arguments.TABLE + " was given");
        }
        return env.resolve(settings);
    }

    /** A connector config file, wrapped or bare; the wrapper's name becomes the "name" setting. */
    static Map<String, String> read(Path file) {
        JsonNode root;
        try {
            root = JSON.readTree(Files.readString(file));
        } catch (NoSuchFileException e) {
            throw new UsageException("no config file " + file);
        } catch (JsonProcessingException e) {
            throw new UsageException(file + " is not JSON: " + e.getOriginalMessage()
                    + " (line " + e.getLocation().getLineNr() + ")");
        } catch (IOException e) {
            throw new UsageException("cannot read " + file + ": " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw new UsageException(file + " holds no JSON object");
        }
        boolean wrapped = root.has("config");
        if (wrapped && !root.get("config").isObject()) {
            throw new UsageException(file + ": \"config\" is not an object");
        }
        Map<String, String> settings = new LinkedHashMap<>();
        JsonNode config = wrapped ? root.get("config") : root;
        for (Iterator<Map.Entry<String, JsonNode>> it = config.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue().isContainerNode()) {
                throw new UsageException(file + ": the value of \"" + e.getKey() + "\" is not text, a number or a boolean");
            }
            if (!e.getValue().isNull()) {
                settings.put(e.getKey(), e.getValue().asText());
            }
        }
        if (wrapped && root.hasNonNull("name")) {
            settings.putIfAbsent(DeltaSinkConfig.CONNECTOR_NAME, root.get("name").asText());
        }
        return settings;
    }
}
