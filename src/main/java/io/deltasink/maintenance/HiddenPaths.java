package io.deltasink.maintenance;

import java.util.List;

/**
 * Delta's rule for what vacuum must never touch: a path with a component starting with {@code _}
 * or {@code .} ({@code _delta_log}, {@code _change_data}, checksum and temporary files), except a
 * partition folder {@code <partition column>=<value>} of the table, which may start with {@code _}
 * when the column does.
 */
final class HiddenPaths {
    private final List<String> partitionColumns;

    HiddenPaths(List<String> partitionColumns) {
        this.partitionColumns = List.copyOf(partitionColumns);
    }

    /** @param relativePath a file's path below the table root, decoded, '/'-separated */
    boolean hidden(String relativePath) {
        String[] parts = relativePath.split("/", -1);
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i];
            if ((part.startsWith("_") || part.startsWith(".")) && !(i < parts.length - 1 && partitionFolder(part, i))) {
                return true;
            }
        }
        return false;
    }

    /** A folder at depth {@code depth} named for the partition column of that depth. */
    private boolean partitionFolder(String name, int depth) {
        return depth < partitionColumns.size() && name.startsWith(partitionColumns.get(depth) + "=");
    }
}
