package io.mssqlcdc.sink.tables;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.types.StructField;

/**
 * One step of a table kind's schema history, declared as data so the runner can apply it
 * idempotently (reference-behaviour §14.7): columns to add (nullable, skipped when the table has
 * them, matched ignoring case), column comments to set (on columns the table has), and the table
 * comment. Migrations are append-only: a migration's position in its kind's list is the schema
 * version it brings the table to.
 *
 * @param description what it does, for logs
 * @param addColumns columns to add, with their comments
 * @param comments column → comment to set
 * @param tableComment the table's new comment, if it changes
 */
public record Migration(
    String description, List<StructField> addColumns, Map<String, String> comments, Optional<String> tableComment) {

  public Migration {
    addColumns = List.copyOf(addColumns);
    comments = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(comments));
  }

  /** A migration that adds columns. */
  public static Migration adding(String description, List<StructField> columns) {
    return new Migration(description, columns, Map.of(), Optional.empty());
  }

  /** A migration that only sets comments. */
  public static Migration commenting(String description, Map<String, String> comments, String tableComment) {
    return new Migration(description, List.of(), comments, Optional.ofNullable(tableComment));
  }

  /** This migration, also setting {@code comments} and the table comment. */
  public Migration withComments(Map<String, String> more, String table) {
    Map<String, String> all = new LinkedHashMap<>(comments);
    all.putAll(more);
    return new Migration(description, addColumns, all, Optional.ofNullable(table).or(() -> tableComment));
  }
}
