package io.deltasink.convert;

import java.util.List;

/** Where a column's value comes from: one entry's right-hand side after {@code =}. */
sealed interface Source {

    /** The source as written in the mapping grammar. */
    String text();

    /**
     * A field reached by a path of names (and list indexes) from the record value.
     *
     * @param path the segments; empty only for {@code raw()} (the whole value)
     * @param raw  true to take the field's text ({@code raw(...)}) instead of its value
     */
    record Field(List<String> path, boolean raw) implements Source {
        public Field {
            path = List.copyOf(path);
        }

        String pathText() {
            return String.join(".", path);
        }

        @Override
        public String text() {
            return raw ? "raw(" + pathText() + ")" : pathText();
        }
    }

    /** Record metadata: {@code @topic}, {@code @key}, {@code @header.<name>}, ... */
    record Meta(Kind kind, String header) implements Source {
        enum Kind { TOPIC, PARTITION, OFFSET, TIMESTAMP, KEY, HEADER, NOW }

        /** True for the key and headers: they are read as text (a Struct as JSON) before the column's type applies. */
        boolean isText() {
            return kind == Kind.KEY || kind == Kind.HEADER;
        }

        @Override
        public String text() {
            return kind == Kind.HEADER ? "@header." + header : "@" + kind.name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** {@code date(<column>)}: the UTC date of another output column. */
    record DateOf(String column) implements Source {
        @Override
        public String text() {
            return "date(" + column + ")";
        }
    }
}
