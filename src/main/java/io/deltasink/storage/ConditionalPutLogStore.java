package io.deltasink.storage;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.Iterator;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FSDataOutputStreamBuilder;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;

import io.delta.storage.HadoopFileSystemLogStore;

/**
 * A Delta log store for S3 (s3a://) that is safe with any number of writers in any number of
 * JVMs: a commit file is created with an S3 conditional write ({@code If-None-Match: *}), so S3
 * itself refuses the second writer of a version. Kernel's default S3 log store only locks within
 * one JVM.
 *
 * <p>Delta Kernel instantiates it by name (constructor taking the Hadoop configuration) for the
 * schemes configured through {@code io.delta.kernel.logStore.<scheme>.impl}; see
 * {@link StorageSettings}.
 *
 * <p>A lost race shows up in one of two ways: S3A's existence probe at create time (Hadoop's
 * {@code FileAlreadyExistsException}), or, when both writers passed that probe, HTTP 412 at
 * close ({@code RemoteFileChangedException}). Both become {@link FileAlreadyExistsException},
 * which Kernel reports as a commit conflict.
 */
public class ConditionalPutLogStore extends HadoopFileSystemLogStore {
    /** The S3A exception for HTTP 412 (precondition failed); matched by name. */
    static final String PRECONDITION_FAILED_CLASS = "org.apache.hadoop.fs.s3a.RemoteFileChangedException";

    public ConditionalPutLogStore(Configuration hadoopConf) {
        super(hadoopConf);
    }

    @Override
    public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration hadoopConf)
            throws IOException {
        // Everything is in memory before the object is created: a failing action iterator must never
        // leave a partial commit file behind (closing an S3A stream uploads what it holds).
        byte[] content = LogContent.serialize(actions);
        FileSystem fs = path.getFileSystem(hadoopConf);
        if (Boolean.TRUE.equals(overwrite)) {
            // checkpoints, checksums, _last_checkpoint: plain (over)write
            try (FSDataOutputStream out = fs.create(path, true)) {
                out.write(content);
            }
            return;
        }
        try {
            FSDataOutputStreamBuilder<FSDataOutputStream, ?> builder = fs.createFile(path);
            builder.overwrite(false);
            builder.must(Options.CreateFileOptionKeys.FS_OPTION_CREATE_CONDITIONAL_OVERWRITE, true);
            FSDataOutputStream out = builder.build();
            boolean written = false;
            try {
                out.write(content);
                written = true;
            } finally {
                if (written) {
                    out.close(); // the PUT with If-None-Match happens here
                } else {
                    abort(out);
                }
            }
        } catch (IOException e) {
            if (alreadyExists(e)) {
                FileAlreadyExistsException exists = new FileAlreadyExistsException(path.toString(), null,
                        "another writer created it first");
                exists.initCause(e);
                throw exists;
            }
            throw e;
        }
    }

    @Override
    public Boolean isPartialWriteVisible(Path path, Configuration hadoopConf) {
        // an S3 object appears whole when its PUT completes, or not at all
        return false;
    }

    /**
     * True when the failure means the file exists already: Java's or Hadoop's
     * FileAlreadyExistsException, or S3's HTTP 412 for a conditional create, anywhere in the cause
     * chain.
     */
    static boolean alreadyExists(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof FileAlreadyExistsException
                    || t instanceof org.apache.hadoop.fs.FileAlreadyExistsException) {
                return true;
            }
            for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
                if (c.getName().equals(PRECONDITION_FAILED_CLASS)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Drops an unfinished upload without creating the object, where the stream supports it. */
    private static void abort(FSDataOutputStream out) {
        try {
            if (out.hasCapability("fs.capability.outputstream.abortable")) {
                out.abort();
            }
            // otherwise the stream is left unclosed: nothing is uploaded for it
        } catch (RuntimeException ignored) {
            // the write failure is what the caller needs to see
        }
    }
}
