package io.deltasink.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class BenchArgsTest {

    @Test
    void everyCombinationOfListedOptionsTheLastVaryingFastest() {
        BenchArgs args = BenchArgs.parse("1_000_000", "tasks=1,2,3", "compression=snappy,zstd");
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("tasks", "1");
        keys.put("compression", "snappy");
        keys.put("partitions", "0");
        List<Map<String, String>> runs = args.runs(keys);
        assertEquals(6, runs.size());
        assertEquals(Map.of("tasks", "1", "compression", "snappy", "partitions", "0"), runs.get(0));
        assertEquals(Map.of("tasks", "1", "compression", "zstd", "partitions", "0"), runs.get(1));
        assertEquals(Map.of("tasks", "3", "compression", "zstd", "partitions", "0"), runs.get(5));
        assertEquals(1_000_000L, args.count(0, 200_000));
        assertEquals("1000", args.positional(1, "1000"));
    }

    @Test
    void defaultsWithoutOptionsGiveOneRun() {
        BenchArgs args = BenchArgs.parse();
        assertEquals(List.of(Map.of("tasks", "1")), args.runs(Map.of("tasks", "1")));
        assertEquals(200_000L, args.count(0, 200_000));
        assertEquals("s3", BenchArgs.parse("storage=s3").single("storage", "local"));
        assertEquals(List.of("10", "1000"), args.list("versions", "10,1000"));
        assertEquals(List.of("5"), BenchArgs.parse("versions=5").list("versions", "10,1000"));
    }

    @Test
    void refusesEmptyValuesRepeatedOptionsListsForSingleValuesAndNamesUnknownOnes() {
        assertThrows(IllegalArgumentException.class, () -> BenchArgs.parse("tasks=1,,2"));
        assertThrows(IllegalArgumentException.class, () -> BenchArgs.parse("tasks=1", "tasks=2"));
        assertThrows(IllegalArgumentException.class, () -> BenchArgs.parse("=3"));
        assertThrows(IllegalArgumentException.class, () -> BenchArgs.parse("storage=s3,local").single("storage", "x"));
        assertEquals(List.of("taks"), BenchArgs.parse("taks=2", "tasks=1").unknown(List.of("tasks")));
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> BenchArgs.parse(List.of("tasks"), "100", "taks=2"));
        assertEquals("Unknown options [taks]; known: [tasks]", unknown.getMessage());
        assertEquals(List.of("1", "2"), BenchArgs.parse(List.of("tasks"), "100", "tasks=1,2").list("tasks", "9"));
    }
}
