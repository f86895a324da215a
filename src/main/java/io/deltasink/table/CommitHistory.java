package io.deltasink.table;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The latest commits of a table, each read from its commit file through the engine's JSON reader
 * (only the columns summarized): what happened lately, for people inspecting a table.
 */
final class CommitHistory {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final StructType SCHEMA = new StructType()
            .add("commitInfo", new StructType().add("timestamp", LongType.LONG)
                    .add("operation", StringType.STRING).add("engineInfo", StringType.STRING))
            .add("add", new StructType().add("path", StringType.STRING).add("stats", StringType.STRING))
            .add("remove", new StructType().add("path", StringType.STRING))
            .add("txn", new StructType().add("appId", StringType.STRING));

    private CommitHistory() {
    }

    /**
     * Up to {@code count} commits ending at {@code version}, newest first; versions whose commit file
     * is gone (expired log files) are left out.
     */
    static List<CommitSummary> last(Engine engine, String tablePath, long version, int count) {
        List<CommitSummary> out = new ArrayList<>();
        long from = Math.max(0, version - count + 1);
        String logDir = tablePath.replaceAll("/+$", "") + "/_delta_log/";
        List<FileStatus> commits = new ArrayList<>();
        try (CloseableIterator<FileStatus> files = engine.getFileSystemClient()
                .listFrom(logDir + String.format(Locale.ROOT, "%020d", from))) {
            while (files.hasNext()) {
                FileStatus file = files.next();
                long v = commitVersion(file.getPath());
                if (v >= from && v <= version) {
                    commits.add(file);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (FileStatus commit : commits) {
            out.add(0, summarize(engine, commit));
        }
        return out;
    }

    private static long commitVersion(String path) {
        String name = path.substring(path.lastIndexOf('/') + 1);
        return name.matches("\\d{20}\\.json") ? Long.parseLong(name.substring(0, 20)) : -1;
    }

    private static CommitSummary summarize(Engine engine, FileStatus file) {
        long timestamp = file.getModificationTime();
        String operation = "";
        String engineInfo = "";
        long rows = 0;
        int adds = 0;
        int removes = 0;
        int txns = 0;
        try (CloseableIterator<ColumnarBatch> batches = engine.getJsonHandler().readJsonFiles(
                new ListCloseableIterator<>(List.of(file)), SCHEMA, Optional.empty())) {
            while (batches.hasNext()) {
                ColumnarBatch batch = batches.next();
                ColumnVector info = batch.getColumnVector(0);
                ColumnVector add = batch.getColumnVector(1);
                ColumnVector remove = batch.getColumnVector(2);
                ColumnVector txn = batch.getColumnVector(3);
                for (int row = 0; row < batch.getSize(); row++) {
                    if (!info.isNullAt(row)) {
                        timestamp = info.getChild(0).isNullAt(row) ? timestamp : info.getChild(0).getLong(row);
                        operation = info.getChild(1).isNullAt(row) ? "" : info.getChild(1).getString(row);
                        engineInfo = info.getChild(2).isNullAt(row) ? "" : info.getChild(2).getString(row);
                    }
                    if (!add.isNullAt(row)) {
                        adds++;
                        rows += add.getChild(1).isNullAt(row) ? 0 : numRecords(add.getChild(1).getString(row));
                    }
                    removes += remove.isNullAt(row) ? 0 : 1;
                    txns += txn.isNullAt(row) ? 0 : 1;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new CommitSummary(commitVersion(file.getPath()), timestamp, operation, engineInfo, rows, adds, removes,
                txns);
    }

    private static long numRecords(String stats) {
        try {
            JsonNode n = JSON.readTree(stats).get("numRecords");
            return n == null ? 0 : n.asLong();
        } catch (JsonProcessingException e) {
            return 0;
        }
    }
}
