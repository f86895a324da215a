package io.deltasink.storage;

import java.io.IOException;
import java.net.URI;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BulkDelete;
import org.apache.hadoop.fs.ContentSummary;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.MultipartUploaderBuilder;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathFilter;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.StorageStatistics;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;

/**
 * What Hadoop hands out for an S3 path of a {@link StorageSettings} configuration: a thin view of
 * the one real file system its {@link FileSystemScope} holds for that bucket. Closing the view
 * leaves the real file system open; the scope closes it.
 *
 * <p>{@link FilterFileSystem} forwards most calls, including {@code createFile} (S3 conditional
 * create), {@code openFile}, {@code listStatusIterator} and {@code getRawFileSystem} (Delta's S3
 * log store unwraps with it). The calls below are those S3A implements itself and
 * FilterFileSystem would otherwise answer with FileSystem's generic code on top of the view.
 *
 * <p>Public with a no-argument constructor: Hadoop creates it by class name
 * ({@code fs.<scheme>.impl}).
 */
public class ScopedFileSystem extends FilterFileSystem implements IOStatisticsSource {

    public ScopedFileSystem() {
        // the shared instance is bound in initialize
    }

    @Override
    public void initialize(URI name, Configuration conf) throws IOException {
        FileSystemScope scope = FileSystemScope.lookup(conf.get(FileSystemScope.ID_KEY));
        if (scope == null) {
            throw new IOException("The file systems of this task are closed (task stopped); cannot use "
                    + name.getScheme() + "://" + name.getAuthority());
        }
        fs = scope.shared(name);
        super.initialize(name, conf);
    }

    /** Leaves the shared file system open: its scope closes it. */
    @Override
    public void close() {
        // nothing of its own to release
    }

    @Override
    public String getScheme() {
        return fs.getScheme();
    }

    @Override
    public String getCanonicalServiceName() {
        return fs.getCanonicalServiceName();
    }

    @Override
    public boolean hasPathCapability(Path path, String capability) throws IOException {
        return fs.hasPathCapability(path, capability);
    }

    @Override
    public boolean exists(Path f) throws IOException {
        return fs.exists(f);
    }

    @Override
    public boolean isFile(Path f) throws IOException {
        return fs.isFile(f);
    }

    @Override
    public boolean isDirectory(Path f) throws IOException {
        return fs.isDirectory(f);
    }

    @Override
    public RemoteIterator<LocatedFileStatus> listFiles(Path f, boolean recursive) throws IOException {
        return fs.listFiles(f, recursive);
    }

    @Override
    public FileStatus[] globStatus(Path pathPattern) throws IOException {
        return fs.globStatus(pathPattern);
    }

    @Override
    public FileStatus[] globStatus(Path pathPattern, PathFilter filter) throws IOException {
        return fs.globStatus(pathPattern, filter);
    }

    @Override
    public ContentSummary getContentSummary(Path f) throws IOException {
        return fs.getContentSummary(f);
    }

    @Override
    public BulkDelete createBulkDelete(Path path) throws IOException {
        return fs.createBulkDelete(path);
    }

    @Override
    public MultipartUploaderBuilder createMultipartUploader(Path basePath) throws IOException {
        return fs.createMultipartUploader(basePath);
    }

    /** Registered with the shared instance, so it happens when the scope closes it. */
    @Override
    public boolean deleteOnExit(Path f) throws IOException {
        return fs.deleteOnExit(f);
    }

    @Override
    public boolean cancelDeleteOnExit(Path f) {
        return fs.cancelDeleteOnExit(f);
    }

    @Override
    public StorageStatistics getStorageStatistics() {
        return fs.getStorageStatistics();
    }

    @Override
    public IOStatistics getIOStatistics() {
        return fs instanceof IOStatisticsSource source ? source.getIOStatistics() : null;
    }
}
