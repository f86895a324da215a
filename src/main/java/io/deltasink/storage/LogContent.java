package io.deltasink.storage;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;

/** The bytes of a log file: one action per line, UTF-8, all in memory before anything is written. */
final class LogContent {
    private LogContent() {
    }

    /**
     * Reads every action first: a failing action iterator must never leave a partial commit file
     * behind.
     */
    static byte[] serialize(Iterator<String> actions) {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        while (actions.hasNext()) {
            buffer.writeBytes((actions.next() + "\n").getBytes(StandardCharsets.UTF_8));
        }
        return buffer.toByteArray();
    }
}
