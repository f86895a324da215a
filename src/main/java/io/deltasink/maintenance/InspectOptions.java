package io.deltasink.maintenance;

import java.util.Map;

/**
 * What to report. Build with {@link #defaults()} and the {@code with} methods.
 *
 * @param smallFileBytes files below this size are counted as small (by default what compaction calls small)
 * @param lastCommits    how many of the latest commits to list
 * @param kafka          Kafka client settings (at least bootstrap.servers) to report each partition's
 *                       end offset and lag beside the table's position; empty: no lag
 * @param connectorName  the connector whose txn app ids map to Kafka partitions (for the lag); may be null
 * @param appIdTemplate  that connector's txn.app.id.template; null: the default template
 */
public record InspectOptions(long smallFileBytes, int lastCommits, Map<String, Object> kafka, String connectorName,
                             String appIdTemplate) {

    /** Small below 8 MiB (the writer's files of a 60 s commit interval are far below), the last 10 commits, no Kafka. */
    public static InspectOptions defaults() {
        return new InspectOptions(CompactionOptions.defaults().smallFileBytes(), 10, Map.of(), null, null);
    }

    public InspectOptions withSmallFileBytes(long bytes) {
        return new InspectOptions(bytes, lastCommits, kafka, connectorName, appIdTemplate);
    }

    public InspectOptions withLastCommits(int count) {
        return new InspectOptions(smallFileBytes, count, kafka, connectorName, appIdTemplate);
    }

    public InspectOptions withKafka(Map<String, Object> settings, String connector, String template) {
        return new InspectOptions(smallFileBytes, lastCommits, settings, connector, template);
    }
}
