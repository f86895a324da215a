package io.deltasink.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Test fixture: one real S3 server ({@link S3ProxyServer}) for a test class, with one bucket, in a
 * folder of its own: started before the class's first test, stopped and removed after its last.
 * Register with {@code @RegisterExtension static final S3Server s3 = new S3Server("bucket");}.
 */
public final class S3Server implements BeforeAllCallback, AfterAllCallback {
    private final String bucket;
    private Path dir;
    private S3ProxyServer server;

    public S3Server(String bucket) {
        this.bucket = bucket;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        dir = Files.createTempDirectory("s3server");
        server = new S3ProxyServer(dir, bucket).start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        if (server != null) {
            server.close();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** The running server. */
    public S3ProxyServer server() {
        return server;
    }
}
