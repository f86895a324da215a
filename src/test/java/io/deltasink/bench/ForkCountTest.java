package io.deltasink.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;

import org.apache.hadoop.util.Shell;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import jdk.jfr.Configuration;
import jdk.jfr.Recording;

class ForkCountTest {

    @Test
    void countsTheProcessesStartedFromTheGivenInstant(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("forks.jfr");
        Instant from;
        try (Recording recording = new Recording(Configuration.getConfiguration("default"))) {
            recording.start();
            Shell.execCommand("true"); // before "from": not counted
            Thread.sleep(20);
            from = Instant.now();
            Thread.sleep(20);
            for (int i = 0; i < 3; i++) {
                Shell.execCommand("true");
            }
            Process plain = new ProcessBuilder("true").start();
            plain.waitFor();
            Thread other = new Thread(() -> { }, "not-a-process");
            other.start();
            other.join();
            recording.stop();
            recording.dump(file);
        }
        ForkCount forks = ForkCount.read(file, from);
        assertEquals(4, forks.processes(), "the processes started since 'from'");
        assertEquals(Map.of("org.apache.hadoop.util.Shell.runCommand", 3L, ForkCountTest.class.getName()
                + ".countsTheProcessesStartedFromTheGivenInstant", 1L), forks.byCaller());
    }
}
