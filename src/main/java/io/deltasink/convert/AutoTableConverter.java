package io.deltasink.convert;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.connect.sink.SinkRecord;

import io.deltasink.model.Column;
import io.deltasink.model.RowSchema;

/**
 * {@code columns=auto} against an existing table: the rows have exactly the table's columns and
 * types, whatever shape a record has. Where a column's value sits in a record is learnt from the
 * records, by the names {@link AutoMapping} gives their fields ({@code payload.power} ->
 * {@code payload_power}): until every column has been seen, each record's fields are named and
 * the columns found get their path; a column not seen yet is null in the rows (none of the
 * records so far had it). A value that does not fit its column's type, or a value that gives no
 * columns (not JSON, not an object), makes a bad record.
 *
 * <p>Not thread-safe (a task converts its records on one thread).
 */
final class AutoTableConverter implements RecordConverter {
    private final RowSchema schema;
    private final Clock clock;
    private final EpochUnit numericUnit;
    private final Map<String, List<String>> paths = new HashMap<>();
    private final Set<String> unseen = new LinkedHashSet<>();
    private MappingConverter delegate;

    AutoTableConverter(RowSchema schema, Clock clock, EpochUnit numericUnit) {
        this.schema = schema;
        this.clock = clock;
        this.numericUnit = numericUnit;
        for (Column c : schema.columns()) {
            unseen.add(c.name());
        }
        this.delegate = build();
    }

    @Override
    public RowSchema schema() {
        return schema;
    }

    @Override
    public Object[] convert(SinkRecord record) {
        if (!unseen.isEmpty()) {
            learn(record);
        }
        return delegate.convert(record);
    }

    /** Takes the paths of the still unseen columns that this record's fields give. */
    private void learn(SinkRecord record) {
        boolean found = false;
        for (ColumnSpec spec : AutoMapping.derive(record).specs()) {
            if (spec.source() instanceof Source.Field f && unseen.remove(spec.name())) {
                paths.put(spec.name(), f.path());
                found = true;
            }
        }
        if (found) {
            delegate = build();
        }
    }

    private MappingConverter build() {
        List<ColumnSpec> specs = new ArrayList<>();
        for (Column c : schema.columns()) {
            specs.add(new ColumnSpec(c, new Source.Field(paths.getOrDefault(c.name(), List.of(c.name())), false)));
        }
        return new MappingConverter(new ColumnMapping(specs), clock, numericUnit);
    }
}
