package io.deltasink.proc;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import io.deltasink.testing.TableLocation;

/**
 * Where a table stands against its topic: the log's latest version (cheaply, from the file
 * names in _delta_log, on S3 those in the test server's backend), each partition's txn version
 * (through the independent reader) and the topic's end offsets.
 */
public final class TableProgress {
    private TableProgress() {
    }

    /** The highest committed version, from the _delta_log file names; -1 when there is no table yet. */
    public static long latestVersion(Path table) {
        return TableLocation.local(table).latestVersion();
    }

    /** The appId the connector stores a partition's position under (the default template). */
    public static String appId(String connector, TopicPartition tp) {
        return connector + "/" + tp.topic() + "/" + tp.partition();
    }

    public static List<TopicPartition> partitions(String topic, int count) {
        List<TopicPartition> out = new ArrayList<>();
        for (int p = 0; p < count; p++) {
            out.add(new TopicPartition(topic, p));
        }
        return out;
    }

    /** Each partition's txn version in the table (absent: the table has never seen it). */
    public static Map<TopicPartition, Optional<Long>> txnVersions(Path table, String connector,
                                                                  Collection<TopicPartition> partitions) {
        return txnVersions(TableLocation.local(table), connector, partitions);
    }

    public static Map<TopicPartition, Optional<Long>> txnVersions(TableLocation table, String connector,
                                                                  Collection<TopicPartition> partitions) {
        Map<TopicPartition, Optional<Long>> out = new TreeMap<>(TableProgress::compare);
        for (TopicPartition tp : partitions) {
            out.put(tp, table.txnVersion(appId(connector, tp)));
        }
        return out;
    }

    public static Map<TopicPartition, Long> endOffsets(Admin admin, Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetSpec> specs = new TreeMap<>(TableProgress::compare);
        partitions.forEach(tp -> specs.put(tp, OffsetSpec.latest()));
        Map<TopicPartition, Long> out = new TreeMap<>(TableProgress::compare);
        try {
            admin.listOffsets(specs).all().get().forEach((tp, info) -> out.put(tp, info.offset()));
        } catch (ExecutionException e) {
            throw new IllegalStateException("Cannot list end offsets of " + partitions, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return out;
    }

    /**
     * Reads every partition from its start up to {@code ends} with a plain consumer (no group, the
     * bytes as stored), handing each record to {@code each}.
     *
     * @throws IllegalStateException when the partitions are not read to their ends within {@code timeout}
     */
    public static void readUpTo(String bootstrap, Map<TopicPartition, Long> ends, Duration timeout,
                                Consumer<ConsumerRecord<byte[], byte[]>> each) {
        Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest", ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(ends.keySet());
            consumer.seekToBeginning(ends.keySet());
            long deadline = System.nanoTime() + timeout.toNanos();
            while (ends.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read up to " + ends + " within " + timeout);
                }
                consumer.poll(Duration.ofMillis(500)).forEach(each);
            }
        }
    }

    /** True when every partition's txn version equals its end offset. */
    public static boolean caughtUp(Map<TopicPartition, Optional<Long>> txn, Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            Optional<Long> v = txn.getOrDefault(e.getKey(), Optional.empty());
            long expected = e.getValue();
            if (expected == 0 ? v.isPresent() && v.get() != 0 : v.isEmpty() || v.get() != expected) {
                return false;
            }
        }
        return true;
    }

    /**
     * Waits until the table's txn versions equal {@code ends}. Re-reads the txn versions only when
     * the log has a new version, so polling costs a directory listing. Returns the txn versions.
     *
     * @param diagnostics appended to the timeout message (e.g. the worker log's tail)
     */
    public static Map<TopicPartition, Optional<Long>> awaitCaughtUp(Path table, String connector,
                                                                    Map<TopicPartition, Long> ends, Duration timeout,
                                                                    Supplier<String> diagnostics)
            throws InterruptedException {
        return awaitCaughtUp(TableLocation.local(table), connector, ends, timeout, diagnostics);
    }

    public static Map<TopicPartition, Optional<Long>> awaitCaughtUp(TableLocation table, String connector,
                                                                    Map<TopicPartition, Long> ends, Duration timeout,
                                                                    Supplier<String> diagnostics)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long seen = Long.MIN_VALUE;
        Map<TopicPartition, Optional<Long>> txn = Map.of();
        while (true) {
            long latest = table.latestVersion();
            if (latest != seen) {
                seen = latest;
                txn = txnVersions(table, connector, ends.keySet());
                if (caughtUp(txn, ends)) {
                    return txn;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Table " + table + " did not catch up within " + timeout + ": version "
                        + latest + ", txn versions " + txn + ", end offsets " + ends + "\n" + diagnostics.get());
            }
            Thread.sleep(200);
        }
    }

    private static int compare(TopicPartition a, TopicPartition b) {
        int c = a.topic().compareTo(b.topic());
        return c != 0 ? c : Integer.compare(a.partition(), b.partition());
    }
}
