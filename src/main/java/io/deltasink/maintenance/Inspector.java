package io.deltasink.maintenance;

import java.time.Clock;

import io.deltasink.storage.StorageSettings;

/** Reads a table's state for people and machines: see {@link TableReport}. The caller owns {@code storage}. */
public final class Inspector {

    public Inspector(StorageSettings storage, Clock clock) {
        throw new UnsupportedOperationException("contract: implemented on the vacuum branch");
    }

    /** Throws when there is no table at the location or it cannot be read. */
    public TableReport inspect(InspectOptions options) {
        throw new UnsupportedOperationException("contract: implemented on the vacuum branch");
    }
}
