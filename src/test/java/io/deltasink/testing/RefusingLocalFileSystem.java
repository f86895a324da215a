package io.deltasink.testing;

import java.io.IOException;
import java.util.Collection;

import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Test-only: the local file system, refusing to delete the files a test names, in the two ways
 * storage refuses: {@link #REFUSED} names get {@code false} (what the local file system answers when
 * the OS refuses, e.g. without write permission on the folder: tests run as root, so chmod cannot
 * show it), {@link #FAILING} names an IOException (an object store's error). Plugged in with
 * {@code fs.file.impl} in the table's Hadoop settings; the names are read from the same settings,
 * so nothing is shared between tests.
 */
public class RefusingLocalFileSystem extends LocalFileSystem {
    /** Hadoop key: comma-separated file names whose delete returns false. */
    public static final String REFUSED = "test.fs.delete.refused";
    /** Hadoop key: comma-separated file names whose delete throws. */
    public static final String FAILING = "test.fs.delete.failing";

    @Override
    public boolean delete(Path f, boolean recursive) throws IOException {
        if (named(REFUSED, f)) {
            return false;
        }
        if (named(FAILING, f)) {
            throw new IOException("injected: cannot delete " + f);
        }
        return super.delete(f, recursive);
    }

    private boolean named(String key, Path f) {
        Collection<String> names = getConf().getTrimmedStringCollection(key);
        return names.contains(f.getName());
    }
}
