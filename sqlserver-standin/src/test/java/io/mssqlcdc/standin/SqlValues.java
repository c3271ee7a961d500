package io.mssqlcdc.standin;

import io.mssqlcdc.types.SqlServerType;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;

/**
 * SQL Server's conversions and comparisons of the values the stand-in handles (the Java classes
 * {@link io.mssqlcdc.client.ChangeCursor} documents): {@code CAST(text AS type)},
 * {@code CONVERT(binary, text, 1)}, and the ordering of {@code =}, {@code <}, {@code >} with
 * trailing blanks ignored in text, a collation's case rule, datetimeoffset by instant and
 * uniqueidentifier in SQL Server's byte order.
 */
final class SqlValues {
  private SqlValues() {}

  /** {@code CAST(text AS type)}; the result has the Java class the fake stores for that type. */
  static Object cast(String text, SqlServerType type) {
    String t = text.strip();
    try {
      return switch (type.name()) {
        case "bit" -> t.equals("1") || t.equalsIgnoreCase("true");
        case "tinyint", "smallint" -> Short.valueOf(t);
        case "int" -> Integer.valueOf(t);
        case "bigint" -> Long.valueOf(t);
        case "real" -> Float.valueOf(t);
        case "float" -> Double.valueOf(t);
        case "decimal", "numeric" -> new BigDecimal(t).setScale(Math.max(0, type.scale()), RoundingMode.HALF_UP);
        case "money", "smallmoney" -> new BigDecimal(t).setScale(4, RoundingMode.HALF_UP);
        case "date" -> LocalDate.parse(t);
        case "datetime", "smalldatetime", "datetime2" -> LocalDateTime.parse(t.replace(' ', 'T'));
        case "datetimeoffset" -> OffsetDateTime.parse(t.replace(' ', 'T'));
        case "uniqueidentifier" -> java.util.UUID.fromString(t).toString().toUpperCase(Locale.ROOT);
        case "char", "varchar", "nchar", "nvarchar", "time" -> text;
        default -> throw new SqlError(529, 2, 16, "Explicit conversion to " + type.declaration() + " is not allowed by the stand-in.");
      };
    } catch (RuntimeException e) {
      if (e instanceof SqlError s) {
        throw s;
      }
      throw new SqlError(245, 1, 16, "Conversion failed when converting the value '" + text + "' to data type "
          + type.declaration() + ".");
    }
  }

  /** {@code CONVERT(binary(n)|varbinary(n), text, 1)}: {@code 0x} hex; binary(n) padded or cut to n bytes. */
  static byte[] convertBinary(String text, SqlServerType type) {
    String t = text.strip();
    if (!t.regionMatches(true, 0, "0x", 0, 2) || t.length() % 2 != 0) {
      throw new SqlError(8114, 5, 16, "Error converting data type nvarchar to " + type.declaration() + ".");
    }
    byte[] b = HexFormat.of().parseHex(t.substring(2));
    if (type.name().equals("binary") && type.maxLength() > 0 && type.maxLength() != SqlServerType.MAX_LENGTH) {
      b = Arrays.copyOf(b, type.maxLength());
    }
    return b;
  }

  /**
   * SQL Server's comparison of two non-NULL values of one column's type: negative, zero, positive.
   *
   * @param caseInsensitive whether text compares ignoring case (a {@code _CI_} collation)
   */
  static int compare(Object a, Object b, SqlServerType type, boolean caseInsensitive) {
    if (type.name().equals("uniqueidentifier")) {
      return compareGuids(a.toString(), b.toString());
    }
    if (a instanceof Number x && b instanceof Number y) {
      return new BigDecimal(x.toString()).compareTo(new BigDecimal(y.toString()));
    }
    if (a instanceof String x && b instanceof String y) {
      String s = x.stripTrailing();
      String u = y.stripTrailing();
      return caseInsensitive ? s.compareToIgnoreCase(u) : s.compareTo(u);
    }
    if (a instanceof byte[] x && b instanceof byte[] y) {
      return Arrays.compareUnsigned(x, y);
    }
    if (a instanceof OffsetDateTime x && b instanceof OffsetDateTime y) {
      return x.toInstant().compareTo(y.toInstant());
    }
    if (a instanceof Boolean x && b instanceof Boolean y) {
      return Boolean.compare(x, y);
    }
    if (a instanceof LocalDateTime x && b instanceof LocalDateTime y) {
      return x.compareTo(y);
    }
    if (a instanceof LocalDate x && b instanceof LocalDate y) {
      return x.compareTo(y);
    }
    throw new SqlError(402, 1, 16, "The data types " + a.getClass().getSimpleName() + " and " + b.getClass().getSimpleName()
        + " are incompatible in the comparison (column type " + type.declaration() + ").");
  }

  /**
   * Positions, in the stored (wire) byte order, in which SQL Server compares uniqueidentifiers:
   * the last six bytes first, then 8-9, 6-7, 4-5, 0-3 (as {@code SqlGuid} documents it). The
   * first three groups are stored little-endian, so within them the text's last pair counts first.
   */
  private static final int[] GUID_ORDER = {10, 11, 12, 13, 14, 15, 8, 9, 6, 7, 4, 5, 0, 1, 2, 3};

  static int compareGuids(String a, String b) {
    byte[] x = io.mssqlcdc.standin.tds.SqlType.guidBytes(java.util.UUID.fromString(a));
    byte[] y = io.mssqlcdc.standin.tds.SqlType.guidBytes(java.util.UUID.fromString(b));
    for (int i : GUID_ORDER) {
      int c = Integer.compare(x[i] & 0xFF, y[i] & 0xFF);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  private static final DateTimeFormatter STYLE_126 = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss", Locale.ROOT);

  /** {@code CONVERT(varchar(23), t, 126)} of a datetime / datetime2(3): milliseconds shown unless zero. */
  static String style126(LocalDateTime t) {
    int millis = t.getNano() / 1_000_000;
    return STYLE_126.format(t) + (millis == 0 ? "" : String.format(Locale.ROOT, ".%03d", millis));
  }
}
