package io.deltasink.dist;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The component archive built by {@code mvn package} (target/components/&lt;owner&gt;-&lt;name&gt;-&lt;version&gt;.zip),
 * located through the {@code component.zip} and {@code component.name} system properties that
 * failsafe sets.
 */
public final class ComponentZip {
    private ComponentZip() {
    }

    public static Path path() {
        Path zip = Path.of(property("component.zip"));
        if (!Files.isRegularFile(zip)) {
            throw new AssertionError("No component archive at " + zip + ": run mvn verify (it is built in package)");
        }
        return zip;
    }

    /** The archive's top-level directory: &lt;owner&gt;-&lt;name&gt;-&lt;version&gt;. */
    public static String rootName() {
        return property("component.name");
    }

    /** Every entry name of the archive, in archive order. */
    public static List<String> entries() {
        try (ZipFile zip = new ZipFile(path().toFile())) {
            List<String> names = new ArrayList<>();
            for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
                names.add(e.nextElement().getName());
            }
            return names;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A plain unzip into {@code pluginPath}, as an operator installs it by hand. Returns the
     * component's directory inside it.
     */
    public static Path unzipInto(Path pluginPath) throws IOException {
        try (ZipFile zip = new ZipFile(path().toFile())) {
            for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
                ZipEntry entry = e.nextElement();
                Path target = pluginPath.resolve(entry.getName()).normalize();
                if (!target.startsWith(pluginPath)) {
                    throw new IOException("Entry outside the archive root: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    try (InputStream in = zip.getInputStream(entry)) {
                        Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        }
        return pluginPath.resolve(rootName());
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            throw new AssertionError("System property " + name + " is not set: this test runs in failsafe (mvn verify)");
        }
        return value;
    }
}
