package io.mssqlcdc.fake;

import io.mssqlcdc.types.SqlServerType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;

/**
 * Turns a script's value into the Java class {@link io.mssqlcdc.client.ChangeCursor} documents
 * for the column's SQL Server type (an Integer for a bigint becomes a Long, a String for a
 * date a LocalDate), and rejects values that do not fit, like SQL Server would.
 */
final class ValueCoercion {
  private ValueCoercion() {}

  static final Set<String> SUPPORTED = Set.of(
      "bit", "tinyint", "smallint", "int", "bigint", "real", "float", "decimal", "numeric", "money", "smallmoney",
      "date", "datetime", "datetime2", "smalldatetime", "datetimeoffset", "time", "char", "varchar", "nchar",
      "nvarchar", "text", "ntext", "xml", "uniqueidentifier", "binary", "varbinary", "image", "rowversion",
      "timestamp");

  /** Thrown by the converters; {@link #coerce} adds table, column and type. */
  private static final class Misfit extends RuntimeException {
    Misfit(String reason) {
      super(reason, null, false, false);
    }
  }

  static Object coerce(String table, String column, SqlServerType type, Object value) {
    if (value == null) {
      return null;
    }
    try {
      return convert(type, value);
    } catch (Misfit | ArithmeticException | DateTimeException | IllegalArgumentException e) {
      throw FakeErrors.valueDoesNotFit(table, column, type.declaration(), value, e.getMessage());
    }
  }

  private static Object convert(SqlServerType type, Object v) {
    return switch (type.name()) {
      case "bit" -> bit(v);
      case "tinyint" -> (short) integral(v, 0, 255);
      case "smallint" -> (short) integral(v, Short.MIN_VALUE, Short.MAX_VALUE);
      case "int" -> (int) integral(v, Integer.MIN_VALUE, Integer.MAX_VALUE);
      case "bigint" -> integral(v, Long.MIN_VALUE, Long.MAX_VALUE);
      case "real" -> number(v).floatValue();
      case "float" -> number(v).doubleValue();
      case "decimal", "numeric" -> decimal(v, type.precision(), type.scale());
      case "money" -> decimal(v, 19, 4);
      case "smallmoney" -> decimal(v, 10, 4);
      case "date" -> v instanceof LocalDate d ? d : v instanceof String s ? LocalDate.parse(s.strip()) : wrong(v, "a LocalDate");
      case "datetime", "smalldatetime" -> dateTime(v, 3);
      case "datetime2" -> dateTime(v, type.datetimePrecision() < 0 ? 7 : type.datetimePrecision());
      case "datetimeoffset" -> offsetDateTime(v, type.datetimePrecision() < 0 ? 7 : type.datetimePrecision());
      case "time" -> time(v, type.datetimePrecision() < 0 ? 7 : type.datetimePrecision());
      case "char", "varchar", "nchar", "nvarchar", "text", "ntext", "xml" -> string(v, type.maxLength());
      case "uniqueidentifier" -> guid(v);
      case "binary", "varbinary", "image", "rowversion", "timestamp" -> bytes(v, type.maxLength());
      default -> throw new Misfit("the fake does not model type " + type.name());
    };
  }

  private static Object wrong(Object v, String expected) {
    throw new Misfit("expected " + expected);
  }

  private static Boolean bit(Object v) {
    if (v instanceof Boolean b) {
      return b;
    }
    if (v instanceof Number n && (n.longValue() == 0 || n.longValue() == 1)) {
      return n.longValue() == 1;
    }
    throw new Misfit("expected a Boolean or 0/1");
  }

  private static long integral(Object v, long min, long max) {
    BigDecimal d;
    if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
      long l = ((Number) v).longValue();
      if (l < min || l > max) {
        throw new Misfit("out of range " + min + ".." + max);
      }
      return l;
    }
    if (v instanceof BigDecimal || v instanceof BigInteger) {
      d = new BigDecimal(v.toString());
    } else if (v instanceof String s) {
      d = new BigDecimal(s.strip());
    } else {
      throw new Misfit("expected an integer");
    }
    if (d.stripTrailingZeros().scale() > 0) {
      throw new Misfit("not a whole number");
    }
    if (d.compareTo(BigDecimal.valueOf(min)) < 0 || d.compareTo(BigDecimal.valueOf(max)) > 0) {
      throw new Misfit("out of range " + min + ".." + max);
    }
    return d.longValueExact();
  }

  private static Number number(Object v) {
    if (v instanceof Number n) {
      return n;
    }
    if (v instanceof String s) {
      return Double.valueOf(s.strip());
    }
    throw new Misfit("expected a number");
  }

  private static BigDecimal decimal(Object v, int precision, int scale) {
    BigDecimal d;
    if (v instanceof BigDecimal b) {
      d = b;
    } else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
      d = BigDecimal.valueOf(((Number) v).longValue());
    } else if (v instanceof Number n) {
      d = new BigDecimal(n.toString());
    } else if (v instanceof String s) {
      d = new BigDecimal(s.strip());
    } else {
      throw new Misfit("expected a BigDecimal or number");
    }
    BigDecimal scaled = d.setScale(scale, RoundingMode.HALF_UP);
    if (scaled.precision() - scaled.scale() > precision - scale) {
      throw new Misfit("more than " + (precision - scale) + " digits before the decimal point (arithmetic overflow)");
    }
    return scaled;
  }

  private static LocalDateTime dateTime(Object v, int fractionDigits) {
    LocalDateTime t;
    if (v instanceof LocalDateTime l) {
      t = l;
    } else if (v instanceof String s) {
      t = io.mssqlcdc.types.TemporalText.localDateTime(s);
    } else if (v instanceof LocalDate d) {
      t = d.atStartOfDay();
    } else {
      throw new Misfit("expected a LocalDateTime");
    }
    return truncate(t, fractionDigits);
  }

  private static LocalDateTime truncate(LocalDateTime t, int digits) {
    long unit = (long) Math.pow(10, 9 - digits);
    return t.withNano((int) (t.getNano() / unit * unit));
  }

  private static OffsetDateTime offsetDateTime(Object v, int digits) {
    OffsetDateTime t;
    if (v instanceof OffsetDateTime o) {
      t = o;
    } else if (v instanceof String s) {
      t = io.mssqlcdc.types.TemporalText.offsetDateTime(s);
    } else {
      throw new Misfit("expected an OffsetDateTime");
    }
    return OffsetDateTime.of(truncate(t.toLocalDateTime(), digits), t.getOffset());
  }

  /** SQL Server's {@code time(n)} keeps n fractional digits; the text has nine (TemporalText#time). */
  private static String time(Object v, int digits) {
    LocalTime t;
    if (v instanceof LocalTime l) {
      t = l;
    } else if (v instanceof String s) {
      t = LocalTime.parse(s.strip());
    } else {
      throw new Misfit("expected a LocalTime or HH:mm:ss[.fffffff] text");
    }
    long unit = (long) Math.pow(10, 9 - digits);
    return io.mssqlcdc.types.TemporalText.time(t.withNano((int) (t.getNano() / unit * unit)));
  }

  private static String string(Object v, int maxLength) {
    if (!(v instanceof String) && !(v instanceof Character)) {
      throw new Misfit("expected a String");
    }
    String s = v.toString();
    if (maxLength > 0 && maxLength != SqlServerType.MAX_LENGTH && s.length() > maxLength) {
      throw new Misfit("String or binary data would be truncated (" + s.length() + " characters, at most " + maxLength + ")");
    }
    return s;
  }

  private static String guid(Object v) {
    if (v instanceof UUID u) {
      return u.toString().toUpperCase(Locale.ROOT);
    }
    if (v instanceof String s) {
      String t = s.strip();
      if (!t.matches("(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")) {
        throw new Misfit("Conversion failed when converting from a character string to uniqueidentifier");
      }
      return t.toUpperCase(Locale.ROOT);
    }
    throw new Misfit("expected a UUID or its text");
  }

  private static byte[] bytes(Object v, int maxLength) {
    byte[] b;
    if (v instanceof byte[] x) {
      b = x.clone();
    } else if (v instanceof String s) {
      b = s.getBytes(StandardCharsets.UTF_8);
    } else {
      throw new Misfit("expected a byte[]");
    }
    if (maxLength > 0 && maxLength != SqlServerType.MAX_LENGTH && b.length > maxLength) {
      throw new Misfit("String or binary data would be truncated (" + b.length + " bytes, at most " + maxLength + ")");
    }
    return b;
  }
}
