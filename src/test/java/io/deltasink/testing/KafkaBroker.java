package io.deltasink.testing;

import java.util.Properties;

import org.apache.kafka.connect.util.clusters.EmbeddedKafkaCluster;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One in-process KRaft broker per test class, without a Connect worker (seconds to start): for
 * tests that need Kafka's own answers (end offsets, topics) but not a running connector. Use as a
 * static {@code @RegisterExtension} field; every test uses topics of its own.
 */
public final class KafkaBroker implements BeforeAllCallback, AfterAllCallback {
    private EmbeddedKafkaCluster kafka;

    @Override
    public void beforeAll(ExtensionContext context) {
        kafka = new EmbeddedKafkaCluster(1, new Properties());
        kafka.start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (kafka != null) {
            kafka.stop();
        }
    }

    public String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    public void createTopic(String topic, int partitions) {
        kafka.createTopic(topic, partitions);
    }

    /** Appends {@code count} records to one partition, each acknowledged before the next is sent. */
    public void produce(String topic, int partition, int count) {
        for (int i = 0; i < count; i++) {
            kafka.produce(topic, partition, null, "record " + i);
        }
    }
}
