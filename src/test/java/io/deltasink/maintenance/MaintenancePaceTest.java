package io.deltasink.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** When compaction and vacuum are due, on a clock the test moves. */
class MaintenancePaceTest {
    private static final long START = 1_000_000L;

    @Test
    void compactionEveryIntervalCountedFromTheStartOfTheLastRun() {
        MaintenancePace pace = new MaintenancePace(true, 60_000, 0, 0, START);
        assertFalse(pace.compactionDue(START + 59_999));
        assertTrue(pace.compactionDue(START + 60_000));
        pace.compactionStarted(START + 61_000);
        assertFalse(pace.compactionDue(START + 120_999));
        assertTrue(pace.compactionDue(START + 121_000));
        assertFalse(pace.vacuumDue(Long.MAX_VALUE - 1), "vacuum off");
    }

    @Test
    void compactionAfterNCommitsAloneWhenTheIntervalIsZero() {
        MaintenancePace pace = new MaintenancePace(true, 0, 3, 0, START);
        assertEquals(Long.MAX_VALUE, pace.nextDueAt(), "time never triggers it");
        pace.committed();
        pace.committed();
        assertFalse(pace.compactionDue(START + 10_000_000));
        pace.committed();
        assertTrue(pace.compactionDue(START));
        pace.compactionStarted(START);
        assertFalse(pace.compactionDue(START), "the count starts again with the run");
        pace.committed();
        pace.committed();
        pace.committed();
        assertTrue(pace.compactionDue(START));
    }

    @Test
    void whicheverComesFirstOfTimeAndCommits() {
        MaintenancePace pace = new MaintenancePace(true, 60_000, 5, 0, START);
        for (int i = 0; i < 5; i++) {
            pace.committed();
        }
        assertTrue(pace.compactionDue(START + 1), "5 commits before the interval");
        pace.compactionStarted(START + 1);
        assertTrue(pace.compactionDue(START + 60_001), "the interval before 5 commits");
    }

    @Test
    void aDailyVacuumFirstRunsWithinFiveMinutesOfTheStart() {
        MaintenancePace pace = new MaintenancePace(false, 60_000, 5, 86_400_000, START);
        assertFalse(pace.vacuumDue(START + MaintenancePace.FIRST_RUN_CAP_MS - 1));
        assertTrue(pace.vacuumDue(START + MaintenancePace.FIRST_RUN_CAP_MS));
        pace.vacuumStarted(START + MaintenancePace.FIRST_RUN_CAP_MS);
        assertFalse(pace.vacuumDue(START + MaintenancePace.FIRST_RUN_CAP_MS + 86_399_999));
        assertTrue(pace.vacuumDue(START + MaintenancePace.FIRST_RUN_CAP_MS + 86_400_000));
        for (int i = 0; i < 10; i++) {
            pace.committed();
        }
        assertFalse(pace.compactionDue(Long.MAX_VALUE - 1), "compaction off");
    }
}
