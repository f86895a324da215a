package io.deltasink.table;

/**
 * A top-level column of an existing table, as its schema records it.
 *
 * @param name     column name
 * @param type     the Delta type name, e.g. {@code string}, {@code integer}, {@code decimal(10,2)}
 * @param nullable whether the column may hold null
 */
public record TableColumn(String name, String type, boolean nullable) {
}
