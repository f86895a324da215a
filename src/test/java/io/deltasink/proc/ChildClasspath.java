package io.deltasink.proc;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * The class path a child JVM needs to run the same code as this JVM, as explicit entries.
 *
 * <p>Two launchers hide the real class path: Surefire forks the test JVM with a manifest-only
 * jar (java.class.path is one jar whose manifest lists the rest), and exec:java runs a main in
 * Maven's own JVM with the project's class path in a URLClassLoader. Connect's plugin scan reads
 * java.class.path entry by entry, so the child gets the expanded list.
 */
public final class ChildClasspath {
    private ChildClasspath() {
    }

    public static String current() {
        Set<String> entries = new LinkedHashSet<>();
        ClassLoader loader = ChildClasspath.class.getClassLoader();
        if (loader instanceof URLClassLoader urls && urls.getURLs().length > 0) {
            for (URL url : urls.getURLs()) {
                entries.add(toPath(url).toString());
            }
        } else {
            for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
                if (!entry.isBlank()) {
                    addExpanded(Path.of(entry), entries);
                }
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static void addExpanded(Path entry, Set<String> out) {
        out.add(entry.toString());
        if (!entry.toString().endsWith(".jar") || !entry.toFile().isFile()) {
            return;
        }
        for (Path referenced : manifestClassPath(entry)) {
            if (!out.contains(referenced.toString())) {
                addExpanded(referenced, out);
            }
        }
    }

    /** The jar's manifest Class-Path entries (URLs relative to the jar), as paths. */
    private static List<Path> manifestClassPath(Path jar) {
        List<Path> out = new ArrayList<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            String value = manifest == null ? null : manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
            if (value == null) {
                return out;
            }
            URL base = jar.toUri().toURL();
            for (String ref : value.trim().split("\\s+")) {
                if (!ref.isEmpty()) {
                    out.add(toPath(new URL(base, ref)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the manifest of " + jar, e);
        }
        return out;
    }

    private static Path toPath(URL url) {
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("Not a file URL on the class path: " + url, e);
        }
    }
}
