package io.deltasink.write;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;

/**
 * Writes our {@code Object[]} rows through Parquet's record API (a {@link RecordConsumer}), as the
 * connector did before it wrote to the column writers directly ({@link RowColumns}): the reference
 * the direct path's files are compared with, and the writer of {@code OpenFileMemoryBench}'s
 * Parquet-default files. Rows must have passed {@link RowChecker} first.
 */
final class RowWriteSupport extends WriteSupport<Object[]> {
    static final String WRITER_NAME = RowColumns.WRITER_NAME;

    private final MessageType schema;
    private final Column[] columns;
    private final int[] rowIndexes;
    private final int[] decimalBytes;
    private RecordConsumer consumer;

    /**
     * @param dataColumns the columns stored in the file, in file order
     * @param rowIndexes  for each data column, its index in the row array
     */
    RowWriteSupport(List<Column> dataColumns, int[] rowIndexes) {
        if (dataColumns.size() != rowIndexes.length) {
            throw new IllegalArgumentException("one row index per data column needed");
        }
        this.schema = ParquetSchemas.messageType(dataColumns);
        this.columns = dataColumns.toArray(new Column[0]);
        this.rowIndexes = rowIndexes.clone();
        this.decimalBytes = new int[columns.length];
        for (int i = 0; i < columns.length; i++) {
            Column c = columns[i];
            if (c.type() == ColumnType.DECIMAL
                    && ParquetSchemas.decimalPhysicalType(c.precision()) == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
                decimalBytes[i] = ParquetSchemas.decimalBytes(c.precision());
            }
        }
    }

    MessageType schema() {
        return schema;
    }

    @Override
    public WriteContext init(Configuration configuration) {
        return new WriteContext(schema, Map.of());
    }

    @Override
    public WriteContext init(ParquetConfiguration configuration) {
        return new WriteContext(schema, Map.of());
    }

    @Override
    public String getName() {
        return WRITER_NAME;
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
        this.consumer = recordConsumer;
    }

    @Override
    public void write(Object[] row) {
        consumer.startMessage();
        for (int i = 0; i < columns.length; i++) {
            Object v = row[rowIndexes[i]];
            if (v == null) {
                continue; // OPTIONAL field left out = null; REQUIRED nulls were refused by RowChecker
            }
            String name = columns[i].name();
            consumer.startField(name, i);
            writeValue(i, v);
            consumer.endField(name, i);
        }
        consumer.endMessage();
    }

    private void writeValue(int i, Object v) {
        switch (columns[i].type()) {
            case STRING -> consumer.addBinary(Binary.fromString((String) v));
            case INT, DATE -> consumer.addInteger((Integer) v);
            case SHORT -> consumer.addInteger((Short) v);
            case BYTE -> consumer.addInteger((Byte) v);
            case LONG, TIMESTAMP -> consumer.addLong((Long) v);
            case DOUBLE -> consumer.addDouble((Double) v);
            case FLOAT -> consumer.addFloat((Float) v);
            case BOOLEAN -> consumer.addBoolean((Boolean) v);
            // the caller owns the array: let Parquet copy what it keeps (dictionary, statistics)
            case BINARY -> consumer.addBinary(Binary.fromReusedByteArray((byte[]) v));
            case DECIMAL -> writeDecimal(i, (BigDecimal) v);
        }
    }

    private void writeDecimal(int i, BigDecimal d) {
        BigInteger unscaled = d.unscaledValue();
        int precision = columns[i].precision();
        if (precision <= 9) {
            consumer.addInteger(unscaled.intValueExact());
        } else if (precision <= 18) {
            consumer.addLong(unscaled.longValueExact());
        } else {
            consumer.addBinary(Binary.fromConstantByteArray(fixedBytes(unscaled, decimalBytes[i])));
        }
    }

    private static byte[] fixedBytes(BigInteger unscaled, int length) {
        return RowColumns.fixedBytes(unscaled, length);
    }
}
