package io.deltasink.write;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.parquet.schema.MessageType;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;

/**
 * Writes our {@code Object[]} rows (values in the forms listed on {@link ColumnType}) to the
 * file's column buffers ({@link ColumnChunkBuffer}), one value per column and row: the schema is flat, so every value has
 * repetition level 0 and definition level 1 (0 for a null, which only an optional column takes).
 * Only the data columns are written; the partition columns live in the folder names. Rows must have
 * passed {@link RowChecker} first.
 */
final class RowColumns {
    /** The writer's name in the file's key-value metadata ({@code writer.model.name}). */
    static final String WRITER_NAME = "delta-sink";

    private static final int STRING = 0;
    private static final int INT = 1;
    private static final int SHORT = 2;
    private static final int BYTE = 3;
    private static final int LONG = 4;
    private static final int DOUBLE = 5;
    private static final int FLOAT = 6;
    private static final int BOOLEAN = 7;
    private static final int BINARY = 8;
    private static final int DECIMAL_INT = 9;
    private static final int DECIMAL_LONG = 10;
    private static final int DECIMAL_FIXED = 11;

    private final MessageType schema;
    /** Scratch arrays for encoding a page, shared by the files written with these columns (one thread). */
    private final ColumnChunkBuffer.PageScratch scratch = new ColumnChunkBuffer.PageScratch();
    private final int[] rowIndexes;
    private final int[] kinds;
    private final int[] decimalBytes;

    /**
     * @param dataColumns the columns stored in the file, in file order
     * @param rowIndexes  for each data column, its index in the row array
     */
    RowColumns(List<Column> dataColumns, int[] rowIndexes) {
        if (dataColumns.size() != rowIndexes.length) {
            throw new IllegalArgumentException("one row index per data column needed");
        }
        this.schema = ParquetSchemas.messageType(dataColumns);
        this.rowIndexes = rowIndexes.clone();
        this.kinds = new int[rowIndexes.length];
        this.decimalBytes = new int[rowIndexes.length];
        for (int i = 0; i < kinds.length; i++) {
            Column c = dataColumns.get(i);
            kinds[i] = kind(c);
            if (kinds[i] == DECIMAL_FIXED) {
                decimalBytes[i] = ParquetSchemas.decimalBytes(c.precision());
            }
        }
    }

    MessageType schema() {
        return schema;
    }

    ColumnChunkBuffer.PageScratch scratch() {
        return scratch;
    }

    /**
     * Writes one row's values to {@code columns}, the buffers of the file's columns in file order.
     *
     * @return the bytes of the row's strings and binary values
     */
    long write(Object[] row, ColumnChunkBuffer[] columns) throws IOException {
        long varBytes = 0;
        for (int i = 0; i < kinds.length; i++) {
            Object v = row[rowIndexes[i]];
            ColumnChunkBuffer c = columns[i];
            if (v == null) {
                c.writeNull(); // an optional column; RowChecker refused nulls in required ones
                continue;
            }
            switch (kinds[i]) {
                // a fresh array nobody changes: kept without a copy (dictionary, statistics)
                case STRING -> {
                    byte[] utf8 = ((String) v).getBytes(StandardCharsets.UTF_8);
                    varBytes += utf8.length;
                    c.writeBinary(utf8, true);
                }
                case INT -> c.writeInt((Integer) v);
                case SHORT -> c.writeInt((Short) v);
                case BYTE -> c.writeInt((Byte) v);
                case LONG -> c.writeLong((Long) v);
                case DOUBLE -> c.writeDouble((Double) v);
                case FLOAT -> c.writeFloat((Float) v);
                case BOOLEAN -> c.writeBoolean((Boolean) v);
                // the caller owns the array: copied where kept
                case BINARY -> {
                    varBytes += ((byte[]) v).length;
                    c.writeBinary((byte[]) v, false);
                }
                case DECIMAL_INT -> c.writeInt(((BigDecimal) v).unscaledValue().intValueExact());
                case DECIMAL_LONG -> c.writeLong(((BigDecimal) v).unscaledValue().longValueExact());
                default -> c.writeBinary(fixedBytes(((BigDecimal) v).unscaledValue(), decimalBytes[i]), true);
            }
        }
        return varBytes;
    }

    private static int kind(Column c) {
        return switch (c.type()) {
            case STRING -> STRING;
            case INT, DATE -> INT;
            case SHORT -> SHORT;
            case BYTE -> BYTE;
            case LONG, TIMESTAMP -> LONG;
            case DOUBLE -> DOUBLE;
            case FLOAT -> FLOAT;
            case BOOLEAN -> BOOLEAN;
            case BINARY -> BINARY;
            case DECIMAL -> switch (ParquetSchemas.decimalPhysicalType(c.precision())) {
                case INT32 -> DECIMAL_INT;
                case INT64 -> DECIMAL_LONG;
                default -> DECIMAL_FIXED;
            };
            case STRUCT, ARRAY, MAP -> throw new IllegalArgumentException("column '" + c.name()
                    + "' is " + c.deltaTypeName() + "; tables with nested columns are written by NestedFileWriter");
        };
    }

    /** Big-endian two's complement of {@code unscaled}, sign-extended to exactly {@code length} bytes. */
    static byte[] fixedBytes(BigInteger unscaled, int length) {
        byte[] minimal = unscaled.toByteArray();
        if (minimal.length > length) {
            throw new IllegalArgumentException("unscaled decimal " + unscaled + " needs more than " + length + " bytes");
        }
        byte[] out = new byte[length];
        byte pad = (byte) (unscaled.signum() < 0 ? 0xFF : 0x00);
        int offset = length - minimal.length;
        for (int k = 0; k < offset; k++) {
            out[k] = pad;
        }
        System.arraycopy(minimal, 0, out, offset, minimal.length);
        return out;
    }
}
