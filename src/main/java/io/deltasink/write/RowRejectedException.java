package io.deltasink.write;

/**
 * A row the writer cannot write because of one of its values (e.g. a partition value that cannot
 * become a folder name): nothing of it was written and the writer stays usable. The caller treats
 * the record as bad; other problems (a misconfigured writer, storage failures) are other exceptions.
 */
public final class RowRejectedException extends IllegalArgumentException {
    private final String column;
    private final transient Object value;
    private final String problem;

    public RowRejectedException(String column, Object value, String problem) {
        super("column '" + column + "': " + problem);
        this.column = column;
        this.value = value;
        this.problem = problem;
    }

    /** The column whose value was refused. */
    public String column() {
        return column;
    }

    /** The refused value, for a message excerpt; may be null. */
    public Object value() {
        return value;
    }

    /** What is wrong with the value, without the column. */
    public String problem() {
        return problem;
    }
}
