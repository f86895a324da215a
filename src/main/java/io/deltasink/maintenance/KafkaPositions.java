package io.deltasink.maintenance;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

import io.deltasink.config.AppIdTemplate;

/**
 * Puts each txn app id of a table beside its Kafka partition's end offset: app ids are mapped to
 * topic-partitions with the connector's template (the recogniser the task uses to tell writers
 * apart), end offsets come from the broker (Admin listOffsets, latest).
 */
final class KafkaPositions {
    private KafkaPositions() {
    }

    /** One position per app id, sorted by app id; without Kafka settings none has an end offset. */
    static List<TableReport.Position> of(Map<String, Long> txnVersions, InspectOptions options) {
        List<String> appIds = txnVersions.keySet().stream().sorted().toList();
        Map<String, TopicPartition> mapped = new HashMap<>();
        Map<TopicPartition, Long> ends = new HashMap<>();
        if (!options.kafka().isEmpty() && !appIds.isEmpty()) {
            try (Admin admin = Admin.create(options.kafka())) {
                mapped = map(admin, appIds, options);
                Map<TopicPartition, OffsetSpec> request = new HashMap<>();
                mapped.values().forEach(tp -> request.put(tp, OffsetSpec.latest()));
                admin.listOffsets(request).all().get().forEach((tp, info) -> ends.put(tp, info.offset()));
            } catch (ExecutionException e) {
                throw new IllegalStateException("Cannot read end offsets from Kafka: " + e.getCause(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while reading end offsets from Kafka", e);
            }
        }
        List<TableReport.Position> out = new ArrayList<>();
        for (String appId : appIds) {
            long offset = txnVersions.get(appId);
            TopicPartition tp = mapped.get(appId);
            Long end = tp == null ? null : ends.get(tp);
            out.add(new TableReport.Position(appId, offset, tp == null ? null : tp.topic(),
                    tp == null ? null : tp.partition(), end, end == null ? null : end - Math.max(0, offset)));
        }
        return out;
    }

    /** App id -> the topic-partition it is the position of, for the topics named in some app id. */
    private static Map<String, TopicPartition> map(Admin admin, List<String> appIds, InspectOptions options)
            throws ExecutionException, InterruptedException {
        AppIdTemplate template = new AppIdTemplate(options.appIdTemplate() == null ? AppIdTemplate.DEFAULT
                : options.appIdTemplate());
        Set<String> topics = admin.listTopics().names().get();
        List<String> named = topics.stream().filter(t -> appIds.stream().anyMatch(id -> id.contains(t))).toList();
        Map<String, TopicPartition> mapped = new HashMap<>();
        for (TopicDescription topic : admin.describeTopics(named).allTopicNames().get().values()) {
            for (TopicPartitionInfo p : topic.partitions()) {
                Function<String, Optional<String>> recognise = template.recogniser(topic.name(), p.partition());
                for (String appId : appIds) {
                    Optional<String> connector = recognise.apply(appId);
                    if (connector.isPresent() && (options.connectorName() == null
                            || connector.get().equals(options.connectorName()))) {
                        mapped.put(appId, new TopicPartition(topic.name(), p.partition()));
                    }
                }
            }
        }
        return mapped;
    }
}
