package io.mssqlcdc.client;

import java.io.Serializable;

/**
 * A column of the source table as it is now ({@code sys.columns}).
 *
 * @param name column name
 * @param columnId {@code column_id}; captured columns are matched to it, so a column dropped and
 *     re-added under the same name is another column
 * @param computed {@code is_computed}
 * @param collation {@code collation_name} of a character column, {@code null} otherwise
 */
public record TableColumn(String name, int columnId, boolean computed, String collation) implements Serializable {}
