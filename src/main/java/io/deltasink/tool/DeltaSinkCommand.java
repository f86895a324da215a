package io.deltasink.tool;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.Map;

import org.apache.kafka.common.config.ConfigException;

/**
 * {@code bin/delta-sink}: inspect, compact (optimize) and vacuum a table the connector writes,
 * from a shell, a cron job or a container, without a Connect worker or Spark.
 *
 * <p>Output contract, for scripts: the result alone on stdout (with {@code --json} exactly one
 * JSON document); on failure nothing on stdout, one line on stderr and a non-zero exit status:
 * 2 when the command line or the config cannot be used (nothing was touched), 1 when the run
 * itself failed. No credential value is ever printed, whatever a library put into a message.
 */
public final class DeltaSinkCommand {
    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;

    private final Map<String, String> environment;
    private final PrintStream out;
    private final PrintStream err;
    private final Clock clock;

    DeltaSinkCommand(Map<String, String> environment, PrintStream out, PrintStream err, Clock clock) {
        this.environment = environment;
        this.out = out;
        this.err = err;
        this.clock = clock;
    }

    public static void main(String[] args) {
        int status = new DeltaSinkCommand(System.getenv(), System.out, System.err, Clock.systemUTC()).run(args);
        System.out.flush();
        System.exit(status);
    }

    /** Runs one command line; returns the exit status. */
    int run(String... argv) {
        Secrets secrets = Secrets.none();
        boolean verbose = false;
        try {
            Arguments args = Arguments.parse(argv);
            verbose = args.verbose();
            if (args.help()) {
                out.print(Usage.text(args.command()));
                return OK;
            }
            Map<String, String> settings = ConnectorSettings.from(args, new EnvReferences(environment));
            secrets = Secrets.in(settings);
            MaintenanceRun.Outcome outcome = new MaintenanceRun(args, settings, clock).run();
            String text = args.json() ? JsonOutput.of(outcome.result()) : outcome.text();
            out.println(secrets.blank(text.stripTrailing()));
            return OK;
        } catch (UsageException | ConfigException e) {
            fail(secrets, e, verbose, "(see delta-sink --help)");
            return USAGE;
        } catch (RuntimeException | LinkageError e) {
            fail(secrets, e, verbose, null);
            return FAILED;
        }
    }

    private void fail(Secrets secrets, Throwable e, boolean verbose, String hint) {
        String line = "delta-sink: " + ErrorLine.of(e) + (hint == null ? "" : " " + hint);
        err.println(secrets.blank(line));
        if (verbose) {
            StringWriter trace = new StringWriter();
            e.printStackTrace(new PrintWriter(trace));
            err.print(secrets.blank(trace.toString()));
        }
    }
}
