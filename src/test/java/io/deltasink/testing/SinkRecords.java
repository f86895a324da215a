package io.deltasink.testing;

import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Builds {@link SinkRecord}s for tests. A {@link Struct} value or key gets its own schema;
 * anything else is schemaless unless a schema is given.
 *
 * <pre>
 * SinkRecord r = SinkRecords.of("sensors", 0, 42L, json);
 * SinkRecord k = SinkRecords.builder("sensors", 1, 7L).key("plug-1").value(json)
 *         .timestamp(1_750_583_760_000L).header("trace", "abc").build();
 * </pre>
 */
public final class SinkRecords {
    private SinkRecords() {
    }

    /** A record with no key, no timestamp and no headers. */
    public static SinkRecord of(String topic, int partition, long offset, Object value) {
        return builder(topic, partition, offset).value(value).build();
    }

    /** A record with a key, no timestamp and no headers. */
    public static SinkRecord of(String topic, int partition, long offset, Object key, Object value) {
        return builder(topic, partition, offset).key(key).value(value).build();
    }

    /** A record with a Kafka (create-time) timestamp in epoch milliseconds. */
    public static SinkRecord withTimestamp(String topic, int partition, long offset, Object value, long timestampMs) {
        return builder(topic, partition, offset).value(value).timestamp(timestampMs).build();
    }

    public static Builder builder(String topic, int partition, long offset) {
        return new Builder(topic, partition, offset);
    }

    /** A mutable builder; {@link #build()} may be called more than once. */
    public static final class Builder {
        private final String topic;
        private final int partition;
        private final long offset;
        private Schema keySchema;
        private Object key;
        private Schema valueSchema;
        private Object value;
        private Long timestamp;
        private TimestampType timestampType = TimestampType.NO_TIMESTAMP_TYPE;
        private final ConnectHeaders headers = new ConnectHeaders();

        private Builder(String topic, int partition, long offset) {
            this.topic = topic;
            this.partition = partition;
            this.offset = offset;
        }

        public Builder key(Object key) {
            return key(key instanceof Struct s ? s.schema() : null, key);
        }

        public Builder key(Schema schema, Object key) {
            this.keySchema = schema;
            this.key = key;
            return this;
        }

        public Builder value(Object value) {
            return value(value instanceof Struct s ? s.schema() : null, value);
        }

        public Builder value(Schema schema, Object value) {
            this.valueSchema = schema;
            this.value = value;
            return this;
        }

        /** Kafka record timestamp in epoch milliseconds, as a create time. */
        public Builder timestamp(long epochMs) {
            this.timestamp = epochMs;
            this.timestampType = TimestampType.CREATE_TIME;
            return this;
        }

        /** Adds a header; a String or byte[] value is added schemaless, as a string or bytes. */
        public Builder header(String name, Object value) {
            if (value instanceof String s) {
                headers.addString(name, s);
            } else if (value instanceof byte[] b) {
                headers.addBytes(name, b);
            } else if (value instanceof Struct s) {
                headers.addStruct(name, s);
            } else {
                headers.add(name, value, null);
            }
            return this;
        }

        public Builder header(String name, Schema schema, Object value) {
            headers.add(name, value, schema);
            return this;
        }

        public SinkRecord build() {
            return new SinkRecord(topic, partition, keySchema, key, valueSchema, value, offset, timestamp,
                    timestampType, headers.duplicate());
        }
    }
}
