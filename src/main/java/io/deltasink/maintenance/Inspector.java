package io.deltasink.maintenance;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import io.deltasink.storage.StorageSettings;
import io.deltasink.table.DeltaTable;
import io.deltasink.table.TableFile;
import io.deltasink.table.TableSnapshot;

/** Reads a table's state for people and machines: see {@link TableReport}. The caller owns {@code storage}. */
public final class Inspector {
    private final StorageSettings storage;
    private final Clock clock;

    public Inspector(StorageSettings storage, Clock clock) {
        this.storage = Objects.requireNonNull(storage, "storage");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Throws when there is no table at the location or it cannot be read. */
    public TableReport inspect(InspectOptions options) {
        String location = storage.tableUri();
        TableSnapshot snapshot = new DeltaTable(storage.createEngine(), location, clock, 0).existing();
        List<String> partitionColumns = snapshot.partitionColumns();
        Map<String, long[]> partitions = new TreeMap<>();
        long files = 0;
        long bytes = 0;
        long small = 0;
        for (TableFile file : snapshot.files()) {
            long[] p = partitions.computeIfAbsent(partitionName(partitionColumns, file), k -> new long[3]);
            boolean isSmall = file.size() < options.smallFileBytes();
            p[0]++;
            p[1] += file.size();
            p[2] += isSmall ? 1 : 0;
            files++;
            bytes += file.size();
            small += isSmall ? 1 : 0;
        }
        List<TableReport.Partition> perPartition = partitions.entrySet().stream()
                .map(e -> new TableReport.Partition(e.getKey(), e.getValue()[0], e.getValue()[1], e.getValue()[2]))
                .toList();
        return new TableReport(location, snapshot.version(), snapshot.protocol(), snapshot.columns(), partitionColumns,
                new TreeMap<>(snapshot.properties()), files, bytes, small, options.smallFileBytes(), perPartition,
                KafkaPositions.of(snapshot.allTxnVersions(), options), snapshot.lastCommits(options.lastCommits()));
    }

    private static String partitionName(List<String> columns, TableFile file) {
        StringBuilder name = new StringBuilder();
        for (String column : columns) {
            name.append(name.length() == 0 ? "" : "/").append(column).append('=')
                    .append(file.partitionValues().get(column));
        }
        return name.toString();
    }
}
