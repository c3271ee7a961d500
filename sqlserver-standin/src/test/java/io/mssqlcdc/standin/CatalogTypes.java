package io.mssqlcdc.standin;

import io.mssqlcdc.types.SqlServerType;

/**
 * The numbers SQL Server's catalog shows for a type: {@code sys.columns} ({@code max_length} in
 * bytes, -1 for max; {@code precision}; {@code scale}) and the INFORMATION_SCHEMA-style columns of
 * {@code sys.sp_cdc_get_captured_columns} (NULL where a figure does not apply).
 */
final class CatalogTypes {
  private CatalogTypes() {}

  private static int fraction(SqlServerType t) {
    return t.datetimePrecision() < 0 ? 7 : t.datetimePrecision();
  }

  private static int decimalPrecision(SqlServerType t) {
    return t.precision() < 0 ? 18 : t.precision();
  }

  private static int decimalScale(SqlServerType t) {
    return t.scale() < 0 ? 0 : t.scale();
  }

  private static int length(SqlServerType t) {
    return t.maxLength() < 0 ? 1 : t.maxLength();
  }

  private static boolean max(SqlServerType t) {
    return t.maxLength() == SqlServerType.MAX_LENGTH;
  }

  private static int timeBytes(int p) {
    return p <= 2 ? 3 : p <= 4 ? 4 : 5;
  }

  /** The type name SQL Server's metadata shows ({@code TYPE_NAME}, {@code data_type}): rowversion is {@code timestamp}. */
  static String typeName(SqlServerType t) {
    return t.name().equals("rowversion") ? "timestamp" : t.name();
  }

  static int maxLength(SqlServerType t) {
    return switch (t.name()) {
      case "bit", "tinyint" -> 1;
      case "smallint" -> 2;
      case "int", "real", "smallmoney", "smalldatetime" -> 4;
      case "bigint", "float", "money", "datetime", "timestamp", "rowversion" -> 8;
      case "decimal", "numeric" -> decimalPrecision(t) <= 9 ? 5 : decimalPrecision(t) <= 19 ? 9 : decimalPrecision(t) <= 28 ? 13 : 17;
      case "date" -> 3;
      case "time" -> timeBytes(fraction(t));
      case "datetime2" -> timeBytes(fraction(t)) + 3;
      case "datetimeoffset" -> timeBytes(fraction(t)) + 5;
      case "uniqueidentifier", "text", "ntext", "image" -> 16;
      case "char", "varchar", "binary", "varbinary" -> max(t) ? -1 : length(t);
      case "nchar", "nvarchar" -> max(t) ? -1 : 2 * length(t);
      case "xml" -> -1;
      default -> 0;
    };
  }

  static int precision(SqlServerType t) {
    return switch (t.name()) {
      case "bit" -> 1;
      case "tinyint" -> 3;
      case "smallint" -> 5;
      case "int", "smallmoney" -> 10;
      case "bigint", "money" -> 19;
      case "real" -> 24;
      case "float" -> 53;
      case "decimal", "numeric" -> decimalPrecision(t);
      case "date" -> 10;
      case "time" -> fraction(t) == 0 ? 8 : 9 + fraction(t);
      case "datetime2" -> fraction(t) == 0 ? 19 : 20 + fraction(t);
      case "datetimeoffset" -> fraction(t) == 0 ? 26 : 27 + fraction(t);
      case "datetime" -> 23;
      case "smalldatetime" -> 16;
      default -> 0;
    };
  }

  static int scale(SqlServerType t) {
    return switch (t.name()) {
      case "decimal", "numeric" -> decimalScale(t);
      case "money", "smallmoney" -> 4;
      case "time", "datetime2", "datetimeoffset" -> fraction(t);
      case "datetime" -> 3;
      default -> 0;
    };
  }

  /** The collation of a character column ({@code database} collation), NULL for other types. */
  static String collation(SqlServerType t, String database) {
    return switch (t.name()) {
      case "char", "varchar", "nchar", "nvarchar", "text", "ntext", "sysname" -> database;
      default -> null;
    };
  }

  static Integer characterMaximumLength(SqlServerType t) {
    return switch (t.name()) {
      case "char", "varchar", "nchar", "nvarchar", "binary", "varbinary" -> max(t) ? -1 : length(t);
      case "xml" -> -1;
      case "text", "image" -> Integer.MAX_VALUE;
      case "ntext" -> 1_073_741_823;
      default -> null;
    };
  }

  static Integer numericPrecision(SqlServerType t) {
    return switch (t.name()) {
      case "tinyint", "smallint", "int", "bigint", "real", "float", "decimal", "numeric", "money", "smallmoney" -> precision(t);
      default -> null;
    };
  }

  static Integer numericPrecisionRadix(SqlServerType t) {
    return switch (t.name()) {
      case "real", "float" -> 2;
      case "tinyint", "smallint", "int", "bigint", "decimal", "numeric", "money", "smallmoney" -> 10;
      default -> null;
    };
  }

  static Integer numericScale(SqlServerType t) {
    return switch (t.name()) {
      case "tinyint", "smallint", "int", "bigint", "decimal", "numeric", "money", "smallmoney" -> scale(t);
      default -> null;
    };
  }

  static Integer datetimePrecision(SqlServerType t) {
    return switch (t.name()) {
      case "date", "smalldatetime" -> 0;
      case "datetime" -> 3;
      case "time", "datetime2", "datetimeoffset" -> fraction(t);
      default -> null;
    };
  }
}
