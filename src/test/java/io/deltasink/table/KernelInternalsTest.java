package io.deltasink.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.data.Row;
import io.delta.kernel.types.StructType;
import io.deltasink.testing.DeltaTableReader;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KernelInternalsTest {
    @TempDir
    Path dir;

    @Test
    void txnActionIsASingleActionRowHoldingOnlyTheTxn() {
        Row action = KernelInternals.txnAction("conn/topic/7", 1234L, 1750583761000L);

        StructType schema = action.getSchema();
        int txnOrdinal = schema.indexOf("txn");
        assertTrue(txnOrdinal >= 0, schema.toString());
        for (String other : List.of("add", "remove", "metaData", "protocol", "commitInfo")) {
            assertTrue(action.isNullAt(schema.indexOf(other)), other + " must be null");
        }
        Row txn = action.getStruct(txnOrdinal);
        StructType txnSchema = txn.getSchema();
        assertEquals("conn/topic/7", txn.getString(txnSchema.indexOf("appId")));
        assertEquals(1234L, txn.getLong(txnSchema.indexOf("version")));
        assertEquals(1750583761000L, txn.getLong(txnSchema.indexOf("lastUpdated")));
    }

    @Test
    void negativeVersionsOtherThanNoPositionAndNullAppIdsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> KernelInternals.txnAction("a", -2, 0));
        assertThrows(IllegalArgumentException.class, () -> KernelInternals.txnAction("a", Long.MIN_VALUE, 0));
        KernelInternals.txnAction("a", TableSnapshot.NO_POSITION, 0); // a reset through the offsets API
        assertThrows(NullPointerException.class, () -> KernelInternals.txnAction(null, 1, 0));
    }

    @Test
    void kernelWritesTheTxnRowsAsTxnActionsAndReadsThemBack() {
        String path = Fixtures.tablePath(dir);
        DeltaTable table = Fixtures.createTable(Fixtures.engine(), path, Map.of());

        table.commitAppend(table.latest().orElseThrow(), List.of(), Map.of("x/y/0", 7L, "x/y/1", 8L), "t");

        List<JsonNode> txns = DeltaTableReader.actions(path, 1, "txn");
        assertEquals(2, txns.size());
        assertEquals(3, txns.get(0).size(), "appId, version, lastUpdated: " + txns.get(0));
        assertEquals(Optional.of(7L), DeltaTableReader.txnVersion(path, "x/y/0"));
        assertEquals(Optional.of(8L), DeltaTableReader.txnVersion(path, "x/y/1"));
    }
}
