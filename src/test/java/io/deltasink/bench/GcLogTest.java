package io.deltasink.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

class GcLogTest {
    private static final List<String> LOG = List.of(
            "[0.012s][info][gc] Using G1",
            "[1.503s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 51M->9M(256M) 3.125ms",
            "[2.100s][info][gc] GC(1) Pause Young (Concurrent Start) (G1 Humongous Allocation) 120M->60M(256M) 10.500ms",
            "[2.200s][info][gc] GC(2) Concurrent Mark Cycle",
            "[2.300s][info][gc] GC(2) Pause Remark 130M->130M(256M) 1.000ms",
            "[2.310s][info][gc] GC(2) Pause Cleanup 131M->131M(256M) 0.100ms",
            "[2.400s][info][gc] GC(2) Concurrent Mark Cycle 200.123ms",
            "[9.000s][info][gc] GC(3) Pause Full (Diagnostic Command) 140M->28M(200M) 55.25ms");

    @Test
    void peakHeapAfterCollectionsAndTheSumOfAllPauses() {
        GcLog gc = GcLog.parse(LOG);
        assertEquals(140, gc.maxBefore());
        assertEquals(60, gc.maxAfter()); // remark and cleanup free nothing: not counted as "after"
        assertEquals(256, gc.maxCapacity());
        assertEquals(3, gc.collections());
        assertEquals(5, gc.pauses()); // the concurrent cycle is no pause
        assertEquals(3.125 + 10.5 + 1.0 + 0.1 + 55.25, gc.pauseMs(), 1e-9);
        assertEquals(List.of(28L), GcLog.fullGcHeapsAfter(LOG));
    }

    @Test
    void noPausesNoFigures() {
        GcLog gc = GcLog.parse(List.of("[0.012s][info][gc] Using G1"));
        assertEquals(new GcLog(0, 0, 0, 0, 0, 0), gc);
    }
}
