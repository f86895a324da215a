package io.deltasink.table;

import static io.deltasink.table.KernelTypes.Bound.MAX;
import static io.deltasink.table.KernelTypes.Bound.MIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.expressions.Literal;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampType;
import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.RowSchema;

class KernelTypesTest {

    @Test
    void schemaKeepsOrderTypesAndNullability() {
        StructType struct = KernelTypes.schemaOf(new RowSchema(List.of(
                Column.of("a", ColumnType.INT, false), new Column("d", ColumnType.DECIMAL, 12, 3, true),
                Column.of("t", ColumnType.TIMESTAMP, true))));
        assertEquals(List.of("a", "d", "t"), struct.fieldNames());
        assertEquals(IntegerType.INTEGER, struct.get("a").getDataType());
        assertEquals(new DecimalType(12, 3), struct.get("d").getDataType());
        assertEquals(false, struct.get("a").isNullable());
        assertEquals("decimal(12,3)", KernelTypes.typeName(struct.get("d").getDataType()));
        assertEquals("timestamp", KernelTypes.typeName(struct.get("t").getDataType()));
        for (ColumnType type : ColumnType.values()) {
            if (type.isNested()) {
                continue; // a struct, array or map column needs its full type; checked below
            }
            Column c = type == ColumnType.DECIMAL ? new Column("c", type, 5, 1, true) : Column.of("c", type, true);
            assertEquals(c.deltaTypeName(), KernelTypes.typeName(KernelTypes.dataTypeOf(c)));
        }
        Column nested = Column.nested("n", new io.deltasink.model.NestedType.MapOf(new io.deltasink.model.NestedType.Array(
                new io.deltasink.model.NestedType.Leaf(ColumnType.DECIMAL, 5, 1))), true);
        assertEquals("map<string,array<decimal(5,1)>>", KernelTypes.typeName(KernelTypes.dataTypeOf(nested)));
        assertEquals(nested, KernelTypes.columnOf(new io.delta.kernel.types.StructField("n", KernelTypes.dataTypeOf(nested),
                true)));
    }

    @Test
    void maxTimestampsAreRoundedUpToTheNextMillisecond() {
        assertEquals(1_000L, KernelTypes.ceilToMillis(1L));
        assertEquals(1_000L, KernelTypes.ceilToMillis(1_000L));
        assertEquals(2_000L, KernelTypes.ceilToMillis(1_999L));
        assertEquals(-1_000L, KernelTypes.ceilToMillis(-1_001L));
        assertEquals(0L, KernelTypes.ceilToMillis(-999L));
        assertEquals(Literal.ofTimestamp(2_000L), KernelTypes.statLiteral("t", TimestampType.TIMESTAMP, 1_001L, MAX).get());
    }

    @Test
    void minTimestampsAreFlooredToTheMillisecondAlsoBefore1970() {
        assertEquals(-1_000L, KernelTypes.floorToMillis(-1L));
        assertEquals(-2_000L, KernelTypes.floorToMillis(-1_001L));
        assertEquals(1_000L, KernelTypes.floorToMillis(1_999L));
        assertEquals(Literal.ofTimestamp(1_000L), KernelTypes.statLiteral("t", TimestampType.TIMESTAMP, 1_001L, MIN).get());
        assertEquals(Literal.ofTimestamp(-1_000L), KernelTypes.statLiteral("t", TimestampType.TIMESTAMP, -1L, MIN).get());
        assertEquals(Literal.ofTimestamp(0L), KernelTypes.statLiteral("t", TimestampType.TIMESTAMP, -1L, MAX).get());
    }

    @Test
    void boundsOutsideTheProtocolsRangeAreLeftOut() {
        long lastMicro = 253_402_300_799_999_999L; // 9999-12-31T23:59:59.999999Z
        assertEquals(Optional.empty(), KernelTypes.statLiteral("t", TimestampType.TIMESTAMP, lastMicro, MAX));
        assertEquals(Literal.ofTimestamp(lastMicro - 999), KernelTypes.statLiteral("t", TimestampType.TIMESTAMP,
                lastMicro, MIN).get());
        long firstMicro = -62_135_596_800_000_000L; // 0001-01-01T00:00:00Z
        assertEquals(Literal.ofTimestamp(firstMicro), KernelTypes.statLiteral("t", TimestampType.TIMESTAMP,
                firstMicro, MIN).get());
        assertEquals(Optional.empty(), KernelTypes.statLiteral("t", TimestampType.TIMESTAMP, firstMicro - 1, MIN));
        assertEquals(Optional.empty(), KernelTypes.statLiteral("d", DateType.DATE, 2_932_897, MAX)); // 10000-01-01
        assertEquals(Literal.ofDate(2_932_896), KernelTypes.statLiteral("d", DateType.DATE, 2_932_896, MAX).get());
        assertEquals(Optional.empty(), KernelTypes.statLiteral("d", DateType.DATE, -719_163, MIN)); // 0000-12-31
    }

    @Test
    void nonFiniteFloatingBoundsAndANegativeZeroMinimumAreLeftOut() {
        for (KernelTypes.Bound bound : KernelTypes.Bound.values()) {
            for (double d : new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
                assertEquals(Optional.empty(), KernelTypes.statLiteral("x", DoubleType.DOUBLE, d, bound));
                assertEquals(Optional.empty(), KernelTypes.statLiteral("x", FloatType.FLOAT, (float) d, bound));
            }
        }
        assertEquals(Optional.empty(), KernelTypes.statLiteral("x", DoubleType.DOUBLE, -0.0, MIN));
        assertEquals(Optional.empty(), KernelTypes.statLiteral("x", FloatType.FLOAT, -0.0f, MIN));
        assertEquals(Literal.ofDouble(-0.0), KernelTypes.statLiteral("x", DoubleType.DOUBLE, -0.0, MAX).get());
        assertEquals(Literal.ofDouble(0.0), KernelTypes.statLiteral("x", DoubleType.DOUBLE, 0.0, MIN).get());
        assertEquals(Literal.ofFloat(-Float.MAX_VALUE), KernelTypes.statLiteral("x", FloatType.FLOAT, -Float.MAX_VALUE, MIN).get());
    }

    @Test
    void decimalBoundsAreRoundedOutwardAndUnsafeBoundsDropped() {
        DecimalType d = new DecimalType(10, 2);
        assertEquals(Literal.ofDecimal(new BigDecimal("1.24"), 10, 2),
                KernelTypes.statLiteral("d", d, new BigDecimal("1.231"), MAX).get());
        assertEquals(Literal.ofDecimal(new BigDecimal("1.23"), 10, 2),
                KernelTypes.statLiteral("d", d, new BigDecimal("1.239"), MIN).get());
        assertEquals(Optional.empty(), KernelTypes.statLiteral("x", DoubleType.DOUBLE, Double.NaN, MIN));
        assertEquals(Optional.empty(), KernelTypes.statLiteral("x", BinaryType.BINARY, new byte[] {1}, MIN));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> KernelTypes.statLiteral("n", IntegerType.INTEGER, "12", MIN));
        assertTrue(e.getMessage().contains("'n'"), e.getMessage());
    }

    @Test
    void partitionValuesParseFromTheDeltaStringForms() {
        assertEquals(Literal.ofDate(20626), KernelTypes.partitionLiteral("d", DateType.DATE, "2026-06-22"));
        long micros = 1_782_116_160_123_456L;
        assertEquals(Literal.ofTimestamp(micros),
                KernelTypes.partitionLiteral("t", TimestampType.TIMESTAMP, "2026-06-22 08:16:00.123456"));
        assertEquals(Literal.ofTimestamp(micros),
                KernelTypes.partitionLiteral("t", TimestampType.TIMESTAMP, "2026-06-22T08:16:00.123456Z"));
        assertEquals(Literal.ofTimestamp(micros - 123_456L),
                KernelTypes.partitionLiteral("t", TimestampType.TIMESTAMP, "2026-06-22 08:16:00"));
        assertEquals(Literal.ofLong(-5L), KernelTypes.partitionLiteral("l", LongType.LONG, "-5"));
        assertEquals(Literal.ofBoolean(true), KernelTypes.partitionLiteral("b", BooleanType.BOOLEAN, "true"));
        assertEquals(Literal.ofDecimal(new BigDecimal("3.10"), 10, 2),
                KernelTypes.partitionLiteral("d", new DecimalType(10, 2), "3.1"));
        assertEquals(Literal.ofNull(StringType.STRING), KernelTypes.partitionLiteral("s", StringType.STRING, null));
        assertThrows(IllegalArgumentException.class, () -> KernelTypes.partitionLiteral("b", BooleanType.BOOLEAN, "yes"));
        assertThrows(IllegalArgumentException.class,
                () -> KernelTypes.partitionLiteral("d", new DecimalType(10, 2), "3.141"));
    }

    @Test
    void longStringBoundsAreCutToAPrefixThatStillBounds() {
        String shortValue = "x".repeat(32);
        assertEquals(Optional.of(shortValue), KernelTypes.stringBound(shortValue, MAX));
        String longValue = "a".repeat(31) + "bc";
        assertEquals(Optional.of("a".repeat(31) + "b"), KernelTypes.stringBound(longValue, MIN));
        String max = KernelTypes.stringBound(longValue, MAX).orElseThrow();
        assertEquals("a".repeat(31) + "b\uDBFF\uDFFF", max);
        assertTrue(max.codePoints().toArray().length == 33);
        String maxCodePoint = new String(Character.toChars(Character.MAX_CODE_POINT));
        assertEquals(Optional.empty(), KernelTypes.stringBound("a".repeat(32) + maxCodePoint, MAX));
        // code points, not chars: a surrogate pair is never split
        String emoji = "\uD83D\uDE00".repeat(33);
        assertEquals(Optional.of("\uD83D\uDE00".repeat(32)), KernelTypes.stringBound(emoji, MIN));
    }
}
