package io.deltasink.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The connector's settings: one NAME / DOC / DEFAULT constant per key, grouped and ordered for
 * the REST validate call and the generated config reference (docs/config-reference.md).
 */
public final class DeltaSinkConfig extends AbstractConfig {

    static final String GROUP_TABLE = "Table";
    static final String GROUP_MAPPING = "Mapping";
    static final String GROUP_EXACTLY_ONCE = "Exactly-once";
    static final String GROUP_FILES = "Files and memory";
    static final String GROUP_STORAGE = "Storage";
    static final String GROUP_MAINTENANCE = "Maintenance";

    public static final String TABLE_LOCATION = "table.location";
    static final String TABLE_LOCATION_DOC = "Where the Delta table lives: a local path (/data/delta/sensor_events), "
            + "or a URI such as file:///data/t or s3a://bucket/prefix. A missing table is created on first use "
            + "(see table.auto.create). With ${topic} in it (s3a://bucket/delta/${topic}), each topic of 'topics' or "
            + "'topics.regex' is written to a table of its own, which holds the positions of that topic's partitions; "
            + "the rendered location always stays under the part before ${topic} (automatic compaction and vacuum "
            + "are not offered with ${topic} yet: run the maintenance tool per table). Without it, every topic is "
            + "written to the one table. With ${route} as its last folder (s3a://bucket/delta/${route}) and "
            + "table.route.field set, each record goes to the table named by that field's value.";

    /** The template variable of table.location that makes a table per topic. */
    public static final String TOPIC_VARIABLE = "${topic}";

    /** The template variable of table.location, its last folder, that makes a table per value of table.route.field. */
    public static final String ROUTE_VARIABLE = "${route}";

    public static final String TABLE_ROUTE_FIELD = "table.route.field";
    static final String TABLE_ROUTE_FIELD_DOC = "With ${route} as the last folder of table.location: the field of "
            + "the record value whose value names the table a record is written to, by the path grammar of "
            + "'columns' (device_type, payload.kind, @key, @header.<name>). The value becomes a folder name: "
            + "lower-case letters, digits, '_' and '-' are kept, every other byte of its UTF-8 form is written as "
            + "'~' and two hex digits (Plugs -> ~50lugs, a.b -> a~2Eb); a null or empty value, or "
            + "one whose folder name would exceed 200 characters, is a bad record (errors.tolerance). Each table "
            + "is created on first use and holds the positions of every partition that fed it.";

    public static final String TABLE_AUTO_CREATE = "table.auto.create";
    static final String TABLE_AUTO_CREATE_DOC = "Create the table when it does not exist, with the schema from "
            + "'columns', the partition columns and the delta.table.property.* properties. When false, a missing "
            + "table fails the task.";
    static final boolean TABLE_AUTO_CREATE_DEFAULT = true;

    public static final String SCHEMA_EVOLUTION = "schema.evolution";
    static final String SCHEMA_EVOLUTION_DOC = "What the connector may change in an existing table so that it matches "
            + "'columns'. 'none': a table that differs is refused (the task fails naming every difference). "
            + "'add-columns': columns of the mapping that the table lacks are added to it, in a commit of their own, "
            + "before any row using them is written; they are added nullable even when listed in columns.not.null, "
            + "since rows written before have no value (readers return null for them; the mapping's NOT NULL still "
            + "holds for new rows); a NOT NULL table column the mapping makes nullable becomes nullable. A type "
            + "change, a column the table has and the mapping lacks, a column whose name differs from a table column "
            + "only in case, and other partition columns stay refused. With columns=auto a record's field that the table lacks "
            + "adds a nullable column the same way (a field that is only null adds none); a value that does not fit a column "
            + "the table has is a bad record. 'add-columns,widen-types': as add-columns, and a column the mapping gives a wider "
            + "type (byte, short or int to a wider integer, float to double) is widened with Delta's typeWidening table "
            + "feature, which moves the table to protocol (3,7): readers that do not know the feature (Delta before 3.2, "
            + "older delta-rs and Trino) then refuse the table rather than read it wrong; narrowing and every other type "
            + "change stay refused.";
    static final String SCHEMA_EVOLUTION_DEFAULT = "none";

    public static final String PARTITION_COLUMNS = "partition.columns";
    static final String PARTITION_COLUMNS_DOC = "Comma-separated output columns the table is partitioned by, "
            + "in order, e.g. device_type,event_date. Each must be a column of the mapping, not of type binary, "
            + "struct, array or map, "
            + "listed once, and at least one column must be left out. As the Delta protocol says, an empty string "
            + "is stored as a null partition value (a reader returns null): in a NOT NULL partition column it is "
            + "a bad record. A value whose folder name (column=value, percent-escaped, non-ASCII as UTF-8 bytes) "
            + "would exceed 255 bytes, or whose folders would not fit in a 1024-byte object key, is a bad record too.";

    public static final String TABLE_PROPERTY_PREFIX = "delta.table.property.";
    static final String TABLE_PROPERTY_PREFIX_DOC = "Table properties set when the table is created: "
            + "delta.table.property.<key>=<value>, e.g. delta.table.property.delta.checkpointInterval=10 or "
            + "delta.table.property.delta.enableChangeDataFeed=true (the change data feed: appends read as inserts). "
            + "A delta.* key Delta does not know, or a value it refuses, is an error; other keys are stored as given; "
            + "delta.columnMapping.mode is not supported. An existing table keeps its properties (a difference is "
            + "logged).";

    public static final String COLUMNS = "columns";
    static final String COLUMNS_DOC = "The column mapping: comma-separated entries 'name:type=source', or 'auto'. "
            + "Types: string, int, long, short, byte, double, float, boolean, binary, date, timestamp, "
            + "timestamp(seconds|millis|micros|nanos) (the unit of numbers in the column, see timestamp.numeric.unit), "
            + "decimal(p,s), and nested types in Spark DDL: struct<name:type,...>, array<type>, map<string,type> "
            + "(nesting allowed, map keys string only; not for partition columns). "
            + "Sources: a path into the value (a.b.c; descends into fields that hold JSON text), @topic, @partition, "
            + "@offset, @timestamp, @key, @header.<name>, @now (processing time), raw(<path>) (the field's text), "
            + "date(<column>) (the UTC date of a timestamp column). 'auto' flattens a Struct or Map by its own shape "
            + "(nested names joined with '_'; a Struct's arrays and string-keyed maps become array and map columns), "
            + "taken from the first record.";
    static final String COLUMNS_DEFAULT = "auto";

    public static final String COLUMNS_NOT_NULL = "columns.not.null";
    static final String COLUMNS_NOT_NULL_DOC = "Columns that must have a value (NOT NULL in the table schema). "
            + "A record whose value for one of them is missing is a bad record (see errors.tolerance).";

    public static final String TIMESTAMP_NUMERIC_UNIT = "timestamp.numeric.unit";
    static final String TIMESTAMP_NUMERIC_UNIT_DOC = "The unit of a number (or text of only digits, optionally "
            + "signed, or a decimal number) in a timestamp column whose type names none: seconds, millis, micros "
            + "or nanos since 1970-01-01T00:00:00Z; fractions count (1.5 seconds is 1,500,000 microseconds), finer "
            + "than a microsecond is truncated. A column names its own with timestamp(seconds|millis|micros|nanos), "
            + "which wins. 'none': such numbers are bad records (see errors.tolerance), since epoch seconds and "
            + "epoch milliseconds cannot be told apart. ISO-8601 text, Connect Timestamp values and @timestamp "
            + "(Kafka's epoch milliseconds) need no unit; date columns take integers as days since 1970-01-01.";
    static final String TIMESTAMP_NUMERIC_UNIT_DEFAULT = "none";

    public static final String NULL_VALUE_BEHAVIOR = "behavior.on.null.values";
    static final String NULL_VALUE_BEHAVIOR_DOC = "What to do with a record whose value is null (a tombstone): "
            + "'ignore' skips it and counts it, 'fail' fails the task.";
    static final String NULL_VALUE_BEHAVIOR_DEFAULT = "ignore";

    public static final String TXN_APP_ID_TEMPLATE = "txn.app.id.template";
    static final String TXN_APP_ID_TEMPLATE_DOC = "The Delta txn appId under which each Kafka partition's "
            + "position is stored in the table log. Must contain ${topic} and ${partition}; ${connector} is the "
            + "connector name. Changing it on a running table makes the connector forget where it was.";
    static final String TXN_APP_ID_TEMPLATE_DEFAULT = AppIdTemplate.DEFAULT;

    public static final String TXN_ADOPT_CONNECTORS = "txn.adopt.connectors";
    static final String TXN_ADOPT_CONNECTORS_DOC = "Names of connectors whose positions in the table this connector "
            + "takes over, e.g. its own name before a rename. A Kafka partition the table holds no position of this "
            + "connector for, but one of a connector named here (same txn.app.id.template, or the default one), "
            + "resumes from that position, and the first commit marks the old appId as retired (txn version -1), so "
            + "that a still-running old connector is fenced. Without it, the task refuses to start on a table where "
            + "another connector keeps positions of the same Kafka partitions: both would write every record.";

    public static final String START_POSITION = "start.position";
    static final String START_POSITION_DOC = "Where to start reading a Kafka partition the table has never seen: "
            + "'group' follows the consumer group's committed offset (then consumer.auto.offset.reset), "
            + "'earliest' starts at the beginning of the partition. Partitions the table has seen always resume "
            + "from the table.";
    static final String START_POSITION_DEFAULT = "group";

    public static final String COMMIT_MAX_RETRIES = "commit.max.retries";
    static final String COMMIT_MAX_RETRIES_DOC = "How many times a commit is rebuilt on a newer table version when "
            + "an unrelated writer committed first.";
    static final int COMMIT_MAX_RETRIES_DEFAULT = 10;

    public static final String COMMIT_RETRY_BACKOFF_MS = "commit.retry.backoff.ms";
    static final String COMMIT_RETRY_BACKOFF_MS_DOC = "First wait before retrying a commit or recovering from a "
            + "storage error; doubles on each attempt, up to 30 s.";
    static final long COMMIT_RETRY_BACKOFF_MS_DEFAULT = 100L;

    public static final String FLUSH_MAX_RECORDS = "flush.max.records";
    static final String FLUSH_MAX_RECORDS_DOC = "Ask the worker for an early commit once this many rows are "
            + "buffered, and once the consumer has caught up with a backlog while at least a tenth of this many "
            + "rows wait (0: commit only every offset.flush.interval.ms of the worker).";
    static final int FLUSH_MAX_RECORDS_DEFAULT = 100_000;

    public static final String FILE_TARGET_BYTES = "file.target.bytes";
    static final String FILE_TARGET_BYTES_DOC = "A data file is closed once it reaches this size; the next rows "
            + "of its table partition go to a new file.";
    static final long FILE_TARGET_BYTES_DEFAULT = 128L << 20;

    public static final String BUFFER_MAX_BYTES = "buffer.max.bytes";
    static final String BUFFER_MAX_BYTES_DOC = "Bound on the memory a task holds for rows not yet in storage: "
            + "rows waiting for a file of their own, and every open file's rows (three times Parquet's count of "
            + "its buffered bytes, for dictionaries and buffer slack) plus a fixed overhead per open file (32 KiB "
            + "+ 20 KiB per data column, plus S3 upload blocks held in memory). When reached, the table partition "
            + "holding the most is written out early.";
    static final long BUFFER_MAX_BYTES_DEFAULT = 32L << 20;

    public static final String WRITER_BACKGROUND = "writer.background";
    static final String WRITER_BACKGROUND_DOC = "true: encode, compress and write the data files in a thread of "
            + "the task's own (named delta-writer-<connector>-<task>) while the task converts the next records; rows "
            + "go to it in chunks of 128 rows or 256 KiB (at most 4 chunks wait and one fills: 1.25 MiB "
            + "besides buffer.max.bytes). Each put() waits for its rows before returning, so a storage failure fails "
            + "that put() as without it. It can pay on a worker with idle cores; where the cores are busy (a broker "
            + "on the same machine, more tasks than cores) the hand-off costs more CPU than it saves. "
            + "false (the default): everything on the task's thread.";
    static final boolean WRITER_BACKGROUND_DEFAULT = false;

    public static final String CONVERT_THREADS = "convert.threads";
    static final String CONVERT_THREADS_DOC = "Threads that turn a put()'s records into rows, the task's own thread "
            + "included: with 2 or more the records are cut into chunks of 16 that each thread takes in turn (the "
            + "others are the task's own, named delta-convert-<connector>-<task>, numbered -1, -2.. from 3 threads "
            + "on), up to 1024 records or about 1 MiB of values at a time; "
            + "the rows are then taken in record order on the task's thread, so bad records, the dead letter queue "
            + "and errors are as with one thread. Only with configured columns (columns=auto converts on the "
            + "task's thread). 1, the default: the task's thread alone, the least CPU per record; more pays only "
            + "where the worker has cores to spare beside the task's thread, the writer thread and the JVM's own.";
    static final int CONVERT_THREADS_DEFAULT = 1;
    static final int CONVERT_THREADS_MAX = 16;

    public static final String BUFFER_MAX_OPEN_FILES = "buffer.max.open.files";
    static final String BUFFER_MAX_OPEN_FILES_DOC = "Most Parquet files a task keeps open at once; a table partition "
            + "gets an open file once its waiting rows reach the per-file overhead, and at the cap the least "
            + "recently written open file is closed first. 0: buffer.max.bytes / (2 x the per-file overhead), at "
            + "least 1 (about 60 open files for the seed preset with the default bound).";
    static final int BUFFER_MAX_OPEN_FILES_DEFAULT = 0;

    public static final String PARQUET_COMPRESSION = "parquet.compression";
    static final String PARQUET_COMPRESSION_DOC = "Compression codec of the data files.";
    static final String PARQUET_COMPRESSION_DEFAULT = "snappy";

    public static final String PARQUET_ROW_GROUP_BYTES = "parquet.row.group.bytes";
    static final String PARQUET_ROW_GROUP_BYTES_DOC = "Parquet row group size; a row group is held in memory "
            + "while it fills, so keep it small on a small heap.";
    static final long PARQUET_ROW_GROUP_BYTES_DEFAULT = 8L << 20;

    public static final String PARQUET_PAGE_BYTES = "parquet.page.bytes";
    static final String PARQUET_PAGE_BYTES_DOC = "Parquet page size: the unit of encoding and compression inside a row group.";
    static final int PARQUET_PAGE_BYTES_DEFAULT = 1 << 20;

    public static final String STATS_COLUMNS = "stats.num.indexed.cols";
    static final String STATS_COLUMNS_DOC = "Statistics (min, max, null count) are written for this many leading "
            + "data columns, as Delta's delta.dataSkippingNumIndexedCols.";
    static final int STATS_COLUMNS_DEFAULT = 32;

    public static final String S3_ENDPOINT = "s3.endpoint";
    static final String S3_ENDPOINT_DOC = "S3 endpoint for s3a:// (and s3://) tables, e.g. http://minio:9000 for MinIO "
            + "or https://s3.eu-central-1.amazonaws.com; a host[:port] without scheme is reached over "
            + "s3.ssl.enabled. Empty: the AWS endpoint of s3.region.";

    public static final String S3_REGION = "s3.region";
    static final String S3_REGION_DOC = "AWS region of the bucket, e.g. eu-central-1. MinIO accepts any value "
            + "(us-east-1 is usual). Empty: S3A works it out.";

    public static final String S3_ACCESS_KEY = "s3.access.key";
    static final String S3_ACCESS_KEY_DOC = "Access key id for S3. Give it together with s3.secret.key; with "
            + "neither, S3A's default AWS credential providers apply (environment variables AWS_ACCESS_KEY_ID / "
            + "AWS_SECRET_ACCESS_KEY, then the container or instance role); another chain can be set through "
            + "delta.hadoop.fs.s3a.aws.credentials.provider. Never logged nor shown by the validate call.";

    public static final String S3_SECRET_KEY = "s3.secret.key";
    static final String S3_SECRET_KEY_DOC = "Secret access key for S3, given together with s3.access.key. "
            + "Never logged.";

    public static final String S3_PATH_STYLE_ACCESS = "s3.path.style.access";
    static final String S3_PATH_STYLE_ACCESS_DOC = "Address buckets as endpoint/bucket instead of "
            + "bucket.endpoint. MinIO and most self-hosted S3 servers need true.";
    static final boolean S3_PATH_STYLE_ACCESS_DEFAULT = false;

    public static final String S3_SSL_ENABLED = "s3.ssl.enabled";
    static final String S3_SSL_ENABLED_DOC = "Use TLS (https) for S3 when s3.endpoint has no scheme; false for "
            + "a plain-HTTP MinIO on a LAN.";
    static final boolean S3_SSL_ENABLED_DEFAULT = true;

    public static final String S3_CONDITIONAL_WRITES = "s3.conditional.writes";
    static final String S3_CONDITIONAL_WRITES_DOC = "Create each commit file of an s3a:// table with an S3 conditional "
            + "write (If-None-Match), so several writers (tasks, workers, other Delta writers) never overwrite each "
            + "other's commits. Needs a store that supports conditional writes (AWS S3, MinIO, recent S3-compatible "
            + "servers). false: for a store without them; commits then use Delta's single-JVM S3 log store, and only "
            + "ONE connector task in ONE worker may write the table (tasks.max=1), or commits can be lost.";
    static final boolean S3_CONDITIONAL_WRITES_DEFAULT = true;

    public static final String COMPACTION_ENABLED = "compaction.enabled";
    static final String COMPACTION_ENABLED_DOC = "Compact the table from inside the connector: one task (task 0) "
            + "rewrites the small files of cold table partitions into files near compaction.target.file.bytes, in a "
            + "background thread, as one commit of remove and add actions with dataChange=false. Runs every "
            + "compaction.interval.ms and/or after compaction.interval.commits commits of that task, at most "
            + "compaction.max.bytes.per.run per run. A failed run is logged and counted; ingestion goes on.";
    static final boolean COMPACTION_ENABLED_DEFAULT = false;

    public static final String COMPACTION_INTERVAL_MS = "compaction.interval.ms";
    static final String COMPACTION_INTERVAL_MS_DOC = "Time between the starts of two compaction runs (the first "
            + "one this long after the task started, at most 5 minutes). 0: only compaction.interval.commits "
            + "triggers a run.";
    static final long COMPACTION_INTERVAL_MS_DEFAULT = 3_600_000L;

    public static final String COMPACTION_INTERVAL_COMMITS = "compaction.interval.commits";
    static final String COMPACTION_INTERVAL_COMMITS_DOC = "Also run a compaction after this many commits of the "
            + "compacting task since its last run (0: only compaction.interval.ms triggers a run).";
    static final int COMPACTION_INTERVAL_COMMITS_DEFAULT = 0;

    public static final String COMPACTION_TARGET_FILE_BYTES = "compaction.target.file.bytes";
    static final String COMPACTION_TARGET_FILE_BYTES_DOC = "Size near which a compacted file is closed: small files "
            + "of a table partition are bin-packed into files of about this size.";
    static final long COMPACTION_TARGET_FILE_BYTES_DEFAULT = 128L << 20;

    public static final String COMPACTION_MAX_BYTES_PER_RUN = "compaction.max.bytes.per.run";
    static final String COMPACTION_MAX_BYTES_PER_RUN_DOC = "Bound on the input bytes one compaction run rewrites "
            + "(whole table partitions' bins, coldest first; at least one bin); the rest waits for the next run.";
    static final long COMPACTION_MAX_BYTES_PER_RUN_DEFAULT = 256L << 20;

    public static final String COMPACTION_MIN_AGE_MS = "compaction.min.age.ms";
    static final String COMPACTION_MIN_AGE_MS_DOC = "A table partition whose newest file is younger than this is "
            + "left alone (still being written: today's event_date); cold partitions are compacted first.";
    static final long COMPACTION_MIN_AGE_MS_DEFAULT = 3_600_000L;

    public static final String VACUUM_ENABLED = "vacuum.enabled";
    static final String VACUUM_ENABLED_DOC = "Vacuum the table from inside the connector (the task that compacts, "
            + "task 0, in the same background thread): delete files the current snapshot does not reference that "
            + "were removed, or written and never committed, longer than vacuum.retention.ms ago, and expired log "
            + "files. A failed run is logged and counted; ingestion goes on.";
    static final boolean VACUUM_ENABLED_DEFAULT = false;

    public static final String VACUUM_INTERVAL_MS = "vacuum.interval.ms";
    static final String VACUUM_INTERVAL_MS_DOC = "Time between the starts of two vacuum runs (the first one this "
            + "long after the task started, at most 5 minutes).";
    static final long VACUUM_INTERVAL_MS_DEFAULT = 86_400_000L;

    public static final String VACUUM_RETENTION_MS = "vacuum.retention.ms";
    static final String VACUUM_RETENTION_MS_DOC = "Files unreferenced for less than this are kept (readers of older "
            + "versions, time travel). -1: the table's delta.deletedFileRetentionDuration (7 days unless set). A "
            + "value set here applies even when shorter than the table's, but never below the floor that protects "
            + "files a running writer has not committed yet (a run below it fails and is counted).";
    static final long VACUUM_RETENTION_MS_DEFAULT = -1L;

    public static final String HADOOP_PREFIX = "delta.hadoop.";
    static final String HADOOP_PREFIX_DOC = "Hadoop filesystem settings passed through: delta.hadoop.<key>=<value>, "
            + "e.g. delta.hadoop.fs.s3a.connection.maximum=8. They override what the s3.* keys set.";

    /** Connect's own keys the task reads (set by the worker's connector config). */
    public static final String CONNECTOR_NAME = "name";
    public static final String ERRORS_TOLERANCE = "errors.tolerance";
    /**
     * Set by the connector in each task's config (0, 1, ...), not by users: task 0 is the one that
     * compacts and vacuums the table.
     */
    public static final String TASK_INDEX = "deltasink.task.index";

    /** The wildcard keys: documented in the reference, accepted by prefix. */
    static final List<String[]> PREFIXES = List.of(
            new String[] {TABLE_PROPERTY_PREFIX + "*", GROUP_TABLE, TABLE_PROPERTY_PREFIX_DOC},
            new String[] {HADOOP_PREFIX + "*", GROUP_STORAGE, HADOOP_PREFIX_DOC});

    public static ConfigDef configDef() {
        ConfigDef def = new ConfigDef();
        int order = 0;
        def.define(TABLE_LOCATION, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, Validators.TABLE_LOCATION,
                Importance.HIGH, TABLE_LOCATION_DOC, GROUP_TABLE, ++order, Width.LONG, "Table location");
        def.define(TABLE_ROUTE_FIELD, Type.STRING, "",
                Importance.MEDIUM, TABLE_ROUTE_FIELD_DOC, GROUP_TABLE, ++order, Width.MEDIUM, "Route field");
        def.define(TABLE_AUTO_CREATE, Type.BOOLEAN, TABLE_AUTO_CREATE_DEFAULT,
                Importance.MEDIUM, TABLE_AUTO_CREATE_DOC, GROUP_TABLE, ++order, Width.SHORT, "Create missing table");
        def.define(SCHEMA_EVOLUTION, Type.STRING, SCHEMA_EVOLUTION_DEFAULT, Validators.oneOf("none", "add-columns",
                "add-columns,widen-types"),
                Importance.MEDIUM, SCHEMA_EVOLUTION_DOC, GROUP_TABLE, ++order, Width.SHORT, "Schema evolution");
        def.define(PARTITION_COLUMNS, Type.LIST, "",
                Importance.HIGH, PARTITION_COLUMNS_DOC, GROUP_TABLE, ++order, Width.MEDIUM, "Partition columns");

        order = 0;
        def.define(COLUMNS, Type.STRING, COLUMNS_DEFAULT, Validators.COLUMNS,
                Importance.HIGH, COLUMNS_DOC, GROUP_MAPPING, ++order, Width.LONG, "Column mapping");
        def.define(COLUMNS_NOT_NULL, Type.LIST, "",
                Importance.MEDIUM, COLUMNS_NOT_NULL_DOC, GROUP_MAPPING, ++order, Width.MEDIUM, "Not-null columns");
        def.define(TIMESTAMP_NUMERIC_UNIT, Type.STRING, TIMESTAMP_NUMERIC_UNIT_DEFAULT,
                Validators.oneOf("none", "seconds", "millis", "micros", "nanos"),
                Importance.MEDIUM, TIMESTAMP_NUMERIC_UNIT_DOC, GROUP_MAPPING, ++order, Width.SHORT, "Unit of numeric timestamps");
        def.define(NULL_VALUE_BEHAVIOR, Type.STRING, NULL_VALUE_BEHAVIOR_DEFAULT,
                Validators.oneOf("ignore", "fail"),
                Importance.MEDIUM, NULL_VALUE_BEHAVIOR_DOC, GROUP_MAPPING, ++order, Width.SHORT, "On null value");

        order = 0;
        def.define(TXN_APP_ID_TEMPLATE, Type.STRING, TXN_APP_ID_TEMPLATE_DEFAULT, Validators.APP_ID_TEMPLATE,
                Importance.LOW, TXN_APP_ID_TEMPLATE_DOC, GROUP_EXACTLY_ONCE, ++order, Width.MEDIUM, "txn appId template");
        def.define(TXN_ADOPT_CONNECTORS, Type.LIST, "",
                Importance.LOW, TXN_ADOPT_CONNECTORS_DOC, GROUP_EXACTLY_ONCE, ++order, Width.MEDIUM, "Adopt positions of");
        def.define(START_POSITION, Type.STRING, START_POSITION_DEFAULT, Validators.oneOf("group", "earliest"),
                Importance.MEDIUM, START_POSITION_DOC, GROUP_EXACTLY_ONCE, ++order, Width.SHORT, "Start position");
        def.define(COMMIT_MAX_RETRIES, Type.INT, COMMIT_MAX_RETRIES_DEFAULT, ConfigDef.Range.between(0, 1000),
                Importance.LOW, COMMIT_MAX_RETRIES_DOC, GROUP_EXACTLY_ONCE, ++order, Width.SHORT, "Commit retries");
        def.define(COMMIT_RETRY_BACKOFF_MS, Type.LONG, COMMIT_RETRY_BACKOFF_MS_DEFAULT, ConfigDef.Range.between(1, 60_000),
                Importance.LOW, COMMIT_RETRY_BACKOFF_MS_DOC, GROUP_EXACTLY_ONCE, ++order, Width.SHORT, "Retry backoff (ms)");

        order = 0;
        def.define(FLUSH_MAX_RECORDS, Type.INT, FLUSH_MAX_RECORDS_DEFAULT, ConfigDef.Range.atLeast(0),
                Importance.MEDIUM, FLUSH_MAX_RECORDS_DOC, GROUP_FILES, ++order, Width.SHORT, "Early commit after rows");
        def.define(FILE_TARGET_BYTES, Type.LONG, FILE_TARGET_BYTES_DEFAULT, ConfigDef.Range.atLeast(1024),
                Importance.MEDIUM, FILE_TARGET_BYTES_DOC, GROUP_FILES, ++order, Width.SHORT, "Target file size");
        def.define(BUFFER_MAX_BYTES, Type.LONG, BUFFER_MAX_BYTES_DEFAULT, ConfigDef.Range.atLeast(64 * 1024),
                Importance.MEDIUM, BUFFER_MAX_BYTES_DOC, GROUP_FILES, ++order, Width.SHORT, "Buffer bound");
        def.define(BUFFER_MAX_OPEN_FILES, Type.INT, BUFFER_MAX_OPEN_FILES_DEFAULT, ConfigDef.Range.between(0, 100_000),
                Importance.LOW, BUFFER_MAX_OPEN_FILES_DOC, GROUP_FILES, ++order, Width.SHORT, "Open files cap");
        def.define(WRITER_BACKGROUND, Type.BOOLEAN, WRITER_BACKGROUND_DEFAULT,
                Importance.LOW, WRITER_BACKGROUND_DOC, GROUP_FILES, ++order, Width.SHORT, "Background writer");
        def.define(CONVERT_THREADS, Type.INT, CONVERT_THREADS_DEFAULT, ConfigDef.Range.between(1, CONVERT_THREADS_MAX),
                Importance.LOW, CONVERT_THREADS_DOC, GROUP_FILES, ++order, Width.SHORT, "Conversion threads");
        def.define(PARQUET_COMPRESSION, Type.STRING, PARQUET_COMPRESSION_DEFAULT,
                Validators.oneOf("snappy", "zstd", "gzip", "uncompressed"),
                Importance.LOW, PARQUET_COMPRESSION_DOC, GROUP_FILES, ++order, Width.SHORT, "Compression");
        def.define(PARQUET_ROW_GROUP_BYTES, Type.LONG, PARQUET_ROW_GROUP_BYTES_DEFAULT, ConfigDef.Range.atLeast(64 * 1024),
                Importance.LOW, PARQUET_ROW_GROUP_BYTES_DOC, GROUP_FILES, ++order, Width.SHORT, "Row group size");
        def.define(PARQUET_PAGE_BYTES, Type.INT, PARQUET_PAGE_BYTES_DEFAULT, ConfigDef.Range.atLeast(4 * 1024),
                Importance.LOW, PARQUET_PAGE_BYTES_DOC, GROUP_FILES, ++order, Width.SHORT, "Page size");
        def.define(STATS_COLUMNS, Type.INT, STATS_COLUMNS_DEFAULT, ConfigDef.Range.between(0, 1000),
                Importance.LOW, STATS_COLUMNS_DOC, GROUP_FILES, ++order, Width.SHORT, "Stats columns");

        order = 0;
        def.define(S3_ENDPOINT, Type.STRING, "",
                Importance.HIGH, S3_ENDPOINT_DOC, GROUP_STORAGE, ++order, Width.LONG, "S3 endpoint");
        def.define(S3_REGION, Type.STRING, "",
                Importance.MEDIUM, S3_REGION_DOC, GROUP_STORAGE, ++order, Width.SHORT, "S3 region");
        def.define(S3_ACCESS_KEY, Type.PASSWORD, "",
                Importance.HIGH, S3_ACCESS_KEY_DOC, GROUP_STORAGE, ++order, Width.MEDIUM, "S3 access key");
        def.define(S3_SECRET_KEY, Type.PASSWORD, "",
                Importance.HIGH, S3_SECRET_KEY_DOC, GROUP_STORAGE, ++order, Width.MEDIUM, "S3 secret key");
        def.define(S3_PATH_STYLE_ACCESS, Type.BOOLEAN, S3_PATH_STYLE_ACCESS_DEFAULT,
                Importance.MEDIUM, S3_PATH_STYLE_ACCESS_DOC, GROUP_STORAGE, ++order, Width.SHORT, "Path-style access");
        def.define(S3_SSL_ENABLED, Type.BOOLEAN, S3_SSL_ENABLED_DEFAULT,
                Importance.MEDIUM, S3_SSL_ENABLED_DOC, GROUP_STORAGE, ++order, Width.SHORT, "S3 TLS");
        def.define(S3_CONDITIONAL_WRITES, Type.BOOLEAN, S3_CONDITIONAL_WRITES_DEFAULT,
                Importance.LOW, S3_CONDITIONAL_WRITES_DOC, GROUP_STORAGE, ++order, Width.SHORT, "S3 conditional writes");

        order = 0;
        def.define(COMPACTION_ENABLED, Type.BOOLEAN, COMPACTION_ENABLED_DEFAULT,
                Importance.MEDIUM, COMPACTION_ENABLED_DOC, GROUP_MAINTENANCE, ++order, Width.SHORT, "Compaction");
        def.define(COMPACTION_INTERVAL_MS, Type.LONG, COMPACTION_INTERVAL_MS_DEFAULT, ConfigDef.Range.atLeast(0),
                Importance.MEDIUM, COMPACTION_INTERVAL_MS_DOC, GROUP_MAINTENANCE, ++order, Width.SHORT,
                "Compaction interval (ms)");
        def.define(COMPACTION_INTERVAL_COMMITS, Type.INT, COMPACTION_INTERVAL_COMMITS_DEFAULT, ConfigDef.Range.atLeast(0),
                Importance.LOW, COMPACTION_INTERVAL_COMMITS_DOC, GROUP_MAINTENANCE, ++order, Width.SHORT,
                "Compaction after commits");
        def.define(COMPACTION_TARGET_FILE_BYTES, Type.LONG, COMPACTION_TARGET_FILE_BYTES_DEFAULT,
                ConfigDef.Range.atLeast(1024), Importance.MEDIUM, COMPACTION_TARGET_FILE_BYTES_DOC, GROUP_MAINTENANCE,
                ++order, Width.SHORT, "Compacted file size");
        def.define(COMPACTION_MAX_BYTES_PER_RUN, Type.LONG, COMPACTION_MAX_BYTES_PER_RUN_DEFAULT,
                ConfigDef.Range.atLeast(1024), Importance.LOW, COMPACTION_MAX_BYTES_PER_RUN_DOC, GROUP_MAINTENANCE,
                ++order, Width.SHORT, "Compaction bytes per run");
        def.define(COMPACTION_MIN_AGE_MS, Type.LONG, COMPACTION_MIN_AGE_MS_DEFAULT, ConfigDef.Range.atLeast(0),
                Importance.LOW, COMPACTION_MIN_AGE_MS_DOC, GROUP_MAINTENANCE, ++order, Width.SHORT,
                "Compaction min age (ms)");
        def.define(VACUUM_ENABLED, Type.BOOLEAN, VACUUM_ENABLED_DEFAULT,
                Importance.MEDIUM, VACUUM_ENABLED_DOC, GROUP_MAINTENANCE, ++order, Width.SHORT, "Vacuum");
        def.define(VACUUM_INTERVAL_MS, Type.LONG, VACUUM_INTERVAL_MS_DEFAULT, ConfigDef.Range.atLeast(1000),
                Importance.LOW, VACUUM_INTERVAL_MS_DOC, GROUP_MAINTENANCE, ++order, Width.SHORT, "Vacuum interval (ms)");
        def.define(VACUUM_RETENTION_MS, Type.LONG, VACUUM_RETENTION_MS_DEFAULT, ConfigDef.Range.atLeast(-1),
                Importance.MEDIUM, VACUUM_RETENTION_MS_DOC, GROUP_MAINTENANCE, ++order, Width.SHORT,
                "Vacuum retention (ms)");
        return def;
    }

    public DeltaSinkConfig(Map<String, String> props) {
        super(configDef(), props);
    }

    /** The table location as configured: with {@link #TOPIC_VARIABLE} when each topic has a table of its own. */
    public String tableLocation() {
        return getString(TABLE_LOCATION).trim();
    }

    /** Whether table.location holds {@link #TOPIC_VARIABLE}: a table per topic. */
    public boolean tablePerTopic() {
        return tableLocation().contains(TOPIC_VARIABLE);
    }

    /** Whether table.location holds {@link #ROUTE_VARIABLE}: a table per value of table.route.field. */
    public boolean tablePerField() {
        return tableLocation().contains(ROUTE_VARIABLE);
    }

    /** The path of table.route.field, empty when not set. */
    public String routeField() {
        return getString(TABLE_ROUTE_FIELD).trim();
    }

    /**
     * The part of table.location before {@link #TOPIC_VARIABLE} or {@link #ROUTE_VARIABLE} (the whole
     * location without either): every table of the connector lies under it.
     */
    public String tableLocationRoot() {
        String location = tableLocation();
        int at = location.indexOf(TOPIC_VARIABLE);
        if (at < 0) {
            at = location.indexOf(ROUTE_VARIABLE);
        }
        return at < 0 ? location : location.substring(0, at);
    }

    /**
     * The location of the table of a route's folder name (see table.route.field; made by the session
     * from the field's value, never holding '/', '.' or '..').
     */
    public String tableLocationOfRoute(String folder) {
        return tableLocation().replace(ROUTE_VARIABLE, folder);
    }

    /** Why ${route} and table.route.field do not fit together, or null. */
    public String routeProblem() {
        if (tablePerField() && routeField().isEmpty()) {
            return TABLE_LOCATION + " holds " + ROUTE_VARIABLE + " but " + TABLE_ROUTE_FIELD + " is empty: name the "
                    + "field whose value names the table, e.g. " + TABLE_ROUTE_FIELD + "=device_type";
        }
        if (!tablePerField() && !routeField().isEmpty()) {
            return TABLE_ROUTE_FIELD + " is set but " + TABLE_LOCATION + " holds no " + ROUTE_VARIABLE + ": write "
                    + "e.g. s3a://bucket/delta/${route}, or leave " + TABLE_ROUTE_FIELD + " empty";
        }
        return null;
    }

    /**
     * The location of the table that {@code topic} is written to: table.location with the topic
     * name for {@link #TOPIC_VARIABLE}. Throws for a name that is no Kafka topic name (which could
     * lead the path out of {@link #tableLocationRoot()}).
     */
    public String tableLocation(String topic) {
        if (!tablePerTopic()) {
            return tableLocation();
        }
        if (!Validators.isTopicName(topic)) {
            throw new ConfigException("Topic name '" + topic + "' cannot be put into " + TABLE_LOCATION + "="
                    + tableLocation() + ": only Kafka topic names (letters, digits, '.', '_', '-', not '.' or '..') "
                    + "are, so that the table stays under " + tableLocationRoot());
        }
        return tableLocation().replace(TOPIC_VARIABLE, topic);
    }

    /**
     * Why automatic maintenance cannot run with these settings, or null: with a table per topic
     * task 0 would not know every table, so it is not offered yet.
     */
    public String maintenanceProblem() {
        if ((tablePerTopic() || tablePerField()) && (compactionEnabled() || vacuumEnabled())) {
            return "automatic compaction and vacuum are not offered with "
                    + (tablePerTopic() ? TOPIC_VARIABLE : ROUTE_VARIABLE) + " in " + TABLE_LOCATION
                    + " yet: set " + COMPACTION_ENABLED + "=false and " + VACUUM_ENABLED + "=false and run the "
                    + "maintenance tool per table";
        }
        return null;
    }

    public boolean autoCreate() {
        return getBoolean(TABLE_AUTO_CREATE);
    }

    /** What may change in an existing table's schema ({@code schema.evolution}): none, add-columns or add-columns,widen-types. */
    public String schemaEvolution() {
        return getString(SCHEMA_EVOLUTION).trim().toLowerCase(Locale.ROOT);
    }

    public List<String> partitionColumns() {
        return trimmed(getList(PARTITION_COLUMNS));
    }

    public String columns() {
        return getString(COLUMNS);
    }

    public boolean autoColumns() {
        return COLUMNS_DEFAULT.equalsIgnoreCase(columns().trim());
    }

    public List<String> notNullColumns() {
        return trimmed(getList(COLUMNS_NOT_NULL));
    }

    /** The unit of numbers in timestamp columns without one of their own: none, seconds, millis, micros or nanos. */
    public String timestampNumericUnit() {
        return getString(TIMESTAMP_NUMERIC_UNIT).trim().toLowerCase(Locale.ROOT);
    }

    public boolean failOnNullValues() {
        return "fail".equals(getString(NULL_VALUE_BEHAVIOR).trim().toLowerCase(Locale.ROOT));
    }

    public AppIdTemplate appIdTemplate() {
        return new AppIdTemplate(getString(TXN_APP_ID_TEMPLATE));
    }

    /** The txn appId under which the table stores the position of one Kafka partition. */
    public String appId(String topic, int partition) {
        return appIdTemplate().render(connectorName(), topic, partition);
    }

    /** Former names of this connector whose positions in the table it takes over (txn.adopt.connectors). */
    public List<String> adoptConnectors() {
        return trimmed(getList(TXN_ADOPT_CONNECTORS));
    }

    public boolean startEarliest() {
        return "earliest".equals(getString(START_POSITION).trim().toLowerCase(Locale.ROOT));
    }

    public int commitMaxRetries() {
        return getInt(COMMIT_MAX_RETRIES);
    }

    public long retryBackoffMs() {
        return getLong(COMMIT_RETRY_BACKOFF_MS);
    }

    public int flushMaxRecords() {
        return getInt(FLUSH_MAX_RECORDS);
    }

    public long fileTargetBytes() {
        return getLong(FILE_TARGET_BYTES);
    }

    public long bufferMaxBytes() {
        return getLong(BUFFER_MAX_BYTES);
    }

    public boolean writerBackground() {
        return getBoolean(WRITER_BACKGROUND);
    }

    public int convertThreads() {
        return getInt(CONVERT_THREADS);
    }

    /** The configured cap on open files; 0 when it is to be derived from the bound. */
    public int bufferMaxOpenFiles() {
        return getInt(BUFFER_MAX_OPEN_FILES);
    }

    public String compression() {
        return getString(PARQUET_COMPRESSION).trim().toLowerCase(Locale.ROOT);
    }

    public long rowGroupBytes() {
        return getLong(PARQUET_ROW_GROUP_BYTES);
    }

    public int pageBytes() {
        return getInt(PARQUET_PAGE_BYTES);
    }

    public int statsColumns() {
        return getInt(STATS_COLUMNS);
    }

    public String s3Endpoint() {
        return getString(S3_ENDPOINT).trim();
    }

    public String s3Region() {
        return getString(S3_REGION).trim();
    }

    /** The access key id; empty when not given. A PASSWORD like the secret: never log it. */
    public String s3AccessKey() {
        Password key = getPassword(S3_ACCESS_KEY);
        return key == null || key.value() == null ? "" : key.value().trim();
    }

    /** The secret key; empty when not given. Never log it or put it in a message. */
    public String s3SecretKey() {
        Password secret = getPassword(S3_SECRET_KEY);
        return secret == null || secret.value() == null ? "" : secret.value().trim();
    }

    public boolean s3PathStyleAccess() {
        return getBoolean(S3_PATH_STYLE_ACCESS);
    }

    public boolean s3SslEnabled() {
        return getBoolean(S3_SSL_ENABLED);
    }

    public boolean s3ConditionalWrites() {
        return getBoolean(S3_CONDITIONAL_WRITES);
    }

    public boolean compactionEnabled() {
        return getBoolean(COMPACTION_ENABLED);
    }

    /** Time between compaction runs; 0 when only the commit count triggers one. */
    public long compactionIntervalMs() {
        return getLong(COMPACTION_INTERVAL_MS);
    }

    /** Commits of the compacting task after which a compaction runs; 0 when only time triggers one. */
    public int compactionIntervalCommits() {
        return getInt(COMPACTION_INTERVAL_COMMITS);
    }

    public long compactionTargetFileBytes() {
        return getLong(COMPACTION_TARGET_FILE_BYTES);
    }

    public long compactionMaxBytesPerRun() {
        return getLong(COMPACTION_MAX_BYTES_PER_RUN);
    }

    public long compactionMinAgeMs() {
        return getLong(COMPACTION_MIN_AGE_MS);
    }

    public boolean vacuumEnabled() {
        return getBoolean(VACUUM_ENABLED);
    }

    public long vacuumIntervalMs() {
        return getLong(VACUUM_INTERVAL_MS);
    }

    /** The vacuum retention; -1 for the table's own (delta.deletedFileRetentionDuration). */
    public long vacuumRetentionMs() {
        return getLong(VACUUM_RETENTION_MS);
    }

    /** This task's index among the connector's tasks, as the connector numbered them; -1 when not numbered. */
    public int taskIndex() {
        Object index = originals().get(TASK_INDEX);
        try {
            return index == null ? -1 : Integer.parseInt(index.toString().trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Table properties from delta.table.property.*, prefix removed. */
    public Map<String, String> tableProperties() {
        return withPrefix(TABLE_PROPERTY_PREFIX);
    }

    /** Hadoop settings from delta.hadoop.*, prefix removed. */
    public Map<String, String> hadoopSettings() {
        return withPrefix(HADOOP_PREFIX);
    }

    public String connectorName() {
        Object name = originals().get(CONNECTOR_NAME);
        return name == null ? "delta-sink" : name.toString();
    }

    /** True when the worker tolerates bad records (errors.tolerance=all). */
    public boolean toleratesErrors() {
        Object tolerance = originals().get(ERRORS_TOLERANCE);
        return tolerance != null && "all".equalsIgnoreCase(tolerance.toString().trim());
    }

    private Map<String, String> withPrefix(String prefix) {
        Map<String, String> out = new HashMap<>();
        for (Map.Entry<String, Object> e : originalsWithPrefix(prefix).entrySet()) {
            out.put(e.getKey(), e.getValue() == null ? null : e.getValue().toString());
        }
        return Collections.unmodifiableMap(out);
    }

    private static List<String> trimmed(List<String> values) {
        List<String> out = new ArrayList<>();
        for (String v : values) {
            if (!v.trim().isEmpty()) {
                out.add(v.trim());
            }
        }
        return out;
    }
}
