package io.deltasink.proc;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.deltasink.commit.SinkSession;
import io.deltasink.config.DeltaSinkConfig;
import io.deltasink.convert.ColumnMapping;
import io.deltasink.convert.MappingConverter;
import io.deltasink.storage.StorageSettings;
import io.deltasink.testing.RecordingContext;

/**
 * A child JVM of {@link PartitionValuesLocaleIT}: writes one record per value of {@link #VALUES}
 * through a {@link SinkSession} into a table partitioned by {@code dev} (the value) and
 * {@code gerät} (a non-ASCII column name holding a non-ASCII value), with the value also in the
 * data column {@code label} (so in the file's statistics), and commits once. The values
 * are compiled in, so no command line or file encoding stands between them and the session.
 *
 * <p>Arguments: the table location. Prints {@code sun.jnu.encoding=<name>} and then {@code DONE}.
 */
public final class PartitionValueWriter {
    static final String TOPIC = "hostile";
    static final String KIND = "K\u00fcche \u2615";
    /** Partition values of every kind of trouble; the record at offset i carries VALUES.get(i). */
    static final List<String> VALUES = List.of(
            "pl\u00fcg", "\u65e5\u672c", "\uD83D\uDE00 outside the BMP", "a/b", "a=b", "100%", "#tag", "what?", "a:b",
            "two words", " leading", "trailing ", "..", ".", "line\nbreak", "tab\there", "nul\u0000byte", "%2F",
            "%C3%BC", "back\\slash", "[x]{y}^'\"*", "\u00e9\u0301 combining", "\u007f", "plain");
    static final String COLUMNS = "id:long=id, dev:string=dev, ger\u00e4t:string=kind, label:string=dev, note:string=note";
    static final String PARTITIONS = "dev,ger\u00e4t";

    private PartitionValueWriter() {
    }

    public static void main(String[] args) {
        try {
            System.out.println("sun.jnu.encoding=" + System.getProperty("sun.jnu.encoding"));
            run(args[0]);
            System.out.println("DONE");
        } catch (Throwable t) {
            t.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    private static void run(String table) throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("name", "locale");
        props.put(DeltaSinkConfig.TABLE_LOCATION, table);
        props.put(DeltaSinkConfig.COLUMNS, COLUMNS);
        props.put(DeltaSinkConfig.PARTITION_COLUMNS, PARTITIONS);
        DeltaSinkConfig config = new DeltaSinkConfig(props);
        ObjectMapper json = new ObjectMapper();
        List<SinkRecord> records = new ArrayList<>();
        for (int i = 0; i < VALUES.size(); i++) {
            Map<String, Object> value = new LinkedHashMap<>();
            value.put("id", i);
            value.put("dev", VALUES.get(i));
            value.put("kind", KIND);
            value.put("note", "row " + i);
            records.add(new SinkRecord(TOPIC, 0, null, null, null, json.writeValueAsString(value), i));
        }
        try (StorageSettings storage = StorageSettings.from(config)) {
            ColumnMapping mapping = ColumnMapping.parse(config.columns(), config.notNullColumns());
            SinkSession session = new SinkSession(config, storage, r -> new MappingConverter(mapping, Clock.systemUTC()),
                    new RecordingContext(false), Clock.systemUTC(), ms -> { }, "locale-test");
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            session.open(List.of(tp));
            session.put(records);
            long next = session.commit(Map.of()).get(tp).offset();
            if (next != VALUES.size()) {
                throw new IllegalStateException("committed up to offset " + next + ", expected " + VALUES.size());
            }
            session.stop();
        }
    }
}
