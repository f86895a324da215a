package io.deltasink.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class PartitionSpecTest {
    static final RowSchema SCHEMA = new RowSchema(List.of(
            Column.of("id", ColumnType.LONG, false),
            Column.of("raw", ColumnType.BINARY, true),
            Column.of("day", ColumnType.DATE, true),
            Column.of("dev", ColumnType.STRING, false)));

    @Test
    void partitionColumnsInTheirOrderAndDataColumnsInTheSchemasOrder() {
        PartitionSpec spec = PartitionSpec.of(SCHEMA, List.of("dev", "day"));
        assertEquals(List.of("dev", "day"), spec.partitionColumns().stream().map(Column::name).toList());
        assertArrayEquals(new int[] {3, 2}, spec.partitionIndexes());
        assertEquals(List.of("id", "raw"), spec.dataColumns().stream().map(Column::name).toList());
        assertArrayEquals(new int[] {0, 1}, spec.dataIndexes());

        PartitionSpec none = PartitionSpec.of(SCHEMA, List.of());
        assertEquals(List.of(), none.partitionColumns());
        assertArrayEquals(new int[] {0, 1, 2, 3}, none.dataIndexes());
    }

    @Test
    void everyRuleHasItsMessage() {
        assertEquals(List.of("partition column 'nope' is not a column of the mapping in 'columns' [id, raw, day, dev]; partition "
                + "columns must be output columns, e.g. event_date:date=date(event_time)"),
                PartitionSpec.problems(SCHEMA, List.of("dev", "nope")));
        assertEquals(List.of("partition column 'raw' is binary; a partition column cannot be binary"),
                PartitionSpec.problems(SCHEMA, List.of("raw")));
        assertEquals(List.of("partition column 'dev' is listed twice"),
                PartitionSpec.problems(SCHEMA, List.of("dev", "day", "dev")));
        assertEquals(List.of("every column is a partition column; keep at least one data column"),
                PartitionSpec.problems(new RowSchema(List.of(Column.of("a", ColumnType.INT, true))), List.of("a")));
        assertEquals(List.of(), PartitionSpec.problems(SCHEMA, List.of("dev", "day")));
    }

    @Test
    void allProblemsAreReportedAtOnce() {
        List<String> problems = PartitionSpec.problems(SCHEMA, List.of("raw", "nope", "raw", "day", "dev", "id"));
        assertEquals(4, problems.size(), problems.toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PartitionSpec.of(SCHEMA, List.of("raw", "nope", "raw", "day", "dev", "id")));
        assertEquals(String.join("; ", problems), e.getMessage());
    }
}
