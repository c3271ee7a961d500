package io.mssqlcdc.types;

import java.io.Serializable;
import java.util.Locale;

/**
 * A SQL Server column type as {@code sys.sp_cdc_get_captured_columns} reports it: the base type
 * name ({@code data_type}, alias types already resolved) plus length, precision, scale and
 * datetime precision where they apply ({@code -1} when absent; a length of {@code -1} in SQL
 * Server's own metadata means {@code (max)}, shown here as {@link #MAX_LENGTH}).
 */
public record SqlServerType(String name, int maxLength, int precision, int scale, int datetimePrecision)
    implements Serializable {

  /** {@code maxLength} of a {@code (max)} type. */
  public static final int MAX_LENGTH = Integer.MAX_VALUE;

  public SqlServerType {
    name = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
  }

  /** A type without length, precision or scale ({@code int}, {@code date}, ...). */
  public static SqlServerType of(String name) {
    return new SqlServerType(name, -1, -1, -1, -1);
  }

  public static SqlServerType decimal(String name, int precision, int scale) {
    return new SqlServerType(name, -1, precision, scale, -1);
  }

  public static SqlServerType sized(String name, int maxLength) {
    return new SqlServerType(name, maxLength, -1, -1, -1);
  }

  public static SqlServerType temporal(String name, int datetimePrecision) {
    return new SqlServerType(name, -1, -1, -1, datetimePrecision);
  }

  /**
   * Parses a declaration such as {@code int}, {@code decimal(18,2)}, {@code nvarchar(max)},
   * {@code datetime2(3)}: the form the fake records and the SQL client prints.
   */
  public static SqlServerType parse(String declaration) {
    String s = declaration.strip().toLowerCase(Locale.ROOT);
    int open = s.indexOf('(');
    if (open < 0 || !s.endsWith(")")) {
      return of(s);
    }
    String base = s.substring(0, open).strip();
    String args = s.substring(open + 1, s.length() - 1).strip();
    switch (base) {
      case "decimal", "numeric" -> {
        String[] ps = args.split(",");
        int p = Integer.parseInt(ps[0].strip());
        int sc = ps.length > 1 ? Integer.parseInt(ps[1].strip()) : 0;
        return decimal(base, p, sc);
      }
      case "datetime2", "datetimeoffset", "time" -> {
        return temporal(base, Integer.parseInt(args));
      }
      default -> {
        return sized(base, args.equals("max") ? MAX_LENGTH : Integer.parseInt(args));
      }
    }
  }

  /** The declaration as T-SQL writes it: {@code decimal(18,2)}, {@code varchar(max)}, {@code int}. */
  public String declaration() {
    return switch (name) {
      case "decimal", "numeric" -> name + "(" + precision + "," + scale + ")";
      case "char", "varchar", "nchar", "nvarchar", "binary", "varbinary" ->
          maxLength < 0 ? name : name + "(" + (maxLength == MAX_LENGTH ? "max" : Integer.toString(maxLength)) + ")";
      case "datetime2", "datetimeoffset", "time" -> datetimePrecision < 0 ? name : name + "(" + datetimePrecision + ")";
      default -> name;
    };
  }

  @Override
  public String toString() {
    return declaration();
  }
}
