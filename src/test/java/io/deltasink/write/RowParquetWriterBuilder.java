package io.deltasink.write;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.OutputFile;

/** Builds a {@link ParquetWriter} for our rows around one {@link RowWriteSupport}. */
final class RowParquetWriterBuilder extends ParquetWriter.Builder<Object[], RowParquetWriterBuilder> {
    private final RowWriteSupport writeSupport;

    RowParquetWriterBuilder(OutputFile file, RowWriteSupport writeSupport) {
        super(file);
        this.writeSupport = writeSupport;
    }

    @Override
    protected RowParquetWriterBuilder self() {
        return this;
    }

    @Override
    protected WriteSupport<Object[]> getWriteSupport(Configuration conf) {
        return writeSupport;
    }

    @Override
    protected WriteSupport<Object[]> getWriteSupport(ParquetConfiguration conf) {
        return writeSupport;
    }
}
