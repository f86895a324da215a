package io.deltasink.table;

import io.delta.kernel.Meta;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.InvalidTableException;
import io.delta.kernel.exceptions.UnsupportedProtocolVersionException;
import io.delta.kernel.exceptions.UnsupportedTableFeatureException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.AccessDeniedException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a failure of Delta Kernel reading a table means, and the one place where the messages
 * about the table's own problems are written (the storage's are in {@code StorageErrors}).
 *
 * <p>Permanent, as {@link UnusableTableException}: a protocol version or table feature this
 * connector's Kernel cannot read or write, a gap in the log (a commit file missing that no
 * checkpoint covers), a damaged log file (a commit cut mid-line or holding garbage, a checkpoint
 * that is not Parquet, a local file failing its checksum), or anything else Kernel cannot make
 * sense of. The message names the table, the version (found by listing the log: the missing or
 * damaged file's version, else the latest) and what to do.
 *
 * <p>Transient, left as they are: I/O failures (read timeouts, connection resets, HTTP errors),
 * which {@code StorageErrors} sorts further, and interruptions.
 */
public final class TableErrors {
    /** What the user can always do about a table the connector cannot use. */
    static final String NEW_TABLE = "or write to a new table (another table.location)";
    private static final Pattern LOG_FILE = Pattern.compile("(\\d{20})\\.(json|checkpoint\\.[^\\s:/'\"]*parquet)");
    private static final int DETAIL_CHARS = 200;
    private static final String NOT_PARQUET = "is not a Parquet file";

    private TableErrors() {
    }

    /**
     * The permanent table problem in {@code failure}'s cause chain, or null: one already
     * translated, or one of Kernel's unambiguous ones (an unsupported protocol or feature, an
     * invalid table) raised outside the read path (e.g. by a commit), then without a version.
     */
    public static UnusableTableException unusable(Throwable failure, String tablePath) {
        for (Throwable t : chain(failure)) {
            if (t instanceof UnusableTableException u) {
                return u;
            }
        }
        for (Throwable t : chain(failure)) {
            if (t instanceof UnsupportedTableFeatureException || t instanceof UnsupportedProtocolVersionException) {
                return unsupported(tablePath, -1, t, "use");
            }
            if (t instanceof InvalidTableException) {
                return unreadable(tablePath, -1, t);
            }
        }
        Throwable damage = storageSide(failure) ? null : damage(failure);
        return damage == null ? null : damaged(tablePath, damage, failure, Optional.empty(), null);
    }

    /**
     * A failure of Kernel reading the table (a snapshot, positions): the permanent problem it
     * shows, diagnosed by listing and reading the log, or {@code failure} itself when it is worth
     * retrying (an I/O failure, an interruption).
     *
     * @param snapshotVersion the version of the snapshot being read, or -1 when loading one
     */
    static RuntimeException onRead(RuntimeException failure, String tablePath, Engine engine, long snapshotVersion) {
        boolean invalid = false;
        for (Throwable t : chain(failure)) {
            if (t instanceof UnusableTableException u) {
                return u;
            }
            if (t instanceof UnsupportedTableFeatureException || t instanceof UnsupportedProtocolVersionException) {
                long version = snapshotVersion >= 0 ? snapshotVersion
                        : LogListing.read(engine, tablePath).map(LogListing::latest).orElse(-1L);
                return unsupported(tablePath, version, t, "read");
            }
            invalid |= t instanceof InvalidTableException;
        }
        if (!invalid && storageSide(failure)) {
            return failure; // the way to the file failed, not its content: StorageErrors sorts it
        }
        Throwable damage = damage(failure);
        if (!invalid && damage == null && ioFailure(failure)) {
            return failure;
        }
        Optional<LogListing> log = LogListing.read(engine, tablePath);
        long gap = invalid ? log.map(LogListing::firstGap).orElse(-1L) : -1;
        if (gap >= 0) {
            return missing(tablePath, gap, log.get(), failure);
        }
        if (damage != null) {
            return damaged(tablePath, damage, failure, log, engine);
        }
        return unreadable(tablePath, snapshotVersion >= 0 ? snapshotVersion : log.map(LogListing::latest).orElse(-1L),
                failure);
    }

    // ---- the problems ------------------------------------------------------------------------

    static UnusableTableException unsupported(String tablePath, long version, Throwable kernel, String access) {
        String what;
        if (kernel instanceof UnsupportedProtocolVersionException p) {
            boolean reader = p.getVersionType() == UnsupportedProtocolVersionException.ProtocolVersionType.READER;
            what = (reader ? "reader" : "writer") + " version " + p.getVersion() + " of the Delta protocol";
            access = reader ? "read" : "write";
        } else {
            Set<String> features = ((UnsupportedTableFeatureException) kernel).getUnsupportedFeatures();
            what = features == null || features.isEmpty() ? "a table feature (" + kernel.getMessage() + ")"
                    : "the table feature" + (features.size() == 1 ? " " : "s ") + String.join(", ", new TreeSet<>(features));
        }
        return new UnusableTableException(tablePath, version, UnusableTableException.Reason.UNSUPPORTED_PROTOCOL,
                "Delta table " + tablePath + at(version) + " uses " + what + ", which this connector (Delta Kernel "
                        + Meta.KERNEL_VERSION + ") cannot " + access + "; the table is left as it is. Use a connector "
                        + "release that supports it, " + NEW_TABLE, kernel);
    }

    private static UnusableTableException missing(String tablePath, long version, LogListing log, Throwable kernel) {
        String file = LogListing.commitName(version);
        return new UnusableTableException(tablePath, version, UnusableTableException.Reason.MISSING_LOG_FILE,
                "Delta table " + tablePath + " cannot be read: the commit file of version " + version + " is missing ("
                        + "_delta_log/" + file + "; the log holds " + log.describe() + " and no checkpoint covers "
                        + "version " + version + "). Restore the file from a backup, " + NEW_TABLE, kernel);
    }

    private static UnusableTableException damaged(String tablePath, Throwable damage, Throwable failure,
                                                  Optional<LogListing> log, Engine engine) {
        String file = null;
        for (Throwable t : chain(failure)) {
            Matcher m = t.getMessage() == null ? null : LOG_FILE.matcher(t.getMessage());
            if (m != null && m.find()) {
                file = m.group();
                break;
            }
        }
        boolean parquet = damage.getClass().getName().contains("parquet") || detail(damage).contains("Parquet");
        if (file == null && log.isPresent() && engine != null) {
            file = parquet ? log.get().newestCheckpoint().orElse(null) : log.get().damagedCommit(engine).orElse(null);
        }
        long version = file == null ? log.map(LogListing::latest).orElse(-1L) : Long.parseLong(file.substring(0, 20));
        String what = file == null ? (parquet ? "a checkpoint" : "a commit file") + " of the log"
                : (file.endsWith(".json") ? "the commit file of version " : "the checkpoint of version ") + version
                + " (_delta_log/" + file + ")";
        String fix;
        if (file != null && file.endsWith(".json") && log.isPresent() && log.get().isNewestCommit(version)) {
            fix = "Restore it from a backup; or, as it is the newest version, delete it (and _delta_log/"
                    + String.format("%020d", version) + ".crc if there is one): the table goes back to version "
                    + (version - 1) + " (what version " + version + " added is dropped; if this connector wrote it, it "
                    + "writes those records again); " + NEW_TABLE;
        } else if (file != null && !file.endsWith(".json")) {
            fix = "Delete it and _delta_log/_last_checkpoint (readers then start from an older checkpoint or from "
                    + "the commit files, if those are all still there), or restore it from a backup, " + NEW_TABLE;
        } else {
            fix = "Restore it from a backup, " + NEW_TABLE;
        }
        return new UnusableTableException(tablePath, version, UnusableTableException.Reason.DAMAGED_LOG_FILE,
                "Delta table " + tablePath + " cannot be read: " + what + " is damaged (" + detail(damage) + "). " + fix,
                failure);
    }

    private static UnusableTableException unreadable(String tablePath, long version, Throwable failure) {
        return new UnusableTableException(tablePath, version, UnusableTableException.Reason.UNREADABLE,
                "Delta table " + tablePath + " cannot be read" + at(version) + ": " + detail(innermost(failure))
                        + ". Check _delta_log for missing, damaged or foreign files and restore them from a backup, "
                        + NEW_TABLE, failure);
    }

    private static String at(long version) {
        return version < 0 ? "" : " (version " + version + ")";
    }

    // ---- sorting the causes ----------------------------------------------------------------------

    /**
     * The cause that shows a log file is damaged (its content, not the way to it, is wrong): a JSON
     * parse error, a value of the wrong shape, a local checksum mismatch, a Parquet footer or page
     * that cannot be decoded; or null.
     */
    private static Throwable damage(Throwable failure) {
        for (Throwable t : chain(failure)) {
            String name = t.getClass().getName();
            if (t instanceof com.fasterxml.jackson.core.JsonProcessingException
                    || t instanceof org.apache.hadoop.fs.ChecksumException
                    || name.endsWith(".ParquetDecodingException")
                    || name.endsWith("thrift.protocol.TProtocolException")
                    || (t.getMessage() != null && t.getMessage().contains(NOT_PARQUET))) {
                return t;
            }
        }
        return null;
    }

    /**
     * Whether the chain shows the way to the storage failing (a network error, a timeout, an
     * interruption, S3 or its HTTP client answering with an error, access denied): then nothing is
     * known about the file's content, even if a parser or reader wrapped the failure.
     */
    private static boolean storageSide(Throwable failure) {
        for (Throwable t : chain(failure)) {
            String name = t.getClass().getName();
            if (t instanceof SocketException || t instanceof InterruptedIOException || t instanceof UnknownHostException
                    || t instanceof InterruptedException || t instanceof AccessDeniedException
                    || name.startsWith("software.amazon.awssdk.") || name.startsWith("org.apache.http.")
                    || name.startsWith("org.apache.hadoop.fs.s3a.")) {
                return true;
            }
        }
        return false;
    }

    /** Whether the chain holds an I/O failure (other than those showing damage): worth retrying. */
    private static boolean ioFailure(Throwable failure) {
        for (Throwable t : chain(failure)) {
            if (t instanceof IOException) {
                return true;
            }
        }
        return false;
    }

    static List<Throwable> chain(Throwable failure) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Throwable> out = new java.util.ArrayList<>();
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            out.add(t);
        }
        return out;
    }

    private static Throwable innermost(Throwable failure) {
        List<Throwable> chain = chain(failure);
        return chain.get(chain.size() - 1);
    }

    /** "Type: message" of one failure, shortened; a parser's own message without its location noise. */
    private static String detail(Throwable t) {
        String text = t.getMessage();
        if (t instanceof com.fasterxml.jackson.core.JsonProcessingException j && j.getOriginalMessage() != null) {
            text = j.getOriginalMessage();
            int location = text.indexOf(" (start marker at [Source");
            text = location > 0 ? text.substring(0, location) : text;
        }
        if (text != null && text.contains(NOT_PARQUET)) {
            return "not a Parquet file" + text.substring(text.indexOf(NOT_PARQUET) + NOT_PARQUET.length());
        }
        String message = text == null ? "" : ": " + text.replace('\n', ' ');
        if (message.length() > DETAIL_CHARS) {
            message = message.substring(0, DETAIL_CHARS) + "...";
        }
        return t.getClass().getSimpleName() + message;
    }
}
