package io.deltasink.maintenance;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.deltasink.table.CommitSummary;
import io.deltasink.table.TableColumn;
import io.deltasink.table.TableProtocol;

/**
 * A table's state: version, protocol, schema, partition columns, files and bytes per table
 * partition (and how many are small), txn app ids and versions (with Kafka end offsets and lag when
 * asked), the last commits. Records, lists and maps only, so it serializes to JSON as it is.
 *
 * @param location         the table
 * @param version          the latest version
 * @param protocol         reader/writer versions and features
 * @param columns          the schema's top-level columns
 * @param partitionColumns in table order
 * @param properties       the table properties
 * @param files            data files of the version
 * @param bytes            their bytes
 * @param smallFiles       files below {@code smallFileBytes}
 * @param smallFileBytes   the threshold used
 * @param partitions       per table partition, sorted by name
 * @param positions        per txn app id, sorted
 * @param commits          the last commits, newest first
 */
public record TableReport(String location, long version, TableProtocol protocol, List<TableColumn> columns,
                          List<String> partitionColumns, Map<String, String> properties, long files, long bytes,
                          long smallFiles, long smallFileBytes, List<Partition> partitions, List<Position> positions,
                          List<CommitSummary> commits) {

    /**
     * Files of one table partition.
     *
     * @param partition e.g. {@code device_type=smart_plug/event_date=2026-06-22}, values as the log holds
     *                  them; empty for an unpartitioned table
     */
    public record Partition(String partition, long files, long bytes, long smallFiles) {
    }

    /**
     * A txn app id's version (the next Kafka offset to read) and, when Kafka was asked and the id maps
     * to a topic-partition of the connector, that partition's end offset and the lag.
     *
     * @param topic     null when not mapped
     * @param partition null when not mapped
     * @param endOffset null without Kafka or when not mapped
     * @param lag       end offset minus the table's position (records not in the table yet); null as endOffset
     */
    public record Position(String appId, long tableOffset, String topic, Integer partition, Long endOffset,
                           Long lag) {
    }

    /** A human-readable report (the command's text output). */
    public String toText() {
        StringBuilder out = new StringBuilder();
        out.append("Delta table ").append(location).append(" at version ").append(version).append('\n');
        out.append("  protocol: reader ").append(protocol.minReaderVersion()).append(", writer ")
                .append(protocol.minWriterVersion());
        if (!protocol.writerFeatures().isEmpty()) {
            out.append(", features ").append(String.join(", ", protocol.writerFeatures()));
        }
        out.append('\n');
        out.append("  columns: ");
        for (int i = 0; i < columns.size(); i++) {
            TableColumn c = columns.get(i);
            out.append(i == 0 ? "" : ", ").append(c.name()).append(' ').append(c.type()).append(c.nullable() ? "" : " not null");
        }
        out.append('\n');
        out.append("  partitioned by: ").append(partitionColumns.isEmpty() ? "-" : String.join(", ", partitionColumns))
                .append('\n');
        out.append("  files: ").append(files).append(", ").append(bytes).append(" bytes, ").append(smallFiles)
                .append(" small (< ").append(smallFileBytes).append(" bytes)\n");
        for (Partition p : partitions) {
            out.append("    ").append(p.partition().isEmpty() ? "(table)" : p.partition()).append(": ")
                    .append(p.files()).append(" files, ").append(p.bytes()).append(" bytes, ")
                    .append(p.smallFiles()).append(" small\n");
        }
        out.append("  positions (txn app id: next offset):\n");
        for (Position p : positions) {
            out.append("    ").append(p.appId()).append(": ").append(p.tableOffset());
            if (p.endOffset() != null) {
                out.append(", end offset ").append(p.endOffset()).append(", lag ").append(p.lag());
            }
            out.append('\n');
        }
        out.append("  last commits:\n");
        for (CommitSummary c : commits) {
            out.append("    ").append(c.version()).append(' ').append(Instant.ofEpochMilli(c.timestamp())).append(' ')
                    .append(c.operation()).append(": ").append(c.rowsAdded()).append(" rows, +")
                    .append(c.filesAdded()).append(" -").append(c.filesRemoved()).append(" files\n");
        }
        return out.toString();
    }
}
