package io.deltasink;

import java.time.Clock;
import java.util.function.Function;

import org.apache.kafka.connect.sink.SinkRecord;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.AutoMapping;
import io.deltasink.convert.ColumnMapping;
import io.deltasink.convert.EpochUnit;
import io.deltasink.convert.MappingConverter;
import io.deltasink.convert.RecordConverter;

/** Builds the record converter a task uses: from the mapping, or from the first record in 'auto' mode. */
final class Converters {
    private Converters() {
    }

    static Function<SinkRecord, RecordConverter> factory(DeltaSinkConfig config, Clock clock) {
        EpochUnit unit = EpochUnit.parse(config.timestampNumericUnit());
        if (config.autoColumns()) {
            return first -> first == null ? null : new MappingConverter(AutoMapping.derive(first), clock, unit);
        }
        ColumnMapping mapping = ColumnMapping.parse(config.columns(), config.notNullColumns());
        return ignored -> new MappingConverter(mapping, clock, unit);
    }
}
