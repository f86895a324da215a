package io.deltasink.tool;

/** The {@code --help} text, for the command line as a whole and for each command. */
final class Usage {
    private static final String COMMON = """
              --table <location>     the table: a local path, file:///..., or s3a://bucket/path
              --config <file>        a connector config (as PUT to a worker: {"name":..,"config":{..}},
                                     or the bare map): table.location, s3.*, delta.hadoop.*;
                                     ${env:NAME} values are read from the environment
              --set <key>=<value>    a connector setting on top of the config (repeatable), e.g. the
                                     s3.* keys for a table on S3 without a config file
              --json                 one JSON document on stdout instead of text
              --verbose              a stack trace with an error
              --help                 this text
            """;

    private static final String GENERAL = """
            Usage: delta-sink <command> (--table <location> | --config <file>) [options]

            Maintenance of a Delta table written by the Kafka Connect Delta sink, safe while the
            connector writes.

            Commands:
              inspect    version, schema, files and small files per table partition, positions, lag
              optimize   compact small files into larger ones (one commit, rows unchanged)
              vacuum     delete files no longer referenced, older than the retention; expired log files

            Options of every command:
            """ + COMMON + """

            delta-sink <command> --help lists a command's own options.
            Exit status: 0 done, 1 the run failed, 2 bad command line or config (nothing touched).
            """;

    private Usage() {
    }

    static String text(String command) {
        if (command == null) {
            return GENERAL;
        }
        String own = switch (command) {
            case "inspect" -> """
                    Usage: delta-sink inspect (--table <location> | --config <file>) [options]

                    Reports the table's version, protocol, schema, partition columns, files and bytes
                    per table partition (and how many are small), the Kafka positions it holds and the
                    last commits.

                      --bootstrap-servers <hosts>  Kafka, to show each partition's end offset and lag
                                                   (default: bootstrap.servers of the config, if any)
                      --small-file-size <size>     files below this count as small (e.g. 32m)
                      --last-commits <n>           how many commits to list
                    """;
            case "optimize" -> """
                    Usage: delta-sink optimize (--table <location> | --config <file>) [options]

                    Rewrites the small files of each table partition into files near the target size:
                    one commit of remove and add actions (dataChange=false), rows unchanged. Safe beside
                    the running connector. Replaced files stay until vacuum deletes them. Defaults: the
                    config's compaction keys (else the keys' defaults: 128m files, 256m per run, 1h,
                    snappy); each option overrides its key.

                      --dry-run                    show what would be rewritten, write nothing
                      --target-file-size <size>    size of the rewritten files (compaction.target.file.bytes)
                      --small-file-size <size>     files below this are rewritten (default: a quarter of the target)
                      --min-files <n>              compact a table partition only with this many small files (4)
                      --max-bytes <size>           input bytes one run rewrites at most (compaction.max.bytes.per.run)
                      --min-age <duration>         leave table partitions written to more recently, e.g. 1h
                                                   (compaction.min.age.ms)
                      --compression <codec>        snappy, zstd, gzip or uncompressed (parquet.compression)
                    """;
            case "vacuum" -> """
                    Usage: delta-sink vacuum (--table <location> | --config <file>) [options]

                    Deletes files under the table that the current version does not reference and that
                    have been unreferenced longer than the retention (removed files, and orphans of
                    batches never committed), and log files older than delta.logRetentionDuration.
                    Time travel to versions older than the retention ends with it.

                      --dry-run                    list what would be deleted, delete nothing
                      --retention <duration>       e.g. 7d, 168h, PT36H (default: the config's
                                                   vacuum.retention.ms, applied as the connector does,
                                                   else the table's delta.deletedFileRetentionDuration,
                                                   7 days)
                      --force                      allow a retention shorter than the table's (never
                                                   below the floor that protects a running writer)
                    """;
            default -> throw new IllegalArgumentException(command);
        };
        return own + "\n" + "Options of every command:\n" + COMMON;
    }
}
