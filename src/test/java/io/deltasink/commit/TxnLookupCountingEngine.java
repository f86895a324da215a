package io.deltasink.commit;

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
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Kernel engine that counts the log reads of a txn version look-up: JSON or checkpoint reads whose
 * schema asks for {@code txn} actions and no {@code add} (a snapshot load, a checkpoint or a scan
 * ask for other actions).
 */
final class TxnLookupCountingEngine implements Engine {
    private final Engine delegate;
    private final AtomicInteger lookups = new AtomicInteger();

    TxnLookupCountingEngine(Engine delegate) {
        this.delegate = delegate;
    }

    /** Log reads for txn versions since the last call (a look-up may read more than once). */
    int takeCount() {
        return lookups.getAndSet(0);
    }

    private void count(StructType schema) {
        List<String> names = schema.fields().stream().map(StructField::getName).toList();
        if (names.contains("txn") && !names.contains("add")) {
            lookups.incrementAndGet();
        }
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
        return new ParquetHandler() {
            @Override
            public CloseableIterator<FileReadResult> readParquetFiles(CloseableIterator<FileStatus> files,
                                                                      StructType physicalSchema,
                                                                      Optional<Predicate> predicate) throws IOException {
                count(physicalSchema);
                return parquet.readParquetFiles(files, physicalSchema, predicate);
            }

            @Override
            public CloseableIterator<DataFileStatus> writeParquetFiles(String directoryPath,
                                                                       CloseableIterator<FilteredColumnarBatch> data,
                                                                       List<Column> statsColumns) throws IOException {
                return parquet.writeParquetFiles(directoryPath, data, statsColumns);
            }

            @Override
            public void writeParquetFileAtomically(String filePath, CloseableIterator<FilteredColumnarBatch> data)
                    throws IOException {
                parquet.writeParquetFileAtomically(filePath, data);
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
            public CloseableIterator<ColumnarBatch> readJsonFiles(CloseableIterator<FileStatus> files,
                                                                  StructType physicalSchema,
                                                                  Optional<Predicate> predicate) throws IOException {
                count(physicalSchema);
                return json.readJsonFiles(files, physicalSchema, predicate);
            }

            @Override
            public void writeJsonFileAtomically(String filePath, CloseableIterator<Row> data, boolean overwrite)
                    throws IOException {
                json.writeJsonFileAtomically(filePath, data, overwrite);
            }
        };
    }
}
