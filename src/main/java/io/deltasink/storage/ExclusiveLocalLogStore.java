package io.deltasink.storage;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;

import io.delta.storage.HadoopFileSystemLogStore;

/**
 * A Delta log store for the local file system (file://) that is safe with any number of writers
 * in any number of JVMs: a commit file appears whole, and only for the first writer of a version.
 *
 * <p>Delta's own stores for local files check that the file is missing and then rename a
 * temporary file onto it. A rename replaces what is there, so two tasks committing the same version
 * at the same moment (routine in a rebalance) both succeed: the second commit silently replaces the
 * first, and Hadoop's checksum file beside it may then belong to the other content, which makes the
 * version unreadable for every Hadoop-based reader.
 *
 * <p>Here the content goes to a temporary file in {@code _delta_log}, is forced to disk, and is then
 * hard-linked to the commit's name: {@code link(2)} fails when the name exists, atomically, on every
 * local file system and on NFS. Where the file system has no hard links (FAT, exFAT), an exclusive
 * lock on {@code _delta_log/.commit.lock} (across JVMs) and a per-directory monitor (within one)
 * guard the existence check and the rename. No checksum file is written for a commit: readers check
 * one only when it exists.
 */
public class ExclusiveLocalLogStore extends HadoopFileSystemLogStore {
    /** The lock file used where hard links are missing; dot-prefixed, so no Delta reader looks at it. */
    static final String LOCK_FILE = ".commit.lock";
    /** Within one JVM, file locks are per process: writers of one log directory also meet here. */
    private static final ConcurrentHashMap<java.nio.file.Path, Object> MONITORS = new ConcurrentHashMap<>();
    /** Per log directory: whether its file system makes hard links. */
    private static final ConcurrentHashMap<java.nio.file.Path, Boolean> LINKS = new ConcurrentHashMap<>();

    private final boolean hardLinks;

    public ExclusiveLocalLogStore(Configuration hadoopConf) {
        this(hadoopConf, true);
    }

    /** With {@code hardLinks} false, always takes the lock-and-rename path (for tests). */
    ExclusiveLocalLogStore(Configuration hadoopConf, boolean hardLinks) {
        super(hadoopConf);
        this.hardLinks = hardLinks;
    }

    @Override
    public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration hadoopConf)
            throws IOException {
        byte[] content = LogContent.serialize(actions);
        if (Boolean.TRUE.equals(overwrite)) {
            // _last_checkpoint and the like: Hadoop's create keeps its checksum file in step
            FileSystem fs = path.getFileSystem(hadoopConf);
            try (FSDataOutputStream out = fs.create(path, true)) {
                out.write(content);
            }
            return;
        }
        java.nio.file.Path target = localPath(path);
        java.nio.file.Path dir = target.getParent();
        if (!Files.isDirectory(dir)) {
            throw new FileNotFoundException("No such directory: " + dir);
        }
        if (Files.exists(target)) {
            throw new FileAlreadyExistsException(path.toString());
        }
        java.nio.file.Path temp = dir.resolve("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
        try {
            writeDurably(temp, content);
            if (!hardLinks || !link(target, temp, path)) {
                renameUnderLock(target, temp, path);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
        // a checksum file left by another writer would not match this content
        Files.deleteIfExists(dir.resolve("." + target.getFileName() + ".crc"));
        syncDirectory(dir);
    }

    /**
     * The log's files whose names sort at or after {@code path}'s, in name order, as Hadoop's store
     * lists them (checksum files left out, paths qualified alike), but with one status read per
     * file listed rather than per file in the folder. Kernel lists from the last checkpoint on every
     * snapshot; Hadoop's local {@code listStatus} builds a status (a Path parsed, an lstat) for every
     * file of {@code _delta_log} first, so each commit cost grew with the table's history: at
     * version 1,000 a commit took four times as long as at version 10, most of it in that listing.
     * Names are read from the folder; only those kept are looked at. A file system configured for
     * {@code file:} that lists in its own way is asked as Hadoop's store would ask it.
     */
    @Override
    public Iterator<FileStatus> listFrom(Path path, Configuration hadoopConf) throws IOException {
        Path parent = path.getParent();
        FileSystem fs = parent.getFileSystem(hadoopConf);
        if (!listsLikeHadoopsLocal(fs)) {
            // a file system configured for file: (delta.hadoop.fs.file.impl) with a listing of its own
            return super.listFrom(path, hadoopConf);
        }
        java.nio.file.Path dir = localPath(parent);
        if (!Files.isDirectory(dir)) {
            throw new FileNotFoundException(String.format("No such file or directory: %s", parent));
        }
        String from = path.getName();
        // File.list: the names as strings, no Path object per entry of a folder of thousands
        String[] all = dir.toFile().list();
        if (all == null) {
            throw new IOException("Cannot list " + parent);
        }
        List<String> names = new ArrayList<>();
        for (String name : all) {
            if (name.compareTo(from) >= 0 && !ChecksumFileSystem.isChecksumFile(new Path(name))) {
                names.add(name);
            }
        }
        Collections.sort(names);
        List<FileStatus> out = new ArrayList<>(names.size());
        for (String name : names) {
            try {
                out.add(fs.getFileStatus(new Path(parent, name)));
            } catch (FileNotFoundException gone) {
                // deleted since the folder was read (a temporary file renamed, an expired log file)
            }
        }
        return out.iterator();
    }

    /** Whether {@code fs} is Hadoop's local file system, or one that keeps its listing as it is. */
    private static boolean listsLikeHadoopsLocal(FileSystem fs) {
        if (!(fs instanceof LocalFileSystem)) {
            return false;
        }
        try {
            return fs.getClass().getMethod("listStatus", Path.class).getDeclaringClass().getName()
                    .startsWith("org.apache.hadoop.");
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    /**
     * True: a file created on a local file system is visible while it is written. Kernel asks this
     * of the log store before writing checkpoints (and other files it writes "atomically") and,
     * given true, writes them to a temporary file and renames it; given false it would write a
     * checkpoint in place, where a reader listing the log meanwhile loads half a file. The commit
     * files this store writes appear whole regardless (see {@link #write}).
     */
    @Override
    public Boolean isPartialWriteVisible(Path path, Configuration hadoopConf) {
        return true;
    }

    /**
     * Gives the temporary file the commit's name by a hard link: true, or false when this directory's
     * file system has no hard links. Any other failure is the caller's (a full disk is retried like
     * any storage failure; falling back to a rename then could replace another writer's commit).
     */
    private static boolean link(java.nio.file.Path target, java.nio.file.Path temp, Path path) throws IOException {
        try {
            Files.createLink(target, temp);
            return true;
        } catch (FileAlreadyExistsException e) {
            throw new FileAlreadyExistsException(path.toString(), null, "another writer created it first");
        } catch (UnsupportedOperationException e) {
            return false;
        } catch (FileSystemException e) {
            if (Files.exists(target)) {
                throw new FileAlreadyExistsException(path.toString(), null, "another writer created it first");
            }
            Boolean works = linksWork(target.getParent());
            if (works == null || works) {
                throw e;
            }
            return false;
        }
    }

    /**
     * Whether hard links can be made in this directory, tried once per directory and JVM; null when
     * the try itself failed (nothing can be written there now) and nothing is remembered.
     */
    private static Boolean linksWork(java.nio.file.Path dir) {
        return LINKS.computeIfAbsent(dir.toAbsolutePath().normalize(), d -> {
            java.nio.file.Path probe = d.resolve(".link-probe." + UUID.randomUUID());
            java.nio.file.Path probeLink = d.resolve(probe.getFileName() + ".link");
            try {
                Files.createFile(probe);
            } catch (IOException e) {
                return null;
            }
            try {
                Files.createLink(probeLink, probe);
                return true;
            } catch (IOException | UnsupportedOperationException e) {
                return false;
            } finally {
                try {
                    Files.deleteIfExists(probeLink);
                    Files.deleteIfExists(probe);
                } catch (IOException ignored) {
                    // a leftover dot file is ignored by every Delta reader
                }
            }
        });
    }

    private static void renameUnderLock(java.nio.file.Path target, java.nio.file.Path temp, Path path)
            throws IOException {
        java.nio.file.Path dir = target.getParent();
        synchronized (MONITORS.computeIfAbsent(dir.toAbsolutePath().normalize(), d -> new Object())) {
            try (FileChannel lockFile = FileChannel.open(dir.resolve(LOCK_FILE),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock lock = lockFile.lock()) {
                if (Files.exists(target)) {
                    throw new FileAlreadyExistsException(path.toString(), null, "another writer created it first");
                }
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            }
        }
    }

    private static void writeDurably(java.nio.file.Path file, byte[] content) throws IOException {
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.wrap(content);
            while (buffer.hasRemaining()) {
                out.write(buffer);
            }
            out.force(true);
        }
    }

    /** Makes the new name durable; a file system that cannot sync a directory needs nothing more. */
    private static void syncDirectory(java.nio.file.Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException | RuntimeException ignored) {
            // not supported here (some platforms and file systems refuse to open a directory)
        }
    }

    static java.nio.file.Path localPath(Path path) {
        return java.nio.file.Paths.get(path.toUri().getPath());
    }
}
