package io.deltasink.table;

import io.delta.kernel.utils.CloseableIterator;
import java.util.Iterator;
import java.util.List;

/** A Kernel {@link CloseableIterator} over an in-memory list; closing does nothing. */
final class ListCloseableIterator<T> implements CloseableIterator<T> {
    private final Iterator<T> it;

    ListCloseableIterator(List<T> list) {
        this.it = list.iterator();
    }

    @Override
    public boolean hasNext() {
        return it.hasNext();
    }

    @Override
    public T next() {
        return it.next();
    }

    @Override
    public void close() {
    }
}
