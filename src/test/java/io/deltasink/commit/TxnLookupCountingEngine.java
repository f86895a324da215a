package io.deltasink.commit;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.engine.JsonHandler;
import io.delta.kernel.engine.ParquetHandler;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.deltasink.testing.DelegatingEngine;

/**
 * A Kernel engine that counts the log reads of a txn version look-up: JSON or checkpoint reads whose
 * schema asks for {@code txn} actions and no {@code add} (a snapshot load, a checkpoint or a scan
 * ask for other actions).
 */
final class TxnLookupCountingEngine extends DelegatingEngine {
    private final AtomicInteger lookups = new AtomicInteger();

    TxnLookupCountingEngine(Engine delegate) {
        super(delegate);
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
    public ParquetHandler getParquetHandler() {
        return new Parquet(delegate.getParquetHandler()) {
            @Override
            public CloseableIterator<FileReadResult> readParquetFiles(CloseableIterator<FileStatus> files,
                                                                      StructType physicalSchema,
                                                                      Optional<Predicate> predicate) throws IOException {
                count(physicalSchema);
                return super.readParquetFiles(files, physicalSchema, predicate);
            }
        };
    }

    @Override
    public JsonHandler getJsonHandler() {
        return new Json(delegate.getJsonHandler()) {
            @Override
            public CloseableIterator<ColumnarBatch> readJsonFiles(CloseableIterator<FileStatus> files,
                                                                  StructType physicalSchema,
                                                                  Optional<Predicate> predicate) throws IOException {
                count(physicalSchema);
                return super.readJsonFiles(files, physicalSchema, predicate);
            }
        };
    }
}
