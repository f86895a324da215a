package io.deltasink.table;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.ExpressionHandler;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.engine.FileSystemClient;
import io.delta.kernel.engine.JsonHandler;
import io.delta.kernel.engine.MetricsReporter;
import io.delta.kernel.engine.ParquetHandler;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A Kernel engine wrapper for failure tests: a rival writer can act just before this engine
 * writes a given commit file (the deterministic way to lose a commit race), and Parquet writes
 * (checkpoints) can be made to fail.
 */
final class TestEngine implements Engine {
    private final Engine delegate;
    private String raceFileName;
    private Runnable rival;
    private boolean failParquetWrites;
    private final AtomicBoolean raced = new AtomicBoolean();

    private TestEngine(Engine delegate) {
        this.delegate = delegate;
    }

    static TestEngine wrapping(Engine delegate) {
        return new TestEngine(delegate);
    }

    /** Runs {@code rival} once, right before this engine writes commit file {@code version}. */
    TestEngine beforeCommitFile(long version, Runnable rival) {
        this.raceFileName = String.format("%020d.json", version);
        this.rival = rival;
        return this;
    }

    /** Every Parquet write (data or checkpoint) fails with an IOException. */
    TestEngine failingParquetWrites() {
        this.failParquetWrites = true;
        return this;
    }

    @Override
    public ExpressionHandler getExpressionHandler() {
        return delegate.getExpressionHandler();
    }

    @Override
    public FileSystemClient getFileSystemClient() {
        return delegate.getFileSystemClient();
    }

    @Override
    public List<MetricsReporter> getMetricsReporters() {
        return delegate.getMetricsReporters();
    }

    @Override
    public ParquetHandler getParquetHandler() {
        ParquetHandler parquet = delegate.getParquetHandler();
        if (!failParquetWrites) {
            return parquet;
        }
        return new ParquetHandler() {
            @Override
            public CloseableIterator<FileReadResult> readParquetFiles(CloseableIterator<FileStatus> fileIter,
                                                                      StructType physicalSchema,
                                                                      Optional<Predicate> predicate) throws IOException {
                return parquet.readParquetFiles(fileIter, physicalSchema, predicate);
            }

            @Override
            public CloseableIterator<DataFileStatus> writeParquetFiles(String directoryPath,
                                                                       CloseableIterator<FilteredColumnarBatch> dataIter,
                                                                       List<Column> statsColumns) throws IOException {
                throw new IOException("test: Parquet writes fail");
            }

            @Override
            public void writeParquetFileAtomically(String filePath, CloseableIterator<FilteredColumnarBatch> data)
                    throws IOException {
                throw new IOException("test: Parquet writes fail");
            }
        };
    }

    @Override
    public JsonHandler getJsonHandler() {
        JsonHandler json = delegate.getJsonHandler();
        return new JsonHandler() {
            @Override
            public ColumnarBatch parseJson(ColumnVector jsonStringVector, StructType outputSchema,
                                           Optional<ColumnVector> selectionVector) {
                return json.parseJson(jsonStringVector, outputSchema, selectionVector);
            }

            @Override
            public CloseableIterator<ColumnarBatch> readJsonFiles(CloseableIterator<FileStatus> fileIter,
                                                                  StructType physicalSchema,
                                                                  Optional<Predicate> predicate) throws IOException {
                return json.readJsonFiles(fileIter, physicalSchema, predicate);
            }

            @Override
            public void writeJsonFileAtomically(String filePath, CloseableIterator<Row> data, boolean overwrite)
                    throws IOException {
                if (raceFileName != null && filePath.endsWith("/" + raceFileName) && raced.compareAndSet(false, true)) {
                    rival.run();
                }
                json.writeJsonFileAtomically(filePath, data, overwrite);
            }
        };
    }
}
