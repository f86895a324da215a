package io.deltasink.convert;

/**
 * The children of one JSON object met so far, by {@link FieldTree#position()}: a wanted key given
 * twice is left to the tree path (which keeps the last), so both streaming readers stop at it.
 */
final class SeenChildren {
    private final boolean[] many;
    private long bits;

    /** @param children the number of children of the object's node */
    SeenChildren(int children) {
        this.many = children > Long.SIZE ? new boolean[children] : null;
    }

    /** Marks the child at {@code position}; false when it was met before in this object. */
    boolean first(int position) {
        if (many != null) {
            boolean before = many[position];
            many[position] = true;
            return !before;
        }
        long bit = 1L << position;
        boolean before = (bits & bit) != 0;
        bits |= bit;
        return !before;
    }
}
