package io.deltasink.write;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.DataFile;
import io.deltasink.model.RowSchema;

class ParquetRoundTripTest {
    static final RowSchema ALL_TYPES = new RowSchema(List.of(
            Column.of("id", ColumnType.INT, false),
            Column.of("s", ColumnType.STRING, true),
            Column.of("i", ColumnType.INT, true),
            Column.of("sh", ColumnType.SHORT, true),
            Column.of("by", ColumnType.BYTE, true),
            Column.of("l", ColumnType.LONG, true),
            Column.of("d", ColumnType.DOUBLE, true),
            Column.of("f", ColumnType.FLOAT, true),
            Column.of("b", ColumnType.BOOLEAN, true),
            Column.of("bin", ColumnType.BINARY, true),
            Column.of("dt", ColumnType.DATE, true),
            Column.of("ts", ColumnType.TIMESTAMP, true),
            new Column("dec9", ColumnType.DECIMAL, 9, 2, true),
            new Column("dec18", ColumnType.DECIMAL, 18, 4, true),
            new Column("dec38", ColumnType.DECIMAL, 38, 10, true),
            new Column("dec20", ColumnType.DECIMAL, 20, 0, false)));

    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-06-22T10:00:00Z"), ZoneOffset.UTC);

    @TempDir
    Path dir;

    PartitionedWriter writer(RowSchema schema) throws Exception {
        return new PartitionedWriter(WriterSettings.defaults(), schema, List.of(),
                ParquetTestFiles.hadoopPath(dir), new Configuration(), CLOCK);
    }

    static Object[] full(int id, boolean negative) {
        int sign = negative ? -1 : 1;
        return new Object[] {id, negative ? "ünïcødé ✓" : "hello", sign * 2_000_000_000, (short) (sign * 32_000),
            (byte) (sign * 120), sign * 9_000_000_000_000_000_000L, sign * 1.5e300, sign * 3.25f, !negative,
            new byte[] {0, (byte) 0xFF, 7}, sign * 20_000, sign * 1_700_000_000_123_456L,
            new BigDecimal(BigInteger.valueOf(sign * 999_999_999L), 2),
            new BigDecimal(BigInteger.valueOf(sign * 999_999_999_999_999_999L), 4),
            new BigDecimal(new BigInteger("9".repeat(38)).multiply(BigInteger.valueOf(sign)), 10),
            new BigDecimal(new BigInteger("9".repeat(20)).multiply(BigInteger.valueOf(sign)), 0)};
    }

    static Object[] nulls(int id) {
        Object[] row = new Object[ALL_TYPES.size()];
        row[0] = id;
        row[15] = BigDecimal.ZERO;
        return row;
    }

    @Test
    void everyTypeRoundTripsWithValuesAndNulls() throws Exception {
        PartitionedWriter w = writer(ALL_TYPES);
        List<Object[]> rows = List.of(full(1, false), full(2, true), nulls(3));
        for (Object[] row : rows) {
            w.write(row);
        }
        List<DataFile> files = w.finish();
        assertEquals(1, files.size());
        assertEquals(CLOCK.millis(), files.get(0).modificationTime());
        Path file = dir.resolve(files.get(0).path());
        assertEquals(java.nio.file.Files.size(file), files.get(0).size());

        List<Group> read = ParquetTestFiles.readRows(file);
        assertEquals(3, read.size());
        for (int r = 0; r < 3; r++) {
            assertRow(rows.get(r), read.get(r));
        }
    }

    static void assertRow(Object[] expected, Group g) {
        for (int c = 0; c < ALL_TYPES.size(); c++) {
            Column col = ALL_TYPES.column(c);
            String name = col.name();
            if (expected[c] == null) {
                assertEquals(0, g.getFieldRepetitionCount(name), name + " should be null");
                continue;
            }
            Object actual = switch (col.type()) {
                case STRING -> g.getString(name, 0);
                case INT, DATE -> g.getInteger(name, 0);
                case SHORT -> (short) g.getInteger(name, 0);
                case BYTE -> (byte) g.getInteger(name, 0);
                case LONG, TIMESTAMP -> g.getLong(name, 0);
                case DOUBLE -> g.getDouble(name, 0);
                case FLOAT -> g.getFloat(name, 0);
                case BOOLEAN -> g.getBoolean(name, 0);
                case BINARY -> g.getBinary(name, 0).getBytes();
                case DECIMAL -> switch (col.precision() <= 9 ? 0 : col.precision() <= 18 ? 1 : 2) {
                    case 0 -> BigDecimal.valueOf(g.getInteger(name, 0), col.scale());
                    case 1 -> BigDecimal.valueOf(g.getLong(name, 0), col.scale());
                    default -> new BigDecimal(new BigInteger(g.getBinary(name, 0).getBytes()), col.scale());
                };
                case STRUCT, ARRAY, MAP -> throw new IllegalStateException("no nested column here");
            };
            if (expected[c] instanceof byte[] bytes) {
                assertArrayEquals(bytes, (byte[]) actual, name);
            } else {
                assertEquals(expected[c], actual, name);
            }
        }
    }

    @Test
    void fileSchemaUsesTheMappedPhysicalAndLogicalTypes() throws Exception {
        PartitionedWriter w = writer(ALL_TYPES);
        w.write(full(1, false));
        Path file = dir.resolve(w.finish().get(0).path());
        MessageType expected = MessageTypeParser.parseMessageType("""
                message expected {
                  required int32 id;
                  optional binary s (STRING);
                  optional int32 i;
                  optional int32 sh (INTEGER(16,true));
                  optional int32 by (INTEGER(8,true));
                  optional int64 l;
                  optional double d;
                  optional float f;
                  optional boolean b;
                  optional binary bin;
                  optional int32 dt (DATE);
                  optional int64 ts (TIMESTAMP(MICROS,true));
                  optional int32 dec9 (DECIMAL(9,2));
                  optional int64 dec18 (DECIMAL(18,4));
                  optional fixed_len_byte_array(16) dec38 (DECIMAL(38,10));
                  required fixed_len_byte_array(9) dec20 (DECIMAL(20,0));
                }""");
        MessageType actual = ParquetTestFiles.footer(file).getFileMetaData().getSchema();
        assertEquals(expected.getFields(), actual.getFields());
    }

    @Test
    void decimalByteLengthsAreMinimal() {
        // from the Parquet format spec's table of precision -> bytes for FIXED_LEN_BYTE_ARRAY
        assertEquals(9, ParquetSchemas.decimalBytes(19));
        assertEquals(9, ParquetSchemas.decimalBytes(21));
        assertEquals(10, ParquetSchemas.decimalBytes(22));
        assertEquals(12, ParquetSchemas.decimalBytes(28));
        assertEquals(13, ParquetSchemas.decimalBytes(29));
        assertEquals(16, ParquetSchemas.decimalBytes(38));
    }

    @Test
    void nullInRequiredColumnIsRefusedAndWriterStaysUsable() throws Exception {
        PartitionedWriter w = writer(ALL_TYPES);
        Object[] bad = nulls(1);
        bad[0] = null;
        RowRejectedException e = assertThrows(RowRejectedException.class, () -> w.write(bad));
        assertTrue(e.getMessage().contains("'id'") && e.getMessage().contains("not nullable"), e.getMessage());
        assertEquals("id", e.column());
        assertEquals(0, w.rowsBuffered());

        w.write(nulls(2));
        List<DataFile> files = w.finish();
        List<Group> read = ParquetTestFiles.readRows(dir.resolve(files.get(0).path()));
        assertEquals(1, read.size());
        assertEquals(2, read.get(0).getInteger("id", 0));
    }

    @Test
    void wrongJavaTypeAndWrongDecimalScaleAreRefused() throws Exception {
        PartitionedWriter w = writer(ALL_TYPES);
        Object[] wrongType = nulls(1);
        wrongType[2] = "not an int";
        assertEquals("i", assertThrows(RowRejectedException.class, () -> w.write(wrongType)).column());
        Object[] wrongScale = nulls(1);
        wrongScale[12] = new BigDecimal("1.5");
        assertTrue(assertThrows(RowRejectedException.class, () -> w.write(wrongScale))
                .getMessage().contains("'dec9'"));
        Object[] tooLong = nulls(1);
        tooLong[1] = "x".getBytes(StandardCharsets.UTF_8);
        assertThrows(RowRejectedException.class, () -> w.write(tooLong));
        // not a row of the schema at all: a caller's mistake, not a bad record
        Object[] shortRow = new Object[] {1};
        assertFalse(assertThrows(IllegalArgumentException.class, () -> w.write(shortRow)) instanceof RowRejectedException);
        assertEquals(0, w.openFiles());
    }
}
