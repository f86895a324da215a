package io.deltasink.maintenance;

/**
 * A table's state: version, protocol, schema, partition columns, files and bytes per table
 * partition (and how many are small), txn app ids and versions (with Kafka end offsets and lag when
 * asked), the last commits. Its components are the vacuum branch's to define; callers use
 * {@link #toText()} and JSON serialization of the record.
 */
public record TableReport(String location, long version) {

    /** A human-readable report (the command's text output). */
    public String toText() {
        throw new UnsupportedOperationException("contract: implemented on the vacuum branch");
    }
}
