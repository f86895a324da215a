package io.deltasink.table;

import java.util.List;

/**
 * A table's protocol action: what a reader and a writer must support.
 *
 * @param readerFeatures sorted; empty below reader version 3
 * @param writerFeatures sorted; empty below writer version 7
 */
public record TableProtocol(int minReaderVersion, int minWriterVersion, List<String> readerFeatures,
                            List<String> writerFeatures) {
}
