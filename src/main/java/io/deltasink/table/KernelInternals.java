package io.deltasink.table;

import io.delta.kernel.data.Row;
import io.delta.kernel.internal.actions.SetTransaction;
import io.delta.kernel.internal.actions.SingleAction;
import java.util.Objects;
import java.util.Optional;

/**
 * The one place that uses Kernel's internal classes ({@code io.delta.kernel.internal.*}), so a
 * Kernel upgrade that moves them breaks here and nowhere else.
 *
 * <p>Why internals are needed: a commit must carry one {@code txn} action per Kafka partition it
 * wrote, but Kernel's public {@code withTransactionId} keeps only one per transaction (a second
 * call replaces the first). Kernel writes whatever action rows are handed to
 * {@code Transaction.commit}, so extra {@code txn} rows built here travel with the add actions.
 */
final class KernelInternals {

    private KernelInternals() {
    }

    /**
     * A log action row (Kernel's single-action schema) holding one {@code txn} action.
     *
     * @param appId       application id, e.g. {@code connector/topic/0}
     * @param version     the application's version (here: the next Kafka offset to consume), or
     *                    {@link TableSnapshot#NO_POSITION}
     * @param lastUpdated epoch milliseconds of the commit
     */
    static Row txnAction(String appId, long version, long lastUpdated) {
        Objects.requireNonNull(appId, "appId");
        if (version < 0 && version != TableSnapshot.NO_POSITION) {
            throw new IllegalArgumentException("txn version of '" + appId + "' must not be negative: " + version);
        }
        SetTransaction txn = new SetTransaction(appId, version, Optional.of(lastUpdated));
        return SingleAction.createTxnSingleAction(txn.toRow());
    }
}
