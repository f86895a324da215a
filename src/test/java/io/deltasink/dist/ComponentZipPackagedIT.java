package io.deltasink.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarInputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The component archive {@code mvn package} builds: Confluent Hub layout, manifest, the jars of
 * lib/ exactly as listed in the checked-in src/dist/lib.txt, no jar the worker provides, the
 * aarch64 natives of the compression codecs, and its size (printed; a Pi has little room).
 */
class ComponentZipPackagedIT {
    static final Path JAR_LIST = Path.of("src", "dist", "lib.txt");
    /**
     * A ceiling against accidental growth (an SDK bundle would add 600 MB, the shaded Hadoop
     * client 48 MiB). The aim for a Pi is under 60 MB; today the archive is about 55 MiB.
     */
    private static final long MAX_BYTES = 60L * 1024 * 1024;

    @Test
    void libMatchesTheCheckedInJarList() throws IOException {
        Set<String> shipped = new TreeSet<>(jarsInLib());
        Set<String> listed = new TreeSet<>();
        for (String line : Files.readAllLines(JAR_LIST, StandardCharsets.UTF_8)) {
            if (!line.isBlank() && !line.startsWith("#")) {
                listed.add(line.trim());
            }
        }
        List<String> diff = new ArrayList<>();
        shipped.stream().filter(j -> !listed.contains(j)).forEach(j -> diff.add("+ " + j));
        listed.stream().filter(j -> !shipped.contains(j)).forEach(j -> diff.add("- " + j));
        assertTrue(diff.isEmpty(), "lib/ of " + ComponentZip.path().getFileName() + " differs from " + JAR_LIST
                + " (+ shipped but not listed, - listed but not shipped):\n  " + String.join("\n  ", diff)
                + "\nIf the change is intended, update " + JAR_LIST + " (one jar per line, sorted) in the same commit.");
    }

    @Test
    void libHoldsNothingTheWorkerProvides() {
        List<String> provided = jarsInLib().stream()
                .filter(j -> j.startsWith("kafka") && !j.startsWith("kafka-connect-delta-sink")
                        || j.startsWith("connect-") || j.startsWith("slf4j-") || j.startsWith("log4j")
                        || j.startsWith("logback") || j.startsWith("reload4j"))
                .toList();
        assertEquals(List.of(), provided, "jars in lib/ that the Connect worker provides");
        assertTrue(jarsInLib().stream().anyMatch(j -> j.startsWith("kafka-connect-delta-sink-")), "connector jar in lib/");
    }

    @Test
    void layoutAndManifestAreThoseOfAHubComponent() throws IOException {
        String root = ComponentZip.rootName() + "/";
        List<String> entries = ComponentZip.entries();
        assertTrue(entries.stream().allMatch(e -> e.startsWith(root)), "every entry under " + root + ": " + entries);
        for (String required : List.of("manifest.json", "doc/README.md", "doc/LICENSE", "doc/config-reference.md",
                "etc/sensor-events-local.json")) {
            assertTrue(entries.contains(root + required), "archive has " + required + ": " + entries);
        }

        JsonNode manifest = new ObjectMapper().readTree(read(root + "manifest.json"));
        assertEquals(System.getProperty("project.version"), manifest.path("version").asText(), "version");
        assertEquals(root, manifest.path("owner").path("username").asText() + "-" + manifest.path("name").asText()
                + "-" + manifest.path("version").asText() + "/", "archive name is <owner>-<name>-<version>");
        assertEquals("sink", manifest.path("component_types").path(0).asText(), "component type");
        assertEquals("exactly_once", manifest.path("features").path("delivery_guarantee").path(0).asText(),
                "delivery guarantee");
        assertTrue(manifest.path("features").path("supported_encodings").size() > 0, "supported encodings");
        for (String field : List.of("title", "description", "documentation_url")) {
            assertTrue(!manifest.path(field).asText().isBlank(), "manifest field " + field);
        }
        assertTrue(manifest.path("requirements").size() > 0, "requirements");
        assertTrue(manifest.path("license").path(0).path("name").asText().contains("Apache"), "license");
        assertTrue(entries.contains(root + manifest.path("documentation_url").asText()),
                "documentation_url points into the archive: " + manifest.path("documentation_url"));
    }

    @Test
    void codecsCarryLinuxAarch64Natives() throws IOException {
        assertNative("snappy-java-", "org/xerial/snappy/native/Linux/aarch64/libsnappyjava.so");
        assertNative("zstd-jni-", "linux/aarch64/libzstd-jni-");
    }

    @Test
    void sizeIsReportedAndStaysUnderTheCeiling() throws IOException {
        long bytes = Files.size(ComponentZip.path());
        System.out.printf("[ComponentZipPackagedIT] %s: %,d bytes (%.1f MiB), %d jars in lib/%n",
                ComponentZip.path().getFileName(), bytes, bytes / 1024.0 / 1024.0, jarsInLib().size());
        assertTrue(bytes < MAX_BYTES, "archive is " + bytes + " bytes, over " + MAX_BYTES);
    }

    private static void assertNative(String jarPrefix, String entryPrefix) throws IOException {
        String root = ComponentZip.rootName() + "/lib/";
        String jar = jarsInLib().stream().filter(j -> j.startsWith(jarPrefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + jarPrefix + "*.jar in lib/"));
        List<String> natives = new ArrayList<>();
        try (ZipFile zip = new ZipFile(ComponentZip.path().toFile());
             JarInputStream in = new JarInputStream(zip.getInputStream(zip.getEntry(root + jar)))) {
            for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                if (e.getName().startsWith(entryPrefix) && e.getSize() != 0) {
                    natives.add(e.getName());
                }
            }
        }
        assertTrue(!natives.isEmpty(), jar + " has no " + entryPrefix + "* entry");
    }

    private static List<String> jarsInLib() {
        String lib = ComponentZip.rootName() + "/lib/";
        return ComponentZip.entries().stream()
                .filter(e -> e.startsWith(lib) && e.length() > lib.length() && !e.endsWith("/"))
                .map(e -> e.substring(lib.length()))
                .toList();
    }

    private static String read(String entry) throws IOException {
        try (ZipFile zip = new ZipFile(ComponentZip.path().toFile())) {
            ZipEntry e = zip.getEntry(entry);
            assertTrue(e != null, "no " + entry);
            try (InputStream in = zip.getInputStream(e)) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }
    }
}
