package io.mssqlcdc.types;

import io.mssqlcdc.errors.CdcErrors;
import java.util.Optional;

/**
 * The default SQL Server → Spark type mapping of inferred schemas (reference-behaviour §4.1).
 * Spark types are returned as Spark SQL type strings ({@code smallint}, {@code decimal(19,4)},
 * {@code timestamp_ntz}) so that this module stays free of Spark; the connector parses them.
 *
 * <table>
 *   <caption>Mapping</caption>
 *   <tr><th>SQL Server</th><th>Spark</th></tr>
 *   <tr><td>bit</td><td>boolean</td></tr>
 *   <tr><td>tinyint</td><td>smallint (0..255 does not fit a signed tinyint)</td></tr>
 *   <tr><td>smallint, int, bigint</td><td>smallint, int, bigint</td></tr>
 *   <tr><td>real, float</td><td>float, double</td></tr>
 *   <tr><td>decimal(p,s), numeric(p,s)</td><td>decimal(p,s)</td></tr>
 *   <tr><td>money, smallmoney</td><td>decimal(19,4), decimal(10,4)</td></tr>
 *   <tr><td>date</td><td>date</td></tr>
 *   <tr><td>datetime, datetime2, smalldatetime</td><td>timestamp_ntz (values as stored)</td></tr>
 *   <tr><td>datetimeoffset</td><td>timestamp (the UTC instant)</td></tr>
 *   <tr><td>time</td><td>string</td></tr>
 *   <tr><td>char, varchar, nchar, nvarchar, text, ntext, xml, uniqueidentifier</td><td>string</td></tr>
 *   <tr><td>binary, varbinary, image, timestamp (rowversion)</td><td>binary</td></tr>
 * </table>
 *
 * Anything else ({@code sql_variant}, {@code geography}, {@code geometry}, {@code hierarchyid},
 * CLR types) has no default.
 */
public final class TypeMapping {
  private TypeMapping() {}

  /** The Spark type for {@code type}, or empty when there is no default. */
  public static Optional<String> sparkType(SqlServerType type) {
    String t = switch (type.name()) {
      case "bit" -> "boolean";
      case "tinyint", "smallint" -> "smallint";
      case "int" -> "int";
      case "bigint" -> "bigint";
      case "real" -> "float";
      case "float" -> "double";
      case "decimal", "numeric" -> "decimal(" + type.precision() + "," + Math.max(0, type.scale()) + ")";
      case "money" -> "decimal(19,4)";
      case "smallmoney" -> "decimal(10,4)";
      case "date" -> "date";
      case "datetime", "datetime2", "smalldatetime" -> "timestamp_ntz";
      case "datetimeoffset" -> "timestamp";
      case "time", "char", "varchar", "nchar", "nvarchar", "text", "ntext", "xml", "uniqueidentifier",
          "sysname" -> "string";
      case "binary", "varbinary", "image", "timestamp", "rowversion" -> "binary";
      default -> null;
    };
    return Optional.ofNullable(t);
  }

  /**
   * The Spark type for a captured column, or a {@link io.mssqlcdc.errors.CdcConfigException}
   * naming {@code captureInstance.column} and the type.
   */
  public static String sparkType(String captureInstance, String column, SqlServerType type) {
    return sparkType(type).orElseThrow(() -> CdcErrors.unsupportedType(captureInstance, column, type.declaration()));
  }
}
