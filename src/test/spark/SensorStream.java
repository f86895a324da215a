import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.from_json;
import static org.apache.spark.sql.functions.get_json_object;
import static org.apache.spark.sql.functions.to_date;
import static org.apache.spark.sql.functions.to_timestamp;

import java.io.IOException;
import java.io.InputStream;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The Spark Structured Streaming job of the seed pipeline, ported from its PySpark: the Kafka
 * source from the earliest offsets, the producer's JSON envelope parsed with from_json, the
 * payload's fields taken with get_json_object and cast, event_time and event_date derived, appended
 * to a Delta table partitioned by device_type and event_date, with a checkpoint directory. Two
 * choices differ from the seed, for a backlog: no maxOffsetsPerTrigger (the seed's 1000 is a
 * ceiling for a live stream; a backlog of 1,000,000 would take 1,000 triggers) and the default
 * trigger (the next batch as soon as the last ends) instead of every 60 seconds. The watermark is
 * kept: it does nothing for an append without aggregation.
 *
 * <p>Prints "STARTED epochMillis" when the query starts and "BATCH id rows epochMillis endOffsets"
 * after each batch is committed; stops the query when its standard input ends. Run in a JVM of its
 * own on the class path of pom.xml beside it (io.deltasink.bench.SparkStreamBench does):
 * {@code java -cp <that class path> SensorStream bootstrapServers topic tablePath checkpointPath}.
 */
public final class SensorStream {
    private static final StructType EVENT_SCHEMA = new StructType()
            .add("device_id", DataTypes.StringType, false)
            .add("device_type", DataTypes.StringType, false)
            .add("ingested_at", DataTypes.StringType, false)
            .add("payload", DataTypes.StringType, true);

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        String table = args[2];
        String checkpoint = args[3];
        SparkSession spark = SparkSession.builder()
                .appName("sensor-stream")
                .master("local[2]")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.default.parallelism", "2")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.catalogImplementation", "in-memory")
                .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
                .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
                .getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        spark.streams().addListener(new StreamingQueryListener() {
            @Override
            public void onQueryStarted(QueryStartedEvent event) {
                System.out.println("STARTED " + System.currentTimeMillis());
            }

            @Override
            public void onQueryProgress(QueryProgressEvent event) {
                var p = event.progress();
                System.out.println("BATCH " + p.batchId() + " " + p.numInputRows() + " " + System.currentTimeMillis()
                        + " " + p.sources()[0].endOffset().replaceAll("\\s", ""));
            }

            @Override
            public void onQueryTerminated(QueryTerminatedEvent event) {
                System.out.println("TERMINATED " + event.exception().getOrElse(() -> ""));
            }
        });

        Dataset<Row> raw = spark.readStream()
                .format("kafka")
                .option("kafka.bootstrap.servers", bootstrap)
                .option("subscribe", topic)
                .option("kafka.group.id", "spark-sensor-consumer")
                .option("startingOffsets", "earliest")
                .load();
        Dataset<Row> parsed = raw
                .select(from_json(col("value").cast("string"), EVENT_SCHEMA).alias("e"))
                .select(
                        col("e.device_id"),
                        col("e.device_type"),
                        to_timestamp(col("e.ingested_at")).alias("event_time"),
                        get_json_object(col("e.payload"), "$.linkquality").cast(DataTypes.IntegerType).alias("linkquality"),
                        get_json_object(col("e.payload"), "$.contact").cast(DataTypes.BooleanType).alias("contact"),
                        get_json_object(col("e.payload"), "$.battery").cast(DataTypes.IntegerType).alias("battery"),
                        get_json_object(col("e.payload"), "$.power").cast(DataTypes.DoubleType).alias("power"),
                        get_json_object(col("e.payload"), "$.voltage").cast(DataTypes.DoubleType).alias("voltage"),
                        get_json_object(col("e.payload"), "$.current").cast(DataTypes.DoubleType).alias("current"),
                        get_json_object(col("e.payload"), "$.energy").cast(DataTypes.DoubleType).alias("energy"),
                        get_json_object(col("e.payload"), "$.state").alias("plug_state"),
                        col("e.payload").alias("raw_payload"),
                        current_timestamp().alias("processed_at"))
                .withWatermark("event_time", "5 minutes")
                .withColumn("event_date", to_date(col("event_time")));
        StreamingQuery query = parsed.writeStream()
                .format("delta")
                .outputMode("append")
                .option("checkpointLocation", checkpoint)
                .partitionBy("device_type", "event_date")
                .start(table);
        System.out.println("QUERY " + query.id());
        drain(System.in);
        query.processAllAvailable(); // the batch's offsets committed to the checkpoint and its progress reported
        query.stop();
        spark.stop();
    }

    /** Returns when the input ends: the bench closes it once the rows are committed (or the bench dies). */
    private static void drain(InputStream in) throws IOException {
        byte[] buffer = new byte[256];
        while (in.read(buffer) >= 0) {
            // nothing to read but the end
        }
    }
}
