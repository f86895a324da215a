package io.deltasink.convert;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;

/**
 * The processing time of the batch being converted: a clock that stands still between two
 * {@link #tick()}s and then shows the time its source clock gave at the last one. The task ticks it
 * once per {@code put()}, so {@code @now} is one time for all records the worker handed over
 * together, as Spark's {@code current_timestamp()} is one time for all rows of a micro-batch, and the
 * source clock is read once per batch instead of once per record. Any thread may read it; ticks come
 * from one thread.
 */
public final class BatchClock extends Clock {
    private final Clock source;
    private final Tick tick;

    /** Starts at the source clock's time now. */
    public BatchClock(Clock source) {
        this(Objects.requireNonNull(source, "source"), new Tick(source.instant()));
    }

    private BatchClock(Clock source, Tick tick) {
        this.source = source;
        this.tick = tick;
    }

    /** Reads the source clock: {@link #instant()} gives that time until the next tick. */
    public void tick() {
        tick.now = source.instant();
    }

    @Override
    public Instant instant() {
        return tick.now;
    }

    @Override
    public ZoneId getZone() {
        return source.getZone();
    }

    /** The same ticks in another zone. */
    @Override
    public Clock withZone(ZoneId zone) {
        return zone.equals(getZone()) ? this : new BatchClock(source.withZone(zone), tick);
    }

    @Override
    public String toString() {
        return "BatchClock[" + source + ", " + tick.now + "]";
    }

    /** The time of the last tick, shared by the clock's views in other zones. */
    private static final class Tick {
        volatile Instant now;

        Tick(Instant now) {
            this.now = now;
        }
    }
}
