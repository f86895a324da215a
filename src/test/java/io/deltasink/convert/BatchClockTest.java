package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import io.deltasink.testing.SinkRecords;

/** {@code @now} through a {@link BatchClock}: one time per tick, each column's value made once per time. */
class BatchClockTest {
    private static final Instant START = Instant.parse("2026-06-22T10:00:00.000001Z");
    private static final String NOW_COLUMNS = "now:timestamp=@now, now_text:string=@now, id:string=id";

    /** A clock one microsecond later at every read, a new Instant each time. */
    private static final class Advancing extends Clock {
        private long reads;

        @Override
        public Instant instant() {
            return START.plusNanos(1_000 * reads++);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
        }
    }

    private static SinkRecord record(long offset) {
        return SinkRecords.of("t", 0, offset, "{\"id\":\"r" + offset + "\"}");
    }

    private static long micros(Instant i) {
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000;
    }

    @Test
    void theClockStandsStillBetweenTicks() {
        Advancing source = new Advancing();
        BatchClock clock = new BatchClock(source);
        Instant first = clock.instant();
        assertEquals(START, first);
        assertSame(first, clock.instant());
        assertSame(first, clock.instant());
        clock.tick();
        assertEquals(START.plusNanos(1_000), clock.instant());
        assertSame(clock, clock.withZone(ZoneOffset.UTC));
    }

    @Test
    void aViewInAnotherZoneSharesTheTicks() throws InterruptedException {
        BatchClock clock = new BatchClock(Clock.fixed(START, ZoneOffset.UTC));
        Clock paris = clock.withZone(ZoneId.of("Europe/Paris"));
        assertEquals(ZoneId.of("Europe/Paris"), paris.getZone());
        assertEquals(START, paris.instant());
        BatchClock moving = new BatchClock(Clock.systemUTC());
        Clock view = moving.withZone(ZoneId.of("Europe/Paris"));
        Instant before = view.instant();
        Thread.sleep(2);
        moving.tick();
        assertSame(moving.instant(), view.instant());
        assertNotEquals(before, view.instant()); // the tick read the clock again
    }

    @Test
    void recordsBetweenTwoTicksGetTheSameTimeAndTheNextTickANewOne() {
        BatchClock clock = new BatchClock(new Advancing());
        MappingConverter converter = new MappingConverter(ColumnMapping.parse(NOW_COLUMNS), clock);
        Object[] a = converter.convert(record(0));
        Object[] b = converter.convert(record(1));
        assertArrayEquals(new Object[] {micros(START), "2026-06-22T10:00:00.000001Z", "r0"}, a);
        assertArrayEquals(new Object[] {micros(START), "2026-06-22T10:00:00.000001Z", "r1"}, b);
        clock.tick();
        Object[] c = converter.convert(record(2));
        assertArrayEquals(new Object[] {micros(START) + 1, "2026-06-22T10:00:00.000002Z", "r2"}, c);
        assertArrayEquals(new Object[] {micros(START) + 1, "2026-06-22T10:00:00.000002Z", "r3"},
                converter.convert(record(3)));
    }

    @Test
    void aClockWithANewTimeAtEveryReadGivesEveryRecordItsOwn() {
        MappingConverter converter = new MappingConverter(ColumnMapping.parse(NOW_COLUMNS), new Advancing());
        for (int k = 0; k < 5; k++) {
            Object[] row = converter.convert(record(k));
            assertEquals(micros(START) + k, row[0], "record " + k);
            assertEquals(START.plusNanos(1_000L * k).toString(), row[1], "record " + k);
        }
    }

    @Test
    void aTimeTheColumnCannotHoldFailsEveryRecordAlike() {
        MappingConverter converter = new MappingConverter(ColumnMapping.parse("now:timestamp=@now, id:string=id"),
                Clock.fixed(Instant.parse("+10000-01-01T00:00:00Z"), ZoneOffset.UTC));
        RecordConversionException first = assertThrows(RecordConversionException.class, () -> converter.convert(record(0)));
        RecordConversionException second = assertThrows(RecordConversionException.class, () -> converter.convert(record(1)));
        assertEquals(first.getMessage().replace("t/0@0", "t/0@1"), second.getMessage());
        assertNotEquals(first.getMessage(), second.getMessage()); // each names its own record
    }
}
