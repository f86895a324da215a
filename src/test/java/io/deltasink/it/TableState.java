package io.deltasink.it;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;

import io.deltasink.testing.DeltaTableReader;
import io.deltasink.testing.TableLocation;

/**
 * What the table says, read independently of the connector through {@link DeltaTableReader}:
 * rows and txn versions with Kernel, commit metadata from the _delta_log JSON files. A table is a
 * local directory or any {@link TableLocation} (e.g. on S3).
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
        return txnVersions(TableLocation.local(table), connector, topic, partitions);
    }

    static Map<Integer, Long> txnVersions(TableLocation table, String connector, String topic, int partitions) {
        Map<Integer, Long> out = new TreeMap<>();
        for (int p = 0; p < partitions; p++) {
            Optional<Long> v = table.txnVersion(appId(connector, topic, p));
            int partition = p;
            v.ifPresent(version -> out.put(partition, version));
        }
        return out;
    }

    static List<Map<String, Object>> rows(Path table) {
        return TableLocation.local(table).rows();
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
        return commits(TableLocation.local(table));
    }

    static List<Commit> commits(TableLocation table) {
        List<Commit> out = new ArrayList<>();
        for (String name : table.logFileNames()) {
            if (name.matches("\\d{20}\\.json")) {
                long version = Long.parseLong(name.substring(0, 20));
                out.add(new Commit(version, table.actions(version)));
            }
        }
        return out;
    }

    /** Relative directories (e.g. {@code device_type=smart_plug/event_date=2026-06-22}) that hold data files. */
    static List<String> dataDirectories(Path table) {
        return TableLocation.local(table).dataDirectories();
    }
}
