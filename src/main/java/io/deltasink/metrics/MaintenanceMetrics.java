package io.deltasink.metrics;

/**
 * What the connector's table upkeep (compaction, vacuum) reports, one method per event; kept apart
 * from {@link SinkMetrics} because a background thread of one task reports it, not the write path.
 * Implementations: {@link PluginMaintenanceMetrics} and {@link #NOOP}.
 */
public interface MaintenanceMetrics {

    /** The table's data files, and those below the small-file size, after a run. */
    void tableFiles(long files, long smallFiles);

    /** A compaction committed: files it replaced and the bytes it read and rewrote. */
    void compacted(long filesRemoved, long bytesRewritten);

    /** A vacuum deleted files. */
    void vacuumed(long filesDeleted);

    /** A run (compaction and/or vacuum) finished at {@code finishedAtMs} (epoch ms) after {@code millis}. */
    void runFinished(long finishedAtMs, long millis);

    /** A compaction or vacuum failed (logged once); ingestion went on. */
    void runFailed();

    MaintenanceMetrics NOOP = new MaintenanceMetrics() {
        @Override
        public void tableFiles(long files, long smallFiles) {
        }

        @Override
        public void compacted(long filesRemoved, long bytesRewritten) {
        }

        @Override
        public void vacuumed(long filesDeleted) {
        }

        @Override
        public void runFinished(long finishedAtMs, long millis) {
        }

        @Override
        public void runFailed() {
        }
    };
}
