package io.deltasink.proc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * Finds an installed JDK of a given feature release (17, 25, ...) for a worker JVM, without a
 * machine's paths in the code: the {@code JAVA<n>_HOME} environment variable or the
 * {@code java<n>.home} system property when set, else this JVM's own JDK when it is that release,
 * else the JDKs installed next to it (the directory holding this JVM's JDK, where Debian, RPM
 * packages and most installers put every JDK). A JDK's release comes from its {@code release} file.
 */
public final class Jdks {
    private Jdks() {
    }

    /** The home of a JDK of release {@code feature}; fails, saying where it looked, when there is none. */
    public static Path require(int feature) {
        List<String> looked = new ArrayList<>();
        for (String configured : new String[] {System.getenv("JAVA" + feature + "_HOME"),
                System.getProperty("java" + feature + ".home")}) {
            if (configured != null && !configured.isBlank()) {
                Path home = Path.of(configured);
                if (feature(home).orElse(-1) != feature) {
                    throw new AssertionError("JAVA" + feature + "_HOME / java" + feature + ".home is " + home
                            + ", which is not a Java " + feature + " JDK (release file: " + feature(home) + ")");
                }
                return home;
            }
        }
        Path self = Path.of(System.getProperty("java.home"));
        if (feature(self).orElse(-1) == feature) {
            return self;
        }
        Path installed = self.getParent();
        looked.add(installed.toString());
        try (Stream<Path> homes = Files.list(installed)) {
            Optional<Path> found = homes.filter(h -> Files.isExecutable(h.resolve("bin").resolve("java")))
                    .filter(h -> feature(h).orElse(-1) == feature)
                    .sorted()
                    .findFirst();
            if (found.isPresent()) {
                return found.get();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list " + installed, e);
        }
        throw new AssertionError("No Java " + feature + " JDK found: set JAVA" + feature + "_HOME (or -Djava"
                + feature + ".home) to one, or install one next to this JVM's JDK. Looked in " + looked);
    }

    /** The feature release named by a JDK's {@code release} file (JAVA_VERSION="25.0.1" -> 25). */
    static Optional<Integer> feature(Path home) {
        Path release = home.resolve("release");
        if (!Files.isRegularFile(release)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (var in = Files.newInputStream(release)) {
            p.load(in);
        } catch (IOException e) {
            return Optional.empty();
        }
        String version = p.getProperty("JAVA_VERSION", "").replace("\"", "").trim();
        String first = version.split("[.+-]")[0];
        if (first.equals("1") && version.length() > 2) {
            first = version.split("\\.")[1];
        }
        try {
            return Optional.of(Integer.parseInt(first));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
