package io.deltasink.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

class CeilingLineTest {
    @Test
    void eachRunIsSetAgainstTheMedianOfTheCeilingRunsBeforeAndAfter() {
        // an even count: the median is the mean of the two middle rates, whatever their order
        assertEquals("a sink that drops the records (WorkerCeilingBench), before the runs above: 305,000 / 300,000, "
                        + "after them: 310,000 / 295,000 events/s, median 302,500; the runs above at 0.50 / 0.66 of it",
                ThroughputBench.ceilingLine(List.of(305_000.0, 300_000.0), List.of(310_000.0, 295_000.0),
                        List.of(151_250.0, 199_650.0)));
    }

    @Test
    void anOddCountTakesTheMiddleRate() {
        assertEquals("a sink that drops the records (WorkerCeilingBench), before the runs above: 230,000, after them: "
                        + "200,000 / 240,000 events/s, median 230,000; the runs above at 0.52 of it",
                ThroughputBench.ceilingLine(List.of(230_000.0), List.of(200_000.0, 240_000.0), List.of(119_600.0)));
    }
}
