package io.deltasink.testing;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.ExpressionHandler;
import io.delta.kernel.engine.FileReadRequest;
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

/**
 * A Kernel engine that hands every call to another: test engines extend it (and its handlers) and
 * override only the calls they watch or break.
 */
public abstract class DelegatingEngine implements Engine {
    protected final Engine delegate;

    protected DelegatingEngine(Engine delegate) {
        this.delegate = delegate;
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
        return delegate.getParquetHandler();
    }

    @Override
    public JsonHandler getJsonHandler() {
        return delegate.getJsonHandler();
    }

    /** A Parquet handler that hands every call to another. */
    public static class Parquet implements ParquetHandler {
        protected final ParquetHandler delegate;

        public Parquet(ParquetHandler delegate) {
            this.delegate = delegate;
        }

        @Override
        public CloseableIterator<FileReadResult> readParquetFiles(CloseableIterator<FileStatus> files,
                                                                  StructType physicalSchema,
                                                                  Optional<Predicate> predicate) throws IOException {
            return delegate.readParquetFiles(files, physicalSchema, predicate);
        }

        @Override
        public CloseableIterator<DataFileStatus> writeParquetFiles(String directoryPath,
                                                                   CloseableIterator<FilteredColumnarBatch> data,
                                                                   List<Column> statsColumns) throws IOException {
            return delegate.writeParquetFiles(directoryPath, data, statsColumns);
        }

        @Override
        public void writeParquetFileAtomically(String filePath, CloseableIterator<FilteredColumnarBatch> data)
                throws IOException {
            delegate.writeParquetFileAtomically(filePath, data);
        }
    }

    /** A JSON handler that hands every call to another. */
    public static class Json implements JsonHandler {
        protected final JsonHandler delegate;

        public Json(JsonHandler delegate) {
            this.delegate = delegate;
        }

        @Override
        public ColumnarBatch parseJson(ColumnVector jsonStringVector, StructType outputSchema,
                                       Optional<ColumnVector> selectionVector) {
            return delegate.parseJson(jsonStringVector, outputSchema, selectionVector);
        }

        @Override
        public CloseableIterator<ColumnarBatch> readJsonFiles(CloseableIterator<FileStatus> files,
                                                              StructType physicalSchema,
                                                              Optional<Predicate> predicate) throws IOException {
            return delegate.readJsonFiles(files, physicalSchema, predicate);
        }

        @Override
        public void writeJsonFileAtomically(String filePath, CloseableIterator<Row> data, boolean overwrite)
                throws IOException {
            delegate.writeJsonFileAtomically(filePath, data, overwrite);
        }
    }

    /** A file system client that hands every call to another. */
    public static class FileSystem implements FileSystemClient {
        protected final FileSystemClient delegate;

        public FileSystem(FileSystemClient delegate) {
            this.delegate = delegate;
        }

        @Override
        public CloseableIterator<FileStatus> listFrom(String filePath) throws IOException {
            return delegate.listFrom(filePath);
        }

        @Override
        public String resolvePath(String path) throws IOException {
            return delegate.resolvePath(path);
        }

        @Override
        public CloseableIterator<ByteArrayInputStream> readFiles(CloseableIterator<FileReadRequest> readRequests)
                throws IOException {
            return delegate.readFiles(readRequests);
        }

        @Override
        public boolean mkdirs(String path) throws IOException {
            return delegate.mkdirs(path);
        }

        @Override
        public boolean delete(String path) throws IOException {
            return delegate.delete(path);
        }

        @Override
        public FileStatus getFileStatus(String path) throws IOException {
            return delegate.getFileStatus(path);
        }

        @Override
        public void copyFileAtomically(String srcPath, String destPath, boolean overwrite) throws IOException {
            delegate.copyFileAtomically(srcPath, destPath, overwrite);
        }
    }
}
