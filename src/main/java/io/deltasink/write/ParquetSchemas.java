package io.deltasink.write;

import java.math.BigInteger;
import java.util.List;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type.Repetition;
import org.apache.parquet.schema.Types;

import io.deltasink.model.Column;

/** Maps our columns to a flat Parquet schema. Pure functions, no state. */
final class ParquetSchemas {
    static final String MESSAGE_NAME = "delta_sink";

    private ParquetSchemas() {
    }

    /** The file schema for the given data columns (partition columns already removed), in order. */
    static MessageType messageType(List<Column> dataColumns) {
        Types.MessageTypeBuilder builder = Types.buildMessage();
        for (Column c : dataColumns) {
            builder.addField(field(c));
        }
        return builder.named(MESSAGE_NAME);
    }

    static PrimitiveType field(Column c) {
        Repetition rep = c.nullable() ? Repetition.OPTIONAL : Repetition.REQUIRED;
        return switch (c.type()) {
            case STRING -> Types.primitive(PrimitiveTypeName.BINARY, rep)
                    .as(LogicalTypeAnnotation.stringType()).named(c.name());
            case INT -> Types.primitive(PrimitiveTypeName.INT32, rep).named(c.name());
            case SHORT -> Types.primitive(PrimitiveTypeName.INT32, rep)
                    .as(LogicalTypeAnnotation.intType(16, true)).named(c.name());
            case BYTE -> Types.primitive(PrimitiveTypeName.INT32, rep)
                    .as(LogicalTypeAnnotation.intType(8, true)).named(c.name());
            case LONG -> Types.primitive(PrimitiveTypeName.INT64, rep).named(c.name());
            case DOUBLE -> Types.primitive(PrimitiveTypeName.DOUBLE, rep).named(c.name());
            case FLOAT -> Types.primitive(PrimitiveTypeName.FLOAT, rep).named(c.name());
            case BOOLEAN -> Types.primitive(PrimitiveTypeName.BOOLEAN, rep).named(c.name());
            case BINARY -> Types.primitive(PrimitiveTypeName.BINARY, rep).named(c.name());
            case DATE -> Types.primitive(PrimitiveTypeName.INT32, rep)
                    .as(LogicalTypeAnnotation.dateType()).named(c.name());
            case TIMESTAMP -> Types.primitive(PrimitiveTypeName.INT64, rep)
                    .as(LogicalTypeAnnotation.timestampType(true, TimeUnit.MICROS)).named(c.name());
            case DECIMAL -> decimal(c, rep);
            case STRUCT, ARRAY, MAP -> throw new IllegalArgumentException("column '" + c.name() + "' is "
                    + c.deltaTypeName() + ", not a flat column; see NestedRecords");
        };
    }

    private static PrimitiveType decimal(Column c, Repetition rep) {
        LogicalTypeAnnotation annotation = LogicalTypeAnnotation.decimalType(c.scale(), c.precision());
        PrimitiveTypeName physical = decimalPhysicalType(c.precision());
        if (physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
            return Types.primitive(physical, rep).length(decimalBytes(c.precision())).as(annotation).named(c.name());
        }
        return Types.primitive(physical, rep).as(annotation).named(c.name());
    }

    /** INT32 up to precision 9, INT64 up to 18, FIXED_LEN_BYTE_ARRAY above. */
    static PrimitiveTypeName decimalPhysicalType(int precision) {
        if (precision <= 9) {
            return PrimitiveTypeName.INT32;
        }
        return precision <= 18 ? PrimitiveTypeName.INT64 : PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY;
    }

    /** The fewest bytes whose two's complement holds every unscaled value of the given precision. */
    static int decimalBytes(int precision) {
        int bits = BigInteger.TEN.pow(precision).subtract(BigInteger.ONE).bitLength() + 1; // + sign bit
        return (bits + 7) / 8;
    }
}
