package io.mssqlcdc.catalog.procedures;

import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * What a procedure needs of its catalog: the catalog's name, its reader options for a capture
 * instance (with a call's {@code options} over them) and the resolution of a {@code table}
 * argument ({@code schema.table}) to the capture instance the catalog reads it through.
 *
 * @param catalog the catalog's name ({@code cdc})
 * @param readerOptions (capture instance, overrides) → the source's reader options
 * @param tables {@code schema.table} → the table; throws {@code MSSQL_CDC-820} naming the
 *     catalog's tables when it is none of them
 */
public record CatalogContext(
    String catalog, BiFunction<String, Map<String, String>, Map<String, String>> readerOptions,
    Function<String, ResolvedTable> tables) {

  /** A {@code table} argument, resolved. */
  public record ResolvedTable(String qualified, String captureInstance) {}

  ResolvedTable table(String qualified) {
    return tables.apply(qualified);
  }

  /** The reader options a call passes to the Java API for {@code table}. */
  Map<String, String> options(ResolvedTable table, Map<String, String> overrides) {
    return readerOptions.apply(table.captureInstance(), overrides);
  }
}
