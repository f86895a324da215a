package io.deltasink.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;

import io.delta.kernel.exceptions.TableNotFoundException;
import io.deltasink.testing.DeltaTableReader;

/**
 * What the table says, read independently of the connector through {@link DeltaTableReader}:
 * rows and txn versions with Kernel, commit metadata from the _delta_log JSON files.
 */
final class TableState {
    private TableState() {
    }

    /** The appId under which the connector stores a partition's position (the default template). */
    static String appId(String connector, String topic, int partition) {
        return connector + "/" + topic + "/" + partition;
    }

    /** Partition -> txn version, for the partitions the table has seen; empty while there is no table. */
    static Map<Integer, Long> txnVersions(Path table, String connector, String topic, int partitions) {
        Map<Integer, Long> out = new TreeMap<>();
        if (!Files.isDirectory(table.resolve("_delta_log"))) {
            return out;
        }
        try {
            for (int p = 0; p < partitions; p++) {
                Optional<Long> v = txnVersion(table, appId(connector, topic, p));
                int partition = p;
                v.ifPresent(version -> out.put(partition, version));
            }
        } catch (TableNotFoundException e) {
            return Map.of(); // the log directory exists but its first commit has not landed yet
        }
        return out;
    }

    static Optional<Long> txnVersion(Path table, String appId) {
        return DeltaTableReader.txnVersion(table.toString(), appId);
    }

    static List<Map<String, Object>> rows(Path table) {
        return DeltaTableReader.readAll(table.toString());
    }

    /** One commit file of the log: its version and its actions, one JSON object each. */
    record Commit(long version, List<JsonNode> actions) {
        Optional<JsonNode> commitInfo() {
            return actions.stream().filter(a -> a.has("commitInfo")).map(a -> a.get("commitInfo")).findFirst();
        }

        long addCount() {
            return actions.stream().filter(a -> a.has("add")).count();
        }
    }

    /** All JSON commit files of the table's log, in version order. */
    static List<Commit> commits(Path table) {
        List<Commit> out = new ArrayList<>();
        for (String name : DeltaTableReader.logFileNames(table.toString())) {
            if (name.matches("\\d{20}\\.json")) {
                long version = Long.parseLong(name.substring(0, 20));
                out.add(new Commit(version, DeltaTableReader.actions(table.toString(), version)));
            }
        }
        return out;
    }

    /** Relative directories (e.g. {@code device_type=smart_plug/event_date=2026-06-22}) that hold data files. */
    static List<String> dataDirectories(Path table) {
        try (Stream<Path> files = Files.walk(table)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".parquet"))
                    .map(f -> table.relativize(f.getParent()).toString().replace('\\', '/'))
                    .filter(d -> !d.startsWith("_delta_log"))
                    .distinct().sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
