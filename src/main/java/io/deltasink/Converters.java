package io.deltasink;

import java.time.Clock;

import org.apache.kafka.connect.sink.SinkRecord;

import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.AutoMapping;
import io.deltasink.convert.ColumnMapping;
import io.deltasink.convert.ConverterFactory;
import io.deltasink.convert.EpochUnit;
import io.deltasink.convert.MappingConverter;
import io.deltasink.convert.RecordConverter;
import io.deltasink.model.RowSchema;

/**
 * Builds the record converter a task uses: from the mapping; in 'auto' mode from the existing
 * table's columns, or from the first record while there is no table.
 */
public final class Converters {
    private Converters() {
    }

    public static ConverterFactory factory(DeltaSinkConfig config, Clock clock) {
        EpochUnit unit = EpochUnit.parse(config.timestampNumericUnit());
        if (config.autoColumns()) {
            return new ConverterFactory() {
                @Override
                public RecordConverter create(SinkRecord first) {
                    return first == null ? null : new MappingConverter(AutoMapping.derive(first), clock, unit);
                }

                @Override
                public RecordConverter forTable(RowSchema tableColumns) {
                    return AutoMapping.forTable(tableColumns, clock, unit);
                }
            };
        }
        ColumnMapping mapping = ColumnMapping.parse(config.columns(), config.notNullColumns());
        return ignored -> new MappingConverter(mapping, clock, unit);
    }
}
