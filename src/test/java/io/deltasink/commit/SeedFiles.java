package io.deltasink.commit;

import java.time.Clock;
import java.util.List;

import org.apache.hadoop.conf.Configuration;

import io.deltasink.convert.ColumnMapping;
import io.deltasink.convert.MappingConverter;
import io.deltasink.model.DataFile;
import io.deltasink.storage.StorageSettings;
import io.deltasink.testing.SensorEvents;
import io.deltasink.testing.SinkRecords;
import io.deltasink.write.PartitionedWriter;
import io.deltasink.write.WriterSettings;

/** Data files of seed events in a table partitioned by device_type, for tests that commit them by hand. */
final class SeedFiles {
    private SeedFiles() {
    }

    /** The converter of {@link SinkSessionTest#COLUMNS}, whose schema the files have. */
    static MappingConverter converter() {
        return new MappingConverter(ColumnMapping.parse(SinkSessionTest.COLUMNS), Clock.systemUTC());
    }

    /** Writes the seed events {@code from .. from + count - 1} of topic "t", partition {@code partition}, and closes the files. */
    static List<DataFile> write(StorageSettings storage, MappingConverter converter, int partition, long from, int count)
            throws Exception {
        PartitionedWriter w = new PartitionedWriter(WriterSettings.defaults(), converter.schema(), List.of("device_type"),
                storage.tablePath(), new Configuration(), Clock.systemUTC());
        for (long i = from; i < from + count; i++) {
            w.write(converter.convert(SinkRecords.of("t", partition, i, SensorEvents.event(i).json())));
        }
        return w.finish();
    }
}
