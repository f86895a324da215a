package io.deltasink.proc;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.deltasink.model.Column;
import io.deltasink.model.ColumnType;
import io.deltasink.model.RowSchema;
import io.deltasink.storage.StorageSettings;
import io.deltasink.table.CommitConflictException;
import io.deltasink.table.DeltaTable;
import io.deltasink.table.TableSnapshot;

/**
 * A child JVM of {@link ConcurrentWritersIT}: one writer making txn-only commits to one table
 * through {@link DeltaTable}, with the connector's storage settings (so Kernel uses the log store
 * StorageSettings chooses). Each commit carries the txn action (appId, n) for its n-th commit; a
 * conflict reloads the latest snapshot and retries.
 *
 * <p>Arguments: table URI, appId, commits, result file, go file, then Hadoop settings as key=value.
 * Result lines: {@code COMMIT <appId> <tableVersion> <n>}; {@code LANDED <appId> <n>} when a
 * commit reported as a conflict turns out to be in the table; {@code CONFLICTS <count>};
 * {@code DONE}.
 */
public final class ConcurrentCommitter {
    static final RowSchema SCHEMA = new RowSchema(List.of(
            Column.of("id", ColumnType.LONG, false),
            Column.of("note", ColumnType.STRING, true)));

    private ConcurrentCommitter() {
    }

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable t) {
            t.printStackTrace();
            System.exit(1);
        }
        // S3A's pools may hold non-daemon threads
        System.exit(0);
    }

    private static void run(String[] args) throws Exception {
        String table = args[0];
        String appId = args[1];
        int commits = Integer.parseInt(args[2]);
        Path resultFile = Path.of(args[3]);
        Path goFile = Path.of(args[4]);
        Map<String, String> hadoop = new LinkedHashMap<>();
        for (int i = 5; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            hadoop.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        StorageSettings storage = new StorageSettings(table, hadoop);
        DeltaTable delta = new DeltaTable(storage.createEngine(), storage.tableUri(), Clock.systemUTC(), 0);
        String engineInfo = "concurrent-committer " + appId;

        try (storage; PrintWriter out = new PrintWriter(Files.newBufferedWriter(resultFile, StandardCharsets.UTF_8), true)) {
            Files.writeString(resultFile.resolveSibling(appId + ".ready"), "ready");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!Files.exists(goFile)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no go signal");
                }
                Thread.sleep(5);
            }
            TableSnapshot snapshot = delta.createOrCheck(SCHEMA, List.of(), Map.of(), engineInfo);
            int conflicts = 0;
            for (long n = 1; n <= commits; n++) {
                while (true) {
                    try {
                        long version = delta.commitAppend(snapshot, List.of(), Map.of(appId, n), engineInfo);
                        out.println("COMMIT " + appId + " " + version + " " + n);
                        snapshot = latest(delta);
                        break;
                    } catch (CommitConflictException e) {
                        conflicts++;
                        snapshot = latest(delta);
                        Optional<Long> landed = snapshot.txnVersion(appId);
                        if (landed.isPresent() && landed.get() >= n) {
                            // the write reached S3 but its answer was lost (e.g. a retried PUT): it is in
                            out.println("LANDED " + appId + " " + n);
                            break;
                        }
                    }
                }
            }
            out.println("CONFLICTS " + conflicts);
            out.println("DONE");
        }
    }

    private static TableSnapshot latest(DeltaTable delta) throws IOException {
        return delta.latest().orElseThrow(() -> new IOException("table vanished: " + delta.path()));
    }
}
