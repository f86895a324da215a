package io.deltasink.convert;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.kafka.common.config.ConfigException;

import io.deltasink.model.Column;
import io.deltasink.model.RowSchema;

/**
 * A parsed column mapping: the ordered output columns and where each one's value comes from.
 * Immutable. Built by {@link #parse(String, Set)} from the {@value #COLUMNS_CONFIG} setting, or by
 * {@link AutoMapping#derive} from a first record when the setting is {@value #AUTO}.
 *
 * <p>Grammar (whitespace and newlines around tokens are ignored):
 * <pre>
 * mapping  := "auto" | entry ("," entry)*        commas inside (...) do not split; empty entries are skipped
 * entry    := name ":" type "=" source
 * type     := string|int|long|short|byte|double|float|boolean|binary|date|timestamp (and aliases)
 *           | decimal(p,s) | decimal(p)
 *           | timestamp(seconds|millis|micros|nanos)   the unit of numbers in this column (see {@link EpochUnit})
 * source   := path | "raw(" [path] ")" | "date(" column ")"
 *           | "@topic" | "@partition" | "@offset" | "@timestamp" | "@key" | "@header." name | "@now"
 * path     := segment ("." segment)*             a numeric segment also indexes a list
 * </pre>
 */
public final class ColumnMapping {
    /** The connector setting holding the mapping text. */
    public static final String COLUMNS_CONFIG = "columns";
    /** The connector setting listing the columns that may not be null. */
    public static final String NOT_NULL_CONFIG = "columns.not.null";
    /** The {@value #COLUMNS_CONFIG} value that derives the columns from the first record. */
    public static final String AUTO = "auto";

    private final List<ColumnSpec> specs;
    private final RowSchema schema;

    ColumnMapping(List<ColumnSpec> specs) {
        this.specs = List.copyOf(specs);
        this.schema = specs.isEmpty() ? null : new RowSchema(specs.stream().map(ColumnSpec::column).toList());
    }

    /**
     * Parses the {@value #COLUMNS_CONFIG} setting.
     *
     * @param columns the mapping text, or {@value #AUTO}
     * @param notNull names of the columns that may not be null ({@value #NOT_NULL_CONFIG}); every
     *                other column is nullable; must be empty for {@value #AUTO}
     * @throws ConfigException naming the offending entry and what is wrong with it
     */
    public static ColumnMapping parse(String columns, Collection<String> notNull) {
        return MappingParser.parse(columns, notNull == null ? Set.of() : notNull);
    }

    /** Parses a mapping in which every column is nullable. */
    public static ColumnMapping parse(String columns) {
        return parse(columns, Set.of());
    }

    /** True when the setting text asks for {@value #AUTO} mode. */
    public static boolean isAuto(String columns) {
        return columns != null && columns.trim().toLowerCase(Locale.ROOT).equals(AUTO);
    }

    /** True for the {@value #AUTO} placeholder: its columns are known only from a first record. */
    public boolean isAuto() {
        return specs.isEmpty();
    }

    /**
     * The output columns in order.
     *
     * @throws IllegalStateException for the {@value #AUTO} placeholder
     */
    public RowSchema schema() {
        if (schema == null) {
            throw new IllegalStateException("columns=auto: derive the mapping from a record with AutoMapping.derive");
        }
        return schema;
    }

    List<ColumnSpec> specs() {
        return specs;
    }

    /** A copy of this mapping whose named columns are NOT NULL. */
    ColumnMapping withRequired(Set<String> required) {
        List<ColumnSpec> out = new ArrayList<>(specs.size());
        for (ColumnSpec s : specs) {
            Column c = s.column();
            boolean nullable = !required.contains(c.name());
            out.add(new ColumnSpec(new Column(c.name(), c.type(), c.precision(), c.scale(), nullable, c.nested()), s.source(), s.unit()));
        }
        return new ColumnMapping(out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ColumnMapping other && specs.equals(other.specs);
    }

    @Override
    public int hashCode() {
        return specs.hashCode();
    }

    /** The mapping in the grammar above, entries separated by {@code ", "}; {@value #AUTO} for the placeholder. */
    @Override
    public String toString() {
        return isAuto() ? AUTO : specs.stream().map(ColumnSpec::text).collect(Collectors.joining(", "));
    }
}
