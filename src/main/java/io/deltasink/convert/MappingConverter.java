package io.deltasink.convert;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;

import io.deltasink.model.ColumnType;
import io.deltasink.model.RowSchema;

/**
 * Converts records to rows by a {@link ColumnMapping}. The record value may be a Connect
 * {@code Struct}, a {@code Map} (schemaless JSON), or JSON text as a {@code String} or UTF-8
 * {@code byte[]}; paths descend through all of these and through fields holding JSON text.
 *
 * <p>A missing field, or null on the way, gives null, which is an error only for a NOT NULL
 * column; a path through a scalar is an error. Every value that passes is one any Delta reader
 * can hold: timestamps and dates in years 0001 to 9999, text that is valid Unicode, numbers in
 * timestamp columns read in an explicit unit. Every failure is a {@link RecordConversionException}
 * naming the record, the column and the value. {@link #convert} keeps no state between calls
 * but the {@code @now} columns' values at the clock's last time, a function of that time; a
 * converter may be shared by threads.
 *
 * <p>JSON text (a String or byte[] value) is read by a streaming parser into the columns' source
 * values without a tree ({@link StreamingPaths}); what that pass does not take (bad text, a wanted
 * key given twice, a path through a scalar) is resolved through trees as every other value is, so
 * both give the same rows and the same messages.
 */
public final class MappingConverter implements RecordConverter {
    private final RowSchema schema;
    private final Clock clock;
    private final Json json;
    private final FieldTree fields;
    /** Resolves the fields in JSON text without a tree; null to read every value through trees. */
    private final StreamingPaths streaming;
    private final Source[] sources;
    private final Coercions.Coercion[] coercions;
    /** Per column, {@link Coercions#common}'s code: not OTHER, the coercion is a direct call. */
    private final int[] common;
    private final String[] nullProblems;
    /** Sources read as text before the column's type applies: the key and headers. */
    private final boolean[] textFirst;
    private final int[] derived;
    private final int[] derivedFrom;
    private final boolean usesNow;
    /** The {@code @now} columns' values at the last time seen ({@link #nowValues}); replaced whole, never changed. */
    private NowValues nowMemo;

    /**
     * @param mapping a parsed mapping (not the {@value ColumnMapping#AUTO} placeholder: derive
     *                one with {@link AutoMapping#derive} first)
     * @param clock   the time of processing for {@code @now} (a task's {@link BatchClock} shows one per batch)
     */
    public MappingConverter(ColumnMapping mapping, Clock clock) {
        this(mapping, clock, EpochUnit.NONE);
    }

    /**
     * @param numericUnit the unit of numbers in timestamp columns whose type names none
     *                    ({@code timestamp.numeric.unit})
     */
    public MappingConverter(ColumnMapping mapping, Clock clock, EpochUnit numericUnit) {
        this(mapping, clock, numericUnit, new Json(), true);
    }

    /** A converter that reads JSON text through trees only (parsed by {@code json}), as every value was before streaming. */
    MappingConverter(ColumnMapping mapping, Clock clock, Json json) {
        this(mapping, clock, EpochUnit.NONE, json, false);
    }

    /**
     * @param stream true to resolve paths in JSON text (a String or byte[] value) with a
     *               streaming parser, falling back to trees for whatever it does not take
     *               ({@link StreamingPaths}); false to use trees only
     */
    MappingConverter(ColumnMapping mapping, Clock clock, EpochUnit numericUnit, Json json, boolean stream) {
        Objects.requireNonNull(mapping, "mapping");
        if (mapping.isAuto()) {
            throw new IllegalArgumentException(
                    "columns=auto has no columns yet: derive a mapping from the first record with AutoMapping.derive");
        }
        this.clock = Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(numericUnit, "numericUnit");
        this.json = json;
        this.schema = mapping.schema();
        List<ColumnSpec> specs = mapping.specs();
        int n = specs.size();
        this.fields = FieldTree.build(specs);
        this.streaming = stream && fields != null ? new StreamingPaths(fields, json, true) : null;
        this.sources = new Source[n];
        this.coercions = new Coercions.Coercion[n];
        this.common = new int[n];
        this.nullProblems = new String[n];
        this.textFirst = new boolean[n];
        int derivedCount = (int) specs.stream().filter(s -> s.source() instanceof Source.DateOf).count();
        this.derived = new int[derivedCount];
        this.derivedFrom = new int[derivedCount];
        boolean now = false;
        for (int i = 0, d = 0; i < n; i++) {
            ColumnSpec spec = specs.get(i);
            sources[i] = spec.source();
            coercions[i] = Coercions.of(spec, numericUnit, json);
            common[i] = Coercions.common(spec.column().type());
            // only a column that takes no null has a message for one
            nullProblems[i] = schema.column(i).nullable() ? null : nullProblem(spec.source());
            textFirst[i] = spec.source() instanceof Source.Meta m && m.isText();
            if (spec.source() instanceof Source.DateOf dateOf) {
                derived[d] = i;
                derivedFrom[d++] = schema.indexOf(dateOf.column());
            }
            now |= spec.source() instanceof Source.Meta m && m.kind() == Source.Meta.Kind.NOW;
        }
        this.usesNow = now;
    }

    private static String nullProblem(Source source) {
        if (source instanceof Source.Field f) {
            return f.path().isEmpty() ? "required value is missing" : "required field '" + f.pathText() + "' is missing";
        }
        if (source instanceof Source.DateOf d) {
            return "required column is null because column '" + d.column() + "' is null";
        }
        return "required " + source.text() + " is missing";
    }

    @Override
    public RowSchema schema() {
        return schema;
    }

    @Override
    public Object[] convert(SinkRecord record) {
        if (record.value() == null) {
            throw new RecordConversionException(record, null, null, "value is null (a tombstone) and gives no row");
        }
        try {
            return convertValue(record);
        } catch (RecordConversionException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new RecordConversionException(record, null, null, "unexpected failure: " + e, e);
        }
    }

    private Object[] convertValue(SinkRecord record) {
        int n = sources.length;
        Object[] row = new Object[n];
        if (fields != null) {
            Object value = record.value();
            if (streaming == null || !(value instanceof String || value instanceof byte[])
                    || !streaming.resolve(record, value, row)) {
                Arrays.fill(row, null);
                fields.resolve(record, value, json, row);
            }
        }
        Instant now = usesNow ? clock.instant() : null;
        Object[] nowValues = usesNow ? nowValues(now) : null;
        for (int i = 0; i < n; i++) {
            Source source = sources[i];
            if (source instanceof Source.DateOf) {
                continue;
            }
            if (source instanceof Source.Meta m) {
                if (nowValues != null && nowValues[i] != null) {
                    row[i] = nowValues[i]; // @now's value, coerced for an earlier record at the same time
                    continue;
                }
                row[i] = metadata(record, m, now);
            }
            Object in = row[i];
            if (in != null) {
                try {
                    row[i] = coerce(i, in);
                } catch (BadValueException e) {
                    throw new RecordConversionException(record, schema.column(i).name(), in,
                            sourceLabel(source) + ": " + e.getMessage());
                }
            }
            checkNull(record, i, row[i]);
        }
        for (int d = 0; d < derived.length; d++) {
            int i = derived[d];
            row[i] = dateOf(row[derivedFrom[d]], schema.column(i).type());
            checkNull(record, i, row[i]);
        }
        return row;
    }

    /** A source value as column {@code i} holds it. */
    private Object coerce(int i, Object in) throws BadValueException {
        Object v = textFirst[i] ? Coercions.text(in, json) : in;
        return common[i] != Coercions.OTHER ? Coercions.applyCommon(common[i], v, json) : coercions[i].apply(v);
    }

    /**
     * The values of the {@code @now} columns at {@code now} (null in the other columns, and in an
     * {@code @now} column whose type refuses the time: each record then meets the failure itself),
     * coerced once per time the clock shows: the batch clock of a task shows one time per batch.
     */
    private Object[] nowValues(Instant now) {
        NowValues memo = nowMemo;
        if (memo == null || memo.at() != now) {
            Object[] values = new Object[sources.length];
            for (int i = 0; i < values.length; i++) {
                if (sources[i] instanceof Source.Meta m && m.kind() == Source.Meta.Kind.NOW) {
                    try {
                        values[i] = coerce(i, now);
                    } catch (BadValueException e) {
                        // left null: each record meets the failure itself, with its own coordinates
                    }
                }
            }
            memo = new NowValues(now, values);
            nowMemo = memo;
        }
        return memo.values();
    }

    /** The {@code @now} columns' values at one time; immutable once made (final fields publish it whole). */
    private record NowValues(Instant at, Object[] values) {
    }

    private void checkNull(SinkRecord record, int i, Object value) {
        if (value == null && nullProblems[i] != null) {
            throw new RecordConversionException(record, schema.column(i).name(), null, nullProblems[i]);
        }
    }

    private static String sourceLabel(Source source) {
        if (source instanceof Source.Field f && !f.raw()) {
            return f.path().isEmpty() ? "value" : "field '" + f.pathText() + "'";
        }
        return source.text();
    }

    private Object metadata(SinkRecord record, Source.Meta m, Instant now) {
        switch (m.kind()) {
            case TOPIC:
                return record.topic();
            case PARTITION:
                return record.kafkaPartition();
            case OFFSET:
                return record.kafkaOffset();
            case TIMESTAMP:
                return record.timestamp() == null ? null : Instant.ofEpochMilli(record.timestamp());
            case KEY:
                return record.key();
            case HEADER:
                Header h = record.headers() == null ? null : record.headers().lastWithName(m.header());
                return h == null ? null : h.value();
            case NOW:
                return now;
            default:
                throw new IllegalStateException("unhandled metadata " + m.kind());
        }
    }

    /** The UTC date (days since epoch) of a converted timestamp (micros) or date (days) value. */
    private static Object dateOf(Object source, ColumnType target) {
        if (source == null) {
            return null;
        }
        int days = source instanceof Long micros
                ? (int) Math.floorDiv(micros, Timestamps.MICROS_PER_DAY)
                : (Integer) source;
        return target == ColumnType.STRING ? LocalDate.ofEpochDay(days).toString() : (Object) days;
    }
}
