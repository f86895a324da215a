package io.deltasink.proc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.expressions.Predicate;
import io.deltasink.testing.DeltaTableReader;

/**
 * A worker started with {@code LC_ALL=C} (the JVM's file name encoding becomes ASCII) writes
 * partition values of any Unicode text through the session, and every reader can open the table:
 * each row comes back with its exact partition values, each file the log names exists where the
 * decoded {@code add.path} says, and a filter on a partition value (or on the same value in a data
 * column, through the statistics) finds its row. The child JVM
 * ({@link PartitionValueWriter}) writes; this JVM, in its own locale, reads with Kernel.
 */
class PartitionValuesLocaleIT {
    @TempDir
    Path dir;

    @Test
    void aWorkerInTheCLocaleWritesATableEveryReaderCanOpen() throws Exception {
        Path tableDir = dir.resolve("table");
        String table = tableDir.toUri().toString();
        List<String> output = runChild(tableDir);
        assertTrue(output.contains("sun.jnu.encoding=ANSI_X3.4-1968"),
                "the child JVM runs with an ASCII file name encoding: " + output);

        // every row, with its exact partition values, read through Kernel's scan
        List<String> values = PartitionValueWriter.VALUES;
        Map<Long, Map<String, Object>> rows = new HashMap<>();
        for (Map<String, Object> row : DeltaTableReader.readAll(table)) {
            assertEquals(null, rows.put((Long) row.get("id"), row), "duplicate row " + row);
        }
        assertEquals(values.size(), rows.size());
        for (int i = 0; i < values.size(); i++) {
            Map<String, Object> row = rows.get((long) i);
            assertEquals(values.get(i), row.get("dev"), "partition value of row " + i);
            assertEquals(PartitionValueWriter.KIND, row.get("ger\u00e4t"), "second partition value of row " + i);
            assertEquals(values.get(i), row.get("label"), "data column of row " + i);
            assertEquals("row " + i, row.get("note"));
        }

        // the log: raw partition values, and paths that decode to the files on disk
        long version = DeltaTableReader.version(table);
        List<JsonNode> adds = DeltaTableReader.actions(table, version, "add");
        assertEquals(values.size(), adds.size(), "one file per partition");
        List<String> logged = new ArrayList<>();
        for (JsonNode add : adds) {
            String path = add.get("path").asText();
            logged.add(add.get("partitionValues").get("dev").asText());
            assertEquals(PartitionValueWriter.KIND, add.get("partitionValues").get("ger\u00e4t").asText());
            assertTrue(path.chars().allMatch(c -> c > 0x20 && c < 0x7F), "add.path is printable ASCII: " + path);
            Path file = tableDir.resolve(new URI(path).getPath());
            assertTrue(Files.isRegularFile(file), "the file add.path names exists: " + path + " -> " + file);
        }
        assertEquals(new java.util.TreeSet<>(values), new java.util.TreeSet<>(logged));

        // a filter on the partition value finds exactly its row
        DeltaTableReader.Loaded loaded = DeltaTableReader.load(table);
        for (int i = 0; i < values.size(); i++) {
            Predicate p = new Predicate("=", new Column("dev"), Literal.ofString(values.get(i)));
            List<Map<String, Object>> found = loaded.query(p);
            assertEquals(1, found.size(), "rows for dev = " + values.get(i) + ": " + found);
            assertEquals((long) i, found.get(0).get("id"));
            assertEquals(1, loaded.filesKept(p).size(), "partition pruning keeps one file for " + values.get(i));
            // the same value in a data column: the statistics the child wrote must not skip its file
            Predicate onLabel = new Predicate("=", new Column("label"), Literal.ofString(values.get(i)));
            assertEquals(List.of((long) i), loaded.query(onLabel).stream().map(r -> r.get("id")).toList(),
                    "rows for label = " + values.get(i));
        }
        assertFalse(Files.exists(tableDir.resolve("dev=pl?g")), "no folder with a replaced character");
    }

    /** Runs the writer in a JVM whose locale is C (LANG, LANGUAGE and LC_* unset, LC_ALL=C). */
    private List<String> runChild(Path tableDir) throws Exception {
        Path argFile = dir.resolve("jvm.args");
        Files.writeString(argFile, "-cp \"" + ChildClasspath.current().replace("\\", "\\\\").replace("\"", "\\\"")
                + "\"\n", StandardCharsets.UTF_8);
        Path log = dir.resolve("child.log");
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "@" + argFile,
                PartitionValueWriter.class.getName(), tableDir.toString());
        ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(k -> k.equals("LANG") || k.equals("LANGUAGE") || k.startsWith("LC_"));
        env.put("LC_ALL", "C");
        Process child = builder.start();
        try {
            if (!child.waitFor(5, TimeUnit.MINUTES)) {
                fail("the writer did not finish:\n" + Files.readString(log, StandardCharsets.ISO_8859_1));
            }
        } finally {
            child.destroyForcibly();
        }
        List<String> lines = Files.readAllLines(log, StandardCharsets.ISO_8859_1);
        assertEquals(0, child.exitValue(), "the writer failed:\n" + String.join("\n", lines));
        return lines;
    }
}
