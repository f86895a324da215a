package io.deltasink.table;

import static io.deltasink.table.IdentifiedCommitter.Attempt.Verdict.ANOTHER_WRITERS;
import static io.deltasink.table.IdentifiedCommitter.Attempt.Verdict.OURS;
import static io.deltasink.table.IdentifiedCommitter.Attempt.Verdict.UNKNOWN;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

import io.deltasink.table.IdentifiedCommitter.Attempt;

/**
 * What the commit read back at a failed attempt's version says about the attempt: the id found
 * there is a commitInfo.txnId, empty for a commit that carries none, null when there is no commit
 * file at that version.
 */
class IdentifiedCommitterTest {
    private static final String MINE = "0b6b4d4e-3a43-4c1e-9a55-2f7d8f1c6a10";
    private static final String THEIRS = "e51f3c2a-77d0-4f6b-8d7c-9c0e2b4a1d33";

    @Test
    void anAttemptIsOursOnlyWhenItsOwnIdIsFoundAtItsVersion() {
        Attempt attempt = new Attempt(7, MINE);
        assertEquals(OURS, attempt.judge(MINE));
        assertEquals(ANOTHER_WRITERS, attempt.judge(THEIRS));
        assertEquals(ANOTHER_WRITERS, attempt.judge(""), "a commit without an id is not ours: ours carry one");
        assertEquals(UNKNOWN, attempt.judge(null), "no commit there (yet): a write whose answer was lost may land");
    }

    @Test
    void anAttemptWithoutAnIdIsNeverTakenForAnotherWritersCommit() {
        // taken for another writer's, the batch would be fenced and its data files deleted, while the
        // commit at that version may be this very attempt and name them
        Attempt attempt = new Attempt(7, null);
        for (String found : Arrays.asList(THEIRS, "", null)) {
            assertEquals(UNKNOWN, attempt.judge(found), "commit id found: " + found);
        }
    }
}
