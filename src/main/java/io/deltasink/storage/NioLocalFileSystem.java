package io.deltasink.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsAction;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.io.nativeio.NativeIO;

/**
 * Hadoop's local file system (checksums included) that sets permissions through java.nio instead
 * of a child process. Without Hadoop's native library, {@link RawLocalFileSystem} runs
 * {@code chmod} in a new process for every directory it makes and every file it creates (and its
 * {@code .crc} file): Kernel's table creation, every checkpoint and {@code _last_checkpoint}
 * forked the worker JVM four to six times. {@link StorageSettings} makes this the {@code file:}
 * implementation unless the user names one ({@code delta.hadoop.fs.file.impl}).
 *
 * <p>With the native library loaded, or a permission java.nio cannot express (sticky bit), or a
 * file system without POSIX permissions, Hadoop's own code runs.
 */
public class NioLocalFileSystem extends LocalFileSystem {

    public NioLocalFileSystem() {
        super(new Raw());
    }

    /** The raw (checksum-less) local file system beneath, with permissions set in-process. */
    static final class Raw extends RawLocalFileSystem {
        @Override
        public void setPermission(Path p, FsPermission permission) throws IOException {
            java.nio.file.Path file = pathToFile(p).toPath();
            if (NativeIO.isAvailable() || permission.getStickyBit()
                    || Files.getFileAttributeView(file, PosixFileAttributeView.class) == null) {
                super.setPermission(p, permission);
                return;
            }
            Files.setPosixFilePermissions(file, posix(permission));
        }
    }

    /** The nine permission bits of {@code permission} as java.nio names them. */
    static Set<PosixFilePermission> posix(FsPermission permission) {
        Set<PosixFilePermission> out = EnumSet.noneOf(PosixFilePermission.class);
        add(out, permission.getUserAction(), PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
                PosixFilePermission.OWNER_EXECUTE);
        add(out, permission.getGroupAction(), PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
                PosixFilePermission.GROUP_EXECUTE);
        add(out, permission.getOtherAction(), PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE,
                PosixFilePermission.OTHERS_EXECUTE);
        return out;
    }

    private static void add(Set<PosixFilePermission> out, FsAction action, PosixFilePermission read,
                            PosixFilePermission write, PosixFilePermission execute) {
        if (action.implies(FsAction.READ)) {
            out.add(read);
        }
        if (action.implies(FsAction.WRITE)) {
            out.add(write);
        }
        if (action.implies(FsAction.EXECUTE)) {
            out.add(execute);
        }
    }
}
