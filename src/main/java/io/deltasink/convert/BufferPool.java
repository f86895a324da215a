package io.deltasink.convert;

import java.util.concurrent.atomic.AtomicReferenceArray;

import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.RecyclerPool;

/**
 * The buffers of one {@link Json}'s parsers, reused from record to record: a few slots taken and
 * given back without locks or allocation. Jackson's default pool keeps them per thread, and its
 * thread-local look-up took a sixth of the conversion's time on a worker-like thread (many
 * thread-locals). A thread that finds every slot taken gets new buffers, which are dropped on
 * release when the slots are full again, so the memory held is bounded by the slots.
 */
final class BufferPool implements RecyclerPool<BufferRecycler> {
    private static final long serialVersionUID = 1L;
    /** One per parser in use at once: a task's thread uses one at a time. */
    private static final int SLOTS = 4;

    private final AtomicReferenceArray<BufferRecycler> slots = new AtomicReferenceArray<>(SLOTS);

    @Override
    public BufferRecycler acquirePooled() {
        for (int i = 0; i < SLOTS; i++) {
            BufferRecycler r = slots.getAndSet(i, null);
            if (r != null) {
                return r;
            }
        }
        return new BufferRecycler();
    }

    @Override
    public void releasePooled(BufferRecycler recycler) {
        for (int i = 0; i < SLOTS; i++) {
            if (slots.get(i) == null && slots.compareAndSet(i, null, recycler)) {
                return;
            }
        }
    }

    @Override
    public int pooledCount() {
        int n = 0;
        for (int i = 0; i < SLOTS; i++) {
            n += slots.get(i) == null ? 0 : 1;
        }
        return n;
    }

    @Override
    public boolean clear() {
        for (int i = 0; i < SLOTS; i++) {
            slots.set(i, null);
        }
        return true;
    }
}
