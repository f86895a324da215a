package io.deltasink.it;

import java.util.Map;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One in-process Kafka broker and Connect worker per test class: started before the first test,
 * connectors deleted after each test, stopped after the last. Use as a static
 * {@code @RegisterExtension} field.
 */
final class ClusterExtension implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {
    private final String name;
    private final int workers;
    private final Map<String, String> extraWorkerProps;
    private ConnectHarness harness;

    ClusterExtension(String name, int workers) {
        this(name, workers, Map.of());
    }

    ClusterExtension(String name, int workers, Map<String, String> extraWorkerProps) {
        this.name = name;
        this.workers = workers;
        this.extraWorkerProps = extraWorkerProps;
    }

    ConnectHarness harness() {
        return harness;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        harness = ConnectHarness.start(name, workers, extraWorkerProps);
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        harness.deleteAllConnectors();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (harness != null) {
            harness.close();
        }
    }
}
