import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Reads Delta tables with Spark, as a downstream Spark job does, and prints for each its schema
 * ("SCHEMA label json"), each row as one JSON line ("ROW label json", nulls kept at every level)
 * and the count ("ROWS label n"), or the error Spark gave ("ERROR label message"), so that one
 * table Spark refuses does not hide the others, then "DONE label". One Spark for all tables of a
 * test run: the specs come as arguments, or else one a line on standard input until it ends. Each
 * spec is {@code label=path} (a plain read) or
 * {@code label=cdf:startingVersion:endingVersion:schemaMode:path} (readChangeFeed; "-" for no
 * ending version or Delta's default schema mode). Run in a JVM of its own on the class path of
 * pom.xml beside it (Java's source launcher compiles it; io.deltasink.testing.SparkTables does):
 * {@code java -cp <that class path> TableReader.java [<spec>...]}.
 */
public final class TableReader {
    private static final String SCHEMA_MODE =
            "spark.databricks.delta.changeDataFeed.defaultSchemaModeForColumnMappingTable";

    public static void main(String[] args) throws IOException {
        SparkSession spark = SparkSession.builder()
                .master("local[1]")
                .appName("table-reader")
                .config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", "1")
                .config("spark.sql.session.timeZone", "UTC")
                .config("spark.sql.jsonGenerator.ignoreNullFields", "false")
                .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
                .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
                .getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        try {
            if (args.length > 0) {
                for (String spec : args) {
                    read(spark, spec);
                }
            } else {
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                for (String spec = in.readLine(); spec != null; spec = in.readLine()) {
                    read(spark, spec);
                }
            }
        } finally {
            spark.stop();
        }
    }

    private static void read(SparkSession spark, String spec) {
        int eq = spec.indexOf('=');
        String label = spec.substring(0, eq);
        String what = spec.substring(eq + 1);
        try {
            Dataset<Row> rows;
            if (what.startsWith("cdf:")) {
                String[] cdf = what.split(":", 5);
                DataFrameReader reader = spark.read().format("delta")
                        .option("readChangeFeed", "true")
                        .option("startingVersion", cdf[1]);
                if (!cdf[2].equals("-")) {
                    reader = reader.option("endingVersion", cdf[2]);
                }
                if (cdf[3].equals("-")) {
                    spark.conf().unset(SCHEMA_MODE);
                } else {
                    spark.conf().set(SCHEMA_MODE, cdf[3]);
                }
                rows = reader.load(cdf[4]);
            } else {
                rows = spark.read().format("delta").load(what);
            }
            System.out.println("SCHEMA " + label + " " + rows.schema().json());
            List<String> json = rows.toJSON().collectAsList();
            for (String row : json) {
                System.out.println("ROW " + label + " " + row);
            }
            System.out.println("ROWS " + label + " " + json.size());
        } catch (Exception e) {
            System.out.println("ERROR " + label + " " + String.valueOf(e).replace('\n', ' '));
        }
        System.out.println("DONE " + label);
        System.out.flush();
    }
}
