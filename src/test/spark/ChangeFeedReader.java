import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Reads a Delta table's change data feed with Spark's readChangeFeed, as a downstream CDF to MERGE
 * pipeline does, and prints each change row as one JSON line after "CHANGE ". Run in a JVM of its
 * own on the class path of pom.xml beside it (Java's source launcher compiles it):
 * {@code java -cp <that class path> ChangeFeedReader.java <table path> <starting version>}.
 */
public final class ChangeFeedReader {
    public static void main(String[] args) {
        String table = args[0];
        String startingVersion = args[1];
        SparkSession spark = SparkSession.builder()
                .master("local[1]")
                .appName("change-feed-reader")
                .config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", "1")
                .config("spark.sql.session.timeZone", "UTC")
                .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
                .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
                .getOrCreate();
        try {
            Dataset<Row> changes = spark.read().format("delta")
                    .option("readChangeFeed", "true")
                    .option("startingVersion", startingVersion)
                    .load(table);
            List<String> rows = changes.toJSON().collectAsList();
            for (String row : rows) {
                System.out.println("CHANGE " + row);
            }
            System.out.println("CHANGES " + rows.size());
        } finally {
            spark.stop();
        }
    }
}
