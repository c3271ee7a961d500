package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.client.ColumnNames;
import io.mssqlcdc.client.KeyColumns;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.types.SqlServerType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Declared types of key columns, for the typed text bounds of {@link KeyPredicates} (reference
 * §12.2 {@code key_types}): {@code decimal/numeric(p,s)}, {@code (n)char/(var)char/(var)binary(n|max)},
 * {@code datetime2/datetimeoffset(p)}, others bare. Which types can be bound is
 * {@link KeyColumns#unbindable}'s rule, shared with the fake.
 */
final class KeyTypes {
  private KeyTypes() {}

  /** How a key that cannot be used fails: {@code (table, keys, reason)} to the exception. */
  @FunctionalInterface
  interface Failure {
    RuntimeException fail(String table, List<String> keys, String reason);
  }

  /** The failure of snapshot reads ({@code snapshotChunks}). */
  static final Failure SNAPSHOT = CdcErrors::keyNotRangeable;

  /** The declared type from {@code sys.columns} pieces ({@code max_length} in bytes, -1 = max). */
  static SqlServerType declared(String typeName, int maxLength, int precision, int scale) {
    String t = typeName == null ? "" : typeName.toLowerCase(Locale.ROOT);
    return switch (t) {
      case "decimal", "numeric" -> SqlServerType.decimal(t, precision, scale);
      case "char", "varchar", "binary", "varbinary" -> SqlServerType.sized(t, maxLength == -1 ? SqlServerType.MAX_LENGTH : maxLength);
      case "nchar", "nvarchar" -> SqlServerType.sized(t, maxLength == -1 ? SqlServerType.MAX_LENGTH : maxLength / 2);
      case "datetime2", "datetimeoffset", "time" -> SqlServerType.temporal(t, scale);
      default -> SqlServerType.of(t);
    };
  }

  /** The bindable type declaration of {@code type}, or null ({@code time}, unmapped types). */
  static String bindable(SqlServerType type) {
    return KeyColumns.bindable(type);
  }

  /**
   * The column of {@code table} that {@code name} names (exactly, else ignoring case, as
   * {@link ColumnNames} says; SQL Server's default collation ignores case in names too), or null.
   */
  static SourceTableReads.ColumnInfo column(String name, List<SourceTableReads.ColumnInfo> columns) {
    int i = ColumnNames.indexOf(name, columns.stream().map(SourceTableReads.ColumnInfo::name).toList());
    return i < 0 ? null : columns.get(i);
  }

  static List<KeyPredicates.Key> keys(TableRef table, List<String> names, List<SourceTableReads.ColumnInfo> columns, boolean needBounds) {
    return keys(table, names, columns, needBounds, SNAPSHOT);
  }

  /**
   * The keys {@code names} of {@code table} with their bound types, under SQL Server's spelling.
   *
   * @param needBounds whether bounds will be bound (then every key must be bindable)
   */
  static List<KeyPredicates.Key> keys(TableRef table, List<String> names, List<SourceTableReads.ColumnInfo> columns,
      boolean needBounds, Failure failure) {
    List<KeyPredicates.Key> keys = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      SourceTableReads.ColumnInfo c = column(name, columns);
      if (c == null) {
        throw failure.fail(table.toString(), names, failure == SNAPSHOT
            ? "the table has no column " + name + " now"
            : CdcErrors.noSuchColumn(name, columns.stream().map(SourceTableReads.ColumnInfo::name).toList()));
      }
      String type = bindable(c.type());
      String unbindable = KeyColumns.unbindable(c.name(), c.type(), i == names.size() - 1);
      if (needBounds && unbindable != null) {
        throw failure.fail(table.toString(), names, unbindable);
      }
      String collation = c.collation() != null && (c.type().name().endsWith("char")) ? c.collation() : null;
      keys.add(new KeyPredicates.Key(c.name(), type, collation));
    }
    return keys;
  }
}
