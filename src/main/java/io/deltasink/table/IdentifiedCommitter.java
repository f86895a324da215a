package io.deltasink.table;

import io.delta.kernel.commit.CommitFailedException;
import io.delta.kernel.commit.CommitMetadata;
import io.delta.kernel.commit.CommitResponse;
import io.delta.kernel.commit.Committer;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.utils.CloseableIterator;

/**
 * Kernel's file-system committer, noting the identity of each commit it is asked to write: the
 * version and the {@code txnId} of its commitInfo. When a write reports failure, the caller reads
 * the commit at that version and compares ids (see {@link DeltaTable}).
 *
 * <p>One instance per {@link DeltaTable}; the table commits one transaction at a time.
 */
final class IdentifiedCommitter implements Committer {

    /** What the last commit attempt wrote: its version and commitInfo.txnId (null when it carried none). */
    record Attempt(long version, String commitId) {

        /** What the commit found at the attempt's version says about the attempt. */
        enum Verdict {
            /** The commit there is this attempt: it landed. */
            OURS,
            /** Another writer's commit is there: nothing of this attempt is in the log. */
            ANOTHER_WRITERS,
            /** Nothing settles it: the attempt may be in the log, or may still land. */
            UNKNOWN
        }

        /**
         * An attempt without an id cannot recognise its own commit, so whatever is found it is never
         * taken for another writer's: that would fence its batch and delete data files the commit at
         * that version may name.
         *
         * @param found the commitInfo.txnId of the commit file at {@link #version()}: empty when that
         *              commit carries none, null when there is no such file
         */
        Verdict judge(String found) {
            if (found == null || commitId == null) {
                return Verdict.UNKNOWN;
            }
            return found.equals(commitId) ? Verdict.OURS : Verdict.ANOTHER_WRITERS;
        }
    }

    private final Committer delegate = KernelInternals.fileSystemCommitter();
    private volatile Attempt last;

    @Override
    public CommitResponse commit(Engine engine, CloseableIterator<Row> actions, CommitMetadata metadata)
            throws CommitFailedException {
        last = new Attempt(metadata.getVersion(), KernelInternals.commitId(metadata));
        return delegate.commit(engine, actions, metadata);
    }

    /** Forgets the last attempt: called before each transaction commit. */
    void reset() {
        last = null;
    }

    /** The attempt the last transaction commit handed to storage, or null when it never got that far. */
    Attempt last() {
        return last;
    }
}
