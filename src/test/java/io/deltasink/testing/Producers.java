package io.deltasink.testing;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.producer.ProducerConfig;

/** The settings every test, demo and benchmark producer starts from. */
public final class Producers {
    private Producers() {
    }

    /**
     * Acknowledged by all replicas, idempotent, and one request in flight per connection: when the
     * first batch to a just-created partition is refused (its leader not ready yet, common on a busy
     * machine), later batches must not land before it is retried. With several in flight the broker
     * then refused the retried first batch as out of order until the producer gave up, and a test
     * that only flushed lost those records without noticing.
     */
    public static Map<String, Object> settings(String bootstrapServers) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return props;
    }
}
