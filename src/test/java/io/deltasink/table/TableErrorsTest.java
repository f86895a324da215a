package io.deltasink.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.KernelEngineException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.parquet.io.ParquetDecodingException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import shaded.parquet.org.apache.thrift.protocol.TProtocolException;

/**
 * How a failure of Kernel reading a table is sorted: the way to a file failing (network, timeouts,
 * interruptions, access) is left to the storage policy even when a reader wrapped it; a file's
 * content being wrong, an invalid log, or anything Kernel cannot make sense of without any I/O
 * failure is permanent. The failures are built as Kernel and its readers wrap them.
 */
class TableErrorsTest {
    @TempDir
    Path dir;

    private String table() {
        String path = Fixtures.tablePath(dir);
        DeltaTable table = Fixtures.createTable(Fixtures.engine(), path, Map.of());
        table.commitAppend(table.latest().orElseThrow(), List.of(Fixtures.oneRowFile(path, 1)), Map.of("a", 1L),
                Fixtures.ENGINE_INFO);
        return path;
    }

    private static KernelEngineException reading(String file, Throwable cause) {
        return new KernelEngineException("Error reading Parquet file: " + file, cause);
    }

    @Test
    void theWayToAFileFailingIsLeftAsItIsEvenWhenAReaderWrappedIt() {
        String path = table();
        Engine engine = Fixtures.engine();
        List<RuntimeException> transients = List.of(
                new UncheckedIOException("Failed to list the files in delta log", new SocketTimeoutException("Read timed out")),
                reading("x.parquet", new ParquetDecodingException("Can not read value at 0", new SocketException("Connection reset"))),
                reading("x.parquet", new IOException("can not read class FileMetaData", new TProtocolException(
                        "Required field 'num_rows' was not found", new SocketException("Connection reset")))),
                new RuntimeException(new InterruptedException("stopping")),
                new KernelEngineException("reading", new AccessDeniedException(path)),
                new UncheckedIOException(new IOException("HTTP 500")));
        for (RuntimeException failure : transients) {
            assertSame(failure, TableErrors.onRead(failure, path, engine, 1), failure.toString());
            assertNull(TableErrors.unusable(failure, path), failure.toString());
        }
    }

    @Test
    void aFilesContentBeingWrongIsPermanentAndNamesTheFile() {
        String path = table();
        String checkpoint = path + "/_delta_log/00000000000000000001.checkpoint.parquet";
        RuntimeException footer = reading(checkpoint, new IOException("can not read class FileMetaData",
                new TProtocolException("Required field 'num_rows' was not found")));
        UnusableTableException e = assertInstanceOf(UnusableTableException.class,
                TableErrors.onRead(footer, path, Fixtures.engine(), -1));
        assertEquals(UnusableTableException.Reason.DAMAGED_LOG_FILE, e.reason());
        assertEquals(1, e.version());
        assertTrue(e.getMessage().contains("the checkpoint of version 1") && e.getMessage().contains(path)
                && e.getMessage().contains("num_rows"), e.getMessage());
        // also when it escapes from elsewhere (a commit): recognised, without a diagnosis of the log
        UnusableTableException net = TableErrors.unusable(footer, path);
        assertEquals(UnusableTableException.Reason.DAMAGED_LOG_FILE, net.reason());
        assertTrue(net.getMessage().contains("00000000000000000001.checkpoint.parquet"), net.getMessage());
    }

    @Test
    void whatKernelCannotMakeSenseOfWithoutAnyIoFailureIsPermanent() {
        String path = table();
        for (RuntimeException failure : List.of(new IllegalStateException("No protocol found at version 1"),
                new RuntimeException("Couldn't decode \"abc\", expected a long"), new ClassCastException("ArrayNode"))) {
            UnusableTableException e = assertInstanceOf(UnusableTableException.class,
                    TableErrors.onRead(failure, path, Fixtures.engine(), -1), failure.toString());
            assertEquals(UnusableTableException.Reason.UNREADABLE, e.reason());
            assertEquals(1, e.version(), "the latest version of the log");
            assertTrue(e.getMessage().contains(path) && e.getMessage().contains("(version 1)")
                    && e.getMessage().contains(failure.getMessage()), e.getMessage());
        }
    }
}
