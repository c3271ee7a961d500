package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.types.SqlServerType;
import io.mssqlcdc.types.TemporalText;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;

/**
 * Key values of range bounds: which key types can bound a range at all, and the Java value
 * (as {@link io.mssqlcdc.client.ChangeCursor} documents them) of a JSON bound for a key column.
 *
 * <p>A key type can bound a range when its values compare in SQL Server as they do once read
 * back (reference-behaviour §12.2 {@code key_types}): not {@code time}, not types without a
 * mapping ({@code sql_variant}, spatial, CLR); {@code datetime2(7)} and
 * {@code datetimeoffset(7)} only as the last key column, since truncation to microseconds could
 * swap two bounds.
 */
public final class KeyValues {
  private KeyValues() {}

  /** Why a key column of {@code type} cannot bound a range, or empty when it can. */
  public static Optional<String> unrangeable(String column, SqlServerType type, boolean last) {
    String t = type.name();
    switch (t) {
      case "bit", "tinyint", "smallint", "int", "bigint", "decimal", "numeric", "money", "smallmoney", "real",
          "float", "date", "datetime", "smalldatetime", "char", "varchar", "nchar", "nvarchar", "sysname",
          "uniqueidentifier", "binary", "varbinary", "timestamp", "rowversion" -> {
        return Optional.empty();
      }
      case "datetime2", "datetimeoffset" -> {
        if (!last && (type.datetimePrecision() < 0 || type.datetimePrecision() > 6)) {
          return Optional.of(column + " is " + type.declaration()
              + ", which reads back truncated to microseconds, and is not the last key column");
        }
        return Optional.empty();
      }
      default -> {
        return Optional.of(column + " is " + type.declaration() + ", which has no bindable bound");
      }
    }
  }

  /**
   * The value of JSON bound scalar {@code v} for a key column of {@code type} ({@code null}
   * when the type is unknown: the value then stays as JSON gave it).
   *
   * @throws IllegalArgumentException with a reason when {@code v} is no value of the type
   */
  public static Object typed(Object v, SqlServerType type) {
    if (v == null || type == null) {
      return v;
    }
    try {
      return switch (type.name()) {
        case "tinyint", "smallint" -> (short) exact(v).intValueExact();
        case "int" -> exact(v).intValueExact();
        case "bigint" -> exact(v).longValueExact();
        case "bit" -> bit(v);
        case "decimal", "numeric", "money", "smallmoney" -> new BigDecimal(v.toString());
        case "real" -> Float.parseFloat(v.toString());
        case "float" -> Double.parseDouble(v.toString());
        case "date" -> LocalDate.parse(text(v));
        case "datetime", "datetime2", "smalldatetime" -> TemporalText.localDateTime(text(v));
        case "datetimeoffset" -> TemporalText.offsetDateTime(text(v));
        case "binary", "varbinary", "timestamp", "rowversion" -> binary(text(v));
        case "uniqueidentifier" -> text(v).toUpperCase(Locale.ROOT);
        default -> text(v);
      };
    } catch (ArithmeticException | NumberFormatException | java.time.DateTimeException e) {
      throw new IllegalArgumentException(describe(v) + " is no " + type.declaration() + " value");
    }
  }

  private static BigDecimal exact(Object v) {
    BigDecimal d = new BigDecimal(v.toString().strip());
    return d.stripTrailingZeros().scale() > 0 ? d.setScale(0) : d; // setScale(0) throws on a fraction
  }

  private static Boolean bit(Object v) {
    if (v instanceof Boolean b) {
      return b;
    }
    return switch (v.toString().strip()) {
      case "0" -> false;
      case "1" -> true;
      default -> throw new NumberFormatException();
    };
  }

  private static String text(Object v) {
    if (v instanceof String s) {
      return s;
    }
    throw new NumberFormatException();
  }

  private static byte[] binary(String s) {
    String h = s.strip();
    if (!(h.startsWith("0x") || h.startsWith("0X"))) {
      throw new NumberFormatException();
    }
    try {
      return HexFormat.of().parseHex(h.substring(2));
    } catch (IllegalArgumentException e) {
      throw new NumberFormatException();
    }
  }

  private static String describe(Object v) {
    return v instanceof String s ? "'" + s + "'" : String.valueOf(v);
  }
}
