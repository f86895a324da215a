package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.List;
import java.util.Set;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;

/** The {@code columns} grammar and its error messages. */
class ColumnMappingParseTest {

    private static String error(String columns) {
        return error(columns, Set.of());
    }

    private static String error(String columns, Set<String> notNull) {
        return assertThrows(ConfigException.class, () -> ColumnMapping.parse(columns, notNull)).getMessage();
    }

    @Test
    void entriesSplitAtCommasOutsideParenthesesAndTrim() {
        ColumnMapping m = ColumnMapping.parse("\n  amount : decimal( 10 , 2 ) = price ,,\n\t"
                + "id:bigint=meta.id,\n  day:date=date(ts),ts:timestamp=ts,\n", Set.of(" id ", ""));
        assertEquals(List.of(
                new Column("amount", ColumnType.DECIMAL, 10, 2, true),
                Column.of("id", ColumnType.LONG, false),
                Column.of("day", ColumnType.DATE, true),
                Column.of("ts", ColumnType.TIMESTAMP, true)), m.schema().columns());
        assertEquals("amount:decimal(10,2)=price, id:long=meta.id, day:date=date(ts), ts:timestamp=ts", m.toString());
        assertEquals(m, ColumnMapping.parse(m.toString(), Set.of("id")), "toString parses back to the same mapping");
    }

    @Test
    void sourcesOfEachKind() {
        ColumnMapping m = ColumnMapping.parse("a:string=x.y.0.z, b:string=raw(x.y), c:string=raw(), d:string=@topic, "
                + "e:int=@partition, f:long=@offset, g:timestamp=@timestamp, h:string=@key, i:string=@header.trace.id, "
                + "j:timestamp=@now, k:decimal(5)=n");
        List<Source> sources = m.specs().stream().map(ColumnSpec::source).toList();
        assertEquals(List.of(
                new Source.Field(List.of("x", "y", "0", "z"), false),
                new Source.Field(List.of("x", "y"), true),
                new Source.Field(List.of(), true),
                new Source.Meta(Source.Meta.Kind.TOPIC, null),
                new Source.Meta(Source.Meta.Kind.PARTITION, null),
                new Source.Meta(Source.Meta.Kind.OFFSET, null),
                new Source.Meta(Source.Meta.Kind.TIMESTAMP, null),
                new Source.Meta(Source.Meta.Kind.KEY, null),
                new Source.Meta(Source.Meta.Kind.HEADER, "trace.id"),
                new Source.Meta(Source.Meta.Kind.NOW, null),
                new Source.Field(List.of("n"), false)), sources);
        assertEquals(new Column("k", ColumnType.DECIMAL, 5, 0, true), m.schema().column(10));
    }

    @Test
    void autoIsAPlaceholderWithoutColumns() {
        ColumnMapping auto = ColumnMapping.parse(" AUTO ", Set.of());
        assertTrue(auto.isAuto());
        assertTrue(ColumnMapping.isAuto("auto"));
        assertFalse(ColumnMapping.isAuto("a:int=auto"));
        assertEquals("auto", auto.toString());
        assertThrows(IllegalStateException.class, auto::schema);
        assertThrows(IllegalArgumentException.class, () -> new MappingConverter(auto, Clock.systemUTC()));
        assertTrue(error("auto", Set.of("x")).contains("columns.not.null: cannot be used with columns=auto"));
    }

    @Test
    void unknownTypeListsTheValidOnes() {
        String m = error("id:string=id, power:dbl=payload.power");
        assertEquals("Invalid value power:dbl=payload.power for configuration columns: unknown column type 'dbl'; "
                + "valid types: string, int, long, short, byte, double, float, boolean, binary, date, timestamp, decimal(p,s)", m);
    }

    @Test
    void missingSeparatorsNameAndSource() {
        assertTrue(error("id=string:x").contains("Invalid value id=string:x for configuration columns: missing ':'"));
        assertTrue(error("id string=x").contains("missing ':' between column name and type"));
        assertTrue(error("id:string x").contains("Invalid value id:string x for configuration columns: missing '=' between type and source"));
        assertTrue(error(":string=x").contains("missing column name"));
        assertTrue(error("id:=x").contains("missing type"));
        assertTrue(error("id:string=").contains("missing source"));
    }

    @Test
    void badNamesTypesAndPaths() {
        assertTrue(error("my col:string=x").contains("column name 'my col' may not contain ' '"));
        assertTrue(error("a.b:string=x").contains("may not contain '.'"));
        assertTrue(error("a:decimal=x").contains("decimal needs a precision and scale"));
        assertTrue(error("a:decimal(40,2)=x").contains("decimal(40,2) of column 'a' is invalid"));
        assertTrue(error("a:decimal(4,5)=x").contains("is invalid"));
        assertTrue(error("a:string=x..y").contains("path 'x..y' has an empty segment"));
        assertTrue(error("a:string=.x").contains("empty segment"));
        assertTrue(error("a:string=x(").contains("'(' without a matching ')'"));
        assertTrue(error("a:string=x), b:int=y").contains("')' without a matching '('"));
        assertTrue(error("a:string=x(y)z").contains("neither a path nor a function call"));
    }

    @Test
    void duplicateColumns() {
        assertTrue(error("a:string=x, b:int=y, a:long=z").contains("Invalid value a:long=z for configuration columns: column 'a' is defined twice"));
        assertTrue(error("Power:double=x, power:double=y").contains("column 'power' is defined twice (as 'Power'"));
    }

    @Test
    void unknownFunctionsAndMetadata() {
        assertTrue(error("a:string=upper(x)").contains("unknown function 'upper'; known: raw(<path>), date(<column>)"));
        assertTrue(error("a:string=@topik").contains("unknown record metadata '@topik'; known: @topic, @partition"));
        assertTrue(error("a:string=@header.").contains("@header. needs a header name"));
        assertTrue(error("a:int=@topic").contains("@topic cannot fill a column of type integer; use one of: [binary, string]"));
        assertTrue(error("a:boolean=@now").contains("@now cannot fill a column of type boolean"));
    }

    @Test
    void dateOfMustNameATimestampOrDateColumn() {
        assertTrue(error("d:date=date(event_time), t:timestamp=ts")
                .contains("date(event_time) names no column; defined: d, t"));
        assertTrue(error("d:date=date(s), s:string=x").contains("date(s) needs a timestamp or date column, but 's' is string"));
        assertTrue(error("d:date=date()").contains("date() needs the name of a timestamp column"));
        assertTrue(error("d:int=date(t), t:timestamp=x").contains("column type must be date or string, not integer"));
        assertTrue(error("a:date=date(b), b:date=date(c), c:timestamp=x").contains("itself derived"));
        assertTrue(error("a:date=date(a)").contains("itself derived"));
    }

    @Test
    void notNullNamesMustBeColumns() {
        String m = error("a:string=x, b:int=y", Set.of("a", "c"));
        assertEquals("Invalid value c for configuration columns.not.null: no column 'c' in columns; defined: a, b", m);
    }

    @Test
    void emptyMappingIsAnError() {
        assertTrue(error(" , ,\n").contains("no columns defined"));
        assertTrue(error("").contains("no columns defined"));
        assertTrue(error(null).contains("no columns defined"));
    }
}
