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

  /** ISO 8601 text from {@code CONVERT(varchar(23), x, 126)} (which drops {@code .000}), as UTC. */
  static java.time.Instant utc(String iso) {
    return iso == null ? null : LocalDateTime.parse(iso).toInstant(java.time.ZoneOffset.UTC);
  }

}
