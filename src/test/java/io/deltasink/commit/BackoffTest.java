package io.deltasink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void theFirstWaitIsTheBaseAndEachFailureDoublesIt() {
        List<Long> waits = new ArrayList<>();
        for (int failures = 0; failures < 6; failures++) {
            waits.add(Backoff.delay(100, failures));
        }
        assertEquals(List.of(100L, 200L, 400L, 800L, 1_600L, 3_200L), waits);
    }

    @Test
    void theWaitStopsGrowingAtThirtySeconds() {
        assertEquals(25_600, Backoff.delay(100, 8));
        assertEquals(30_000, Backoff.MAX_MS);
        assertEquals(Backoff.MAX_MS, Backoff.delay(100, 9));
        assertEquals(Backoff.MAX_MS, Backoff.delay(100, 100));
        assertEquals(Backoff.MAX_MS, Backoff.delay(60_000, 0), "a base above the cap is capped too");
    }

    @Test
    void manyFailuresInARowNeitherOverflowNorShrinkTheWait() {
        // the largest base commit.retry.backoff.ms allows, after as many failures as an int counts
        for (int failures : new int[] {16, 17, 63, 64, 1_000, Integer.MAX_VALUE}) {
            assertEquals(Backoff.MAX_MS, Backoff.delay(60_000, failures), "after " + failures + " failures");
            assertEquals(Backoff.MAX_MS, Backoff.delay(1, failures), "base 1 ms after " + failures + " failures");
        }
    }

    @Test
    void aNegativeFailureCountWaitsTheBase() {
        assertEquals(100, Backoff.delay(100, -1));
        assertEquals(100, Backoff.delay(100, Integer.MIN_VALUE));
    }
}
