package io.mssqlcdc.client.jdbc;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.Locale;

/**
 * Reads a column of a result set as the Java value {@link io.mssqlcdc.client.ChangeCursor}
 * documents, by the column's SQL Server type name ({@link ResultSetMetaData#getColumnTypeName}):
 * {@code Boolean} (bit), {@code Short} (tinyint, smallint), {@code Integer}, {@code Long},
 * {@code Float} (real), {@code Double} (float), {@code BigDecimal} (decimal, numeric, money),
 * {@code LocalDate}, {@code LocalDateTime} (datetime, datetime2, smalldatetime: as stored),
 * {@code OffsetDateTime}, {@code String} (text types, xml, time as {@code HH:mm:ss.nnnnnnnnn} ({@link io.mssqlcdc.types.TemporalText#time}),
 * uniqueidentifier upper case), {@code byte[]} (binary, rowversion). {@code null} for SQL NULL.
 */
final class JdbcValues {
  /** How to read one column; decided once per result set. */
  enum Reader { BOOLEAN, SHORT, INT, LONG, FLOAT, DOUBLE, DECIMAL, DATE, DATETIME, DATETIMEOFFSET, TIME, GUID, STRING, BYTES, OBJECT }

  private JdbcValues() {}

  static Reader readerFor(String typeName) {
    String t = typeName == null ? "" : typeName.toLowerCase(Locale.ROOT).replaceFirst(" identity$", "");
    return switch (t) {
      case "bit" -> Reader.BOOLEAN;
      case "tinyint", "smallint" -> Reader.SHORT;
      case "int" -> Reader.INT;
      case "bigint" -> Reader.LONG;
      case "real" -> Reader.FLOAT;
      case "float" -> Reader.DOUBLE;
      case "decimal", "numeric", "money", "smallmoney" -> Reader.DECIMAL;
      case "date" -> Reader.DATE;
      case "datetime", "datetime2", "smalldatetime" -> Reader.DATETIME;
      case "datetimeoffset" -> Reader.DATETIMEOFFSET;
      case "time" -> Reader.TIME;
      case "uniqueidentifier" -> Reader.GUID;
      case "char", "varchar", "nchar", "nvarchar", "text", "ntext", "xml", "sysname" -> Reader.STRING;
      case "binary", "varbinary", "image", "timestamp", "rowversion" -> Reader.BYTES;
      default -> Reader.OBJECT;
    };
  }

  static Reader[] readers(ResultSetMetaData md, int firstColumn) throws SQLException {
    int n = md.getColumnCount() - firstColumn + 1;
    Reader[] r = new Reader[Math.max(0, n)];
    for (int i = 0; i < r.length; i++) {
      r[i] = readerFor(md.getColumnTypeName(firstColumn + i));
    }
    return r;
  }

  static Object read(ResultSet rs, int column, Reader reader) throws SQLException {
    Object v = switch (reader) {
      case BOOLEAN -> rs.getBoolean(column);
      case SHORT -> rs.getShort(column);
      case INT -> rs.getInt(column);
      case LONG -> rs.getLong(column);
      case FLOAT -> rs.getFloat(column);
      case DOUBLE -> rs.getDouble(column);
      case DECIMAL -> rs.getBigDecimal(column);
      case DATE -> rs.getObject(column, LocalDate.class);
      case DATETIME -> rs.getObject(column, LocalDateTime.class);
      case DATETIMEOFFSET -> rs.getObject(column, OffsetDateTime.class);
      case TIME -> {
        LocalTime t = rs.getObject(column, LocalTime.class);
        yield t == null ? null : io.mssqlcdc.types.TemporalText.time(t);
      }
      case GUID -> {
        String s = rs.getString(column);
        yield s == null ? null : s.toUpperCase(Locale.ROOT);
      }
      case STRING -> rs.getString(column);
      case BYTES -> rs.getBytes(column);
      case OBJECT -> rs.getObject(column);
    };
    return rs.wasNull() ? null : v;
  }

  /**
   * ISO 8601 text from {@code CONVERT(varchar(23), x, 126)} (which drops {@code .000}), as UTC. Read
   * by hand in the two shapes style 126 gives ({@code yyyy-MM-ddTHH:mm:ss} and {@code ...ss.fff}):
   * the change stream reads one per row, and {@link LocalDateTime#parse} was a third of the JDBC
   * path's client CPU per row (docs/PERFORMANCE.md, "jdbc"). Any other text goes to
   * {@code LocalDateTime.parse}, which accepts every ISO form and names what it cannot read.
   */
  static java.time.Instant utc(String iso) {
    if (iso == null) {
      return null;
    }
    int n = iso.length();
    if ((n == 19 || n == 23) && iso.charAt(4) == '-' && iso.charAt(7) == '-' && iso.charAt(10) == 'T'
        && iso.charAt(13) == ':' && iso.charAt(16) == ':' && (n == 19 || iso.charAt(19) == '.')) {
      int year = digits(iso, 0, 4);
      int month = digits(iso, 5, 2);
      int day = digits(iso, 8, 2);
      int hour = digits(iso, 11, 2);
      int minute = digits(iso, 14, 2);
      int second = digits(iso, 17, 2);
      int millis = n == 23 ? digits(iso, 20, 3) : 0;
      if ((year | month | day | hour | minute | second | millis) >= 0 && month >= 1 && month <= 12 && day >= 1
          && day <= 31 && hour <= 23 && minute <= 59 && second <= 59) {
        // LocalDateTime.of refuses a day the month does not have, as parse would
        return LocalDateTime.of(year, month, day, hour, minute, second, millis * 1_000_000)
            .toInstant(java.time.ZoneOffset.UTC);
      }
    }
    return LocalDateTime.parse(iso).toInstant(java.time.ZoneOffset.UTC);
  }

  /** The decimal number in {@code count} ASCII digits from {@code from}; -1 if one is not a digit. */
  private static int digits(String s, int from, int count) {
    int v = 0;
    for (int i = from; i < from + count; i++) {
      int d = s.charAt(i) - '0';
      if (d < 0 || d > 9) {
        return -1;
      }
      v = v * 10 + d;
    }
    return v;
  }

}
