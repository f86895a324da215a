package io.deltasink.table;

import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.JsonHandler;
import io.delta.kernel.engine.ParquetHandler;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.deltasink.testing.DelegatingEngine;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A Kernel engine wrapper for failure tests: a rival writer can act just before this engine
 * writes a given commit file (the deterministic way to lose a commit race), and Parquet writes
 * (checkpoints) can be made to fail.
 */
final class TestEngine extends DelegatingEngine {
    private String raceFileName;
    private Runnable rival;
    private boolean failParquetWrites;
    private final AtomicBoolean raced = new AtomicBoolean();

    private TestEngine(Engine delegate) {
        super(delegate);
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
    public ParquetHandler getParquetHandler() {
        ParquetHandler parquet = delegate.getParquetHandler();
        if (!failParquetWrites) {
            return parquet;
        }
        return new Parquet(parquet) {
            @Override
            public CloseableIterator<DataFileStatus> writeParquetFiles(String directoryPath,
                                                                       CloseableIterator<FilteredColumnarBatch> data,
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
        return new Json(delegate.getJsonHandler()) {
            @Override
            public void writeJsonFileAtomically(String filePath, CloseableIterator<Row> data, boolean overwrite)
                    throws IOException {
                if (raceFileName != null && filePath.endsWith("/" + raceFileName) && raced.compareAndSet(false, true)) {
                    rival.run();
                }
                super.writeJsonFileAtomically(filePath, data, overwrite);
            }
        };
    }
}
