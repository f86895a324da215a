package io.deltasink.storage;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The AWS SDK ships as the individual modules S3A needs, never as the 640 MB 'bundle' that
 * hadoop-aws depends on: this fails when a dependency change brings the bundle back.
 */
class RuntimeDependenciesTest {

    @Test
    void s3ClientComesFromTheS3ModuleNotTheBundle() throws Exception {
        Class<?> client = Class.forName("software.amazon.awssdk.services.s3.S3Client");
        URL location = client.getProtectionDomain().getCodeSource().getLocation();
        String jar = Path.of(location.toURI()).getFileName().toString();
        assertTrue(jar.startsWith("s3-") && jar.endsWith(".jar"),
                "S3Client must come from the SDK's s3 module, was loaded from " + jar);
    }

    @Test
    void noSdkBundleOnTheClassPath() {
        List<String> bundles = new ArrayList<>();
        for (String entry : classPathEntries()) {
            String normalized = entry.replace(File.separatorChar, '/');
            String name = normalized.substring(normalized.lastIndexOf('/') + 1);
            if (normalized.contains("software/amazon/awssdk/") && name.startsWith("bundle-")) {
                bundles.add(name);
            }
        }
        assertTrue(bundles.isEmpty(), "the AWS SDK bundle is back on the class path: " + bundles);
    }

    @Test
    void s3aFileSystemLoadsWithTheShippedModules() throws Exception {
        // hadoop-aws's entry points and the SDK classes they link against
        Class.forName("org.apache.hadoop.fs.s3a.S3AFileSystem");
        Class.forName("software.amazon.awssdk.transfer.s3.S3TransferManager");
        Class.forName("software.amazon.awssdk.http.apache.ApacheHttpClient");
    }

    /** Surefire hands the test JVM a manifest-only jar; expand it to the real entries. */
    private static List<String> classPathEntries() {
        List<String> out = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            out.add(entry);
            File f = new File(entry);
            if (f.isFile() && entry.endsWith(".jar")) {
                try (java.util.jar.JarFile jar = new java.util.jar.JarFile(f)) {
                    java.util.jar.Manifest m = jar.getManifest();
                    String cp = m == null ? null : m.getMainAttributes().getValue("Class-Path");
                    if (cp != null) {
                        for (String ref : cp.trim().split("\\s+")) {
                            out.add(java.net.URLDecoder.decode(ref, java.nio.charset.StandardCharsets.UTF_8));
                        }
                    }
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        }
        return out;
    }
}
