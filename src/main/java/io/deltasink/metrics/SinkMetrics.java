package io.deltasink.metrics;

/**
 * What the connector reports, one method per event. Implementations: {@link PluginSinkMetrics}
 * (the worker's plugin metrics, visible over JMX next to Connect's own) and {@link #NOOP}.
 */
public interface SinkMetrics {

    /** A batch landed as one Delta commit. */
    void committed(int files, long rows, long millis, int attempts);

    /** A batch was refused because another writer moved its partitions. */
    void fenced();

    /** A batch was dropped after a storage or commit failure; its records are read again. */
    void batchDropped();

    /** A record could not be converted and went to the errant record reporter (or was logged). */
    void badRecord();

    /** A record with a null value was skipped. */
    void tombstone();

    /**
     * A record was skipped as already in the table although the partition's log had restarted below
     * the table position (topic created again, log truncated).
     */
    void skippedBelowPosition();

    SinkMetrics NOOP = new SinkMetrics() {
        @Override
        public void committed(int files, long rows, long millis, int attempts) {
        }

        @Override
        public void fenced() {
        }

        @Override
        public void batchDropped() {
        }

        @Override
        public void badRecord() {
        }

        @Override
        public void tombstone() {
        }

        @Override
        public void skippedBelowPosition() {
        }
    };
}
