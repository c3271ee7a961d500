package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.types.SqlServerType;
import io.mssqlcdc.types.TypeMapping;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Declared types of key columns, for the typed text bounds of {@link KeyPredicates} (reference
 * §12.2 {@code key_types}): {@code decimal/numeric(p,s)}, {@code (n)char/(var)char/(var)binary(n|max)},
 * {@code datetime2/datetimeoffset(p)}, others bare. {@code time} and types without a default
 * mapping cannot be bound; {@code datetime2(7)}/{@code datetimeoffset(7)} only as the last key
 * column (bounds arrive with microseconds, so a truncated bound could swap two keys' order).
 */
final class KeyTypes {
  private KeyTypes() {}

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
    if (type.name().equals("time") || TypeMapping.sparkType(type).isEmpty()
        || List.of("text", "ntext", "image", "xml").contains(type.name())) {
      return null;
    }
    return type.declaration();
  }

  /**
   * The keys {@code names} of {@code table} with their bound types.
   *
   * @param needBounds whether bounds will be bound (then every key must be bindable)
   */
  static List<KeyPredicates.Key> keys(TableRef table, List<String> names, List<SqlCdcClient.ColumnInfo> columns, boolean needBounds) {
    List<KeyPredicates.Key> keys = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      SqlCdcClient.ColumnInfo c = columns.stream().filter(x -> x.name().equals(name)).findFirst().orElse(null);
      if (c == null) {
        throw CdcErrors.keyNotRangeable(table.toString(), names, "the table has no column " + name + " now");
      }
      String type = bindable(c.type());
      if (needBounds && type == null) {
        throw CdcErrors.keyNotRangeable(table.toString(), names, name + " is " + c.type() + ", which no text bound reads back");
      }
      boolean sevenDigits = (c.type().name().equals("datetime2") || c.type().name().equals("datetimeoffset"))
          && c.type().datetimePrecision() == 7;
      if (needBounds && sevenDigits && i < names.size() - 1) {
        throw CdcErrors.keyNotRangeable(table.toString(), names,
            name + " is " + c.type() + " and not the last key column: bounds with microseconds could swap keys");
      }
      String collation = c.collation() != null && (c.type().name().endsWith("char")) ? c.collation() : null;
      keys.add(new KeyPredicates.Key(name, type, collation));
    }
    return keys;
  }
}
