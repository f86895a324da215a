package io.deltasink.table;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadRequest;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commit files and checkpoints of a table's {@code _delta_log} as one listing shows them: a
 * second look, independent of Kernel's, to tell what is wrong with a table Kernel cannot read
 * (which version is missing or damaged). Only used once something failed.
 */
final class LogListing {
    private static final Logger log = LoggerFactory.getLogger(LogListing.class);
    private static final Pattern COMMIT = Pattern.compile("(\\d{20})\\.json");
    private static final Pattern CHECKPOINT = Pattern.compile("(\\d{20})\\.checkpoint\\..+");
    /** At most this many commit files are read to find a damaged one. */
    private static final int SCAN_LIMIT = 100;
    private static final int MAX_COMMIT_BYTES = 64 << 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final NavigableMap<Long, FileStatus> commits = new TreeMap<>();
    private final NavigableMap<Long, String> checkpoints = new TreeMap<>();

    private LogListing() {
    }

    /** Lists the log; empty when the listing itself fails. */
    static Optional<LogListing> read(Engine engine, String tablePath) {
        String logDir = tablePath.replaceAll("/+$", "") + "/_delta_log/";
        LogListing listing = new LogListing();
        try (CloseableIterator<FileStatus> files = engine.getFileSystemClient().listFrom(logDir + String.format("%020d.", 0))) {
            while (files.hasNext()) {
                FileStatus f = files.next();
                String name = name(f.getPath());
                Matcher commit = COMMIT.matcher(name);
                Matcher checkpoint = CHECKPOINT.matcher(name);
                if (commit.matches()) {
                    listing.commits.put(Long.parseLong(commit.group(1)), f);
                } else if (checkpoint.matches() && f.getSize() > 0) {
                    listing.checkpoints.putIfAbsent(Long.parseLong(checkpoint.group(1)), name);
                }
            }
        } catch (IOException | RuntimeException e) {
            log.debug("Cannot list the log of {} to diagnose it", tablePath, e);
            return Optional.empty();
        }
        return Optional.of(listing);
    }

    static String commitName(long version) {
        return String.format("%020d.json", version);
    }

    /** The highest version of a commit or checkpoint; -1 for an empty log. */
    long latest() {
        long commit = commits.isEmpty() ? -1 : commits.lastKey();
        long checkpoint = checkpoints.isEmpty() ? -1 : checkpoints.lastKey();
        return Math.max(commit, checkpoint);
    }

    /**
     * The first version whose commit file is missing although a reader needs it: after the newest
     * checkpoint (from version 0 without one) every version up to the latest commit must be there.
     * -1 when nothing is missing.
     */
    long firstGap() {
        long from = checkpoints.isEmpty() ? 0 : checkpoints.lastKey() + 1;
        long to = commits.isEmpty() ? -1 : commits.lastKey();
        for (long v = from; v <= to; v++) {
            if (!commits.containsKey(v)) {
                return v;
            }
        }
        return -1;
    }

    /** The log's content for a message, e.g. "commit versions 0-1, 3-4 and a checkpoint at version 2". */
    String describe() {
        List<String> ranges = new ArrayList<>();
        long start = -1;
        long prev = -1;
        for (long v : commits.keySet()) {
            if (start >= 0 && v != prev + 1) {
                ranges.add(start == prev ? Long.toString(start) : start + "-" + prev);
                start = v;
            } else if (start < 0) {
                start = v;
            }
            prev = v;
        }
        if (start >= 0) {
            ranges.add(start == prev ? Long.toString(start) : start + "-" + prev);
        }
        String out = ranges.isEmpty() ? "no commit files" : "commit versions " + String.join(", ", ranges);
        return checkpoints.isEmpty() ? out : out + " and checkpoints at versions " + checkpoints.keySet();
    }

    /** The file name of the newest checkpoint, the one readers start from. */
    Optional<String> newestCheckpoint() {
        return checkpoints.isEmpty() ? Optional.empty() : Optional.of(checkpoints.lastEntry().getValue());
    }

    /** Whether {@code version} is the newest commit, with no checkpoint at or after it. */
    boolean isNewestCommit(long version) {
        return !commits.isEmpty() && commits.lastKey() == version
                && (checkpoints.isEmpty() || checkpoints.lastKey() < version);
    }

    /**
     * The name of the newest commit file (after the newest checkpoint) that is not one JSON object
     * per line, or that cannot be read for its content; empty when none is found.
     */
    Optional<String> damagedCommit(Engine engine) {
        long after = checkpoints.isEmpty() ? -1 : checkpoints.lastKey();
        int scanned = 0;
        for (Map.Entry<Long, FileStatus> e : commits.descendingMap().entrySet()) {
            if (e.getKey() <= after || scanned++ >= SCAN_LIMIT) {
                break;
            }
            FileStatus f = e.getValue();
            if (f.getSize() > MAX_COMMIT_BYTES) {
                continue;
            }
            try {
                if (!wellFormed(read(engine, f))) {
                    return Optional.of(name(f.getPath()));
                }
            } catch (IOException | RuntimeException failure) {
                if (failure instanceof org.apache.hadoop.fs.ChecksumException
                        || failure.getCause() instanceof org.apache.hadoop.fs.ChecksumException) {
                    return Optional.of(name(f.getPath()));
                }
                log.debug("Cannot read {} to diagnose it", f.getPath(), failure);
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    private static byte[] read(Engine engine, FileStatus f) throws IOException {
        FileReadRequest request = new FileReadRequest() {
            @Override
            public String getPath() {
                return f.getPath();
            }

            @Override
            public int getStartOffset() {
                return 0;
            }

            @Override
            public int getReadLength() {
                return (int) f.getSize();
            }
        };
        try (CloseableIterator<ByteArrayInputStream> in = engine.getFileSystemClient()
                .readFiles(new ListCloseableIterator<>(List.of(request)))) {
            return in.hasNext() ? in.next().readAllBytes() : new byte[0];
        }
    }

    private static boolean wellFormed(byte[] content) throws IOException {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(new ByteArrayInputStream(content),
                StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.isBlank()) {
                    continue;
                }
                try {
                    if (!JSON.readTree(line).isObject()) {
                        return false;
                    }
                } catch (JsonProcessingException e) {
                    return false;
                }
            }
        }
        return true;
    }

    private static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
