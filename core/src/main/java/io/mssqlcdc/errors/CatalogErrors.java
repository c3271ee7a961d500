package io.mssqlcdc.errors;

import java.util.List;

/**
 * The messages of the {@code mssql_cdc} catalog ({@code io.mssqlcdc.catalog.CdcCatalog}): its
 * tables, its options and its {@code CALL} procedures, one factory method per condition. A
 * procedure's arguments are otherwise checked by the Java API it calls, with that API's codes.
 */
public final class CatalogErrors {
  private CatalogErrors() {}

  /** A {@code schema.table} that is no CDC-enabled table of the catalog. */
  public static CdcConfigException tableNotFound(String catalog, String table, List<String> known) {
    return new CdcConfigException(CdcErrorCode.CATALOG_TABLE_NOT_FOUND,
        "Table '" + CdcErrors.printable(table) + "' is not a CDC-enabled table of catalog '" + catalog + "' ("
            + (known.isEmpty() ? "it lists none: enable CDC on a table with sys.sp_cdc_enable_table"
                : "its tables: " + String.join(", ", known))
            + "). Name it as SHOW TABLES IN " + catalog + ".<schema> lists it: '<schema>.<table>'.");
  }

  /** {@code CALL <catalog>.<namespace>.<name>} names no procedure of the catalog. */
  public static CdcConfigException procedureNotFound(String catalog, String procedure, List<String> known) {
    return new CdcConfigException(CdcErrorCode.CATALOG_PROCEDURE_NOT_FOUND,
        "Procedure '" + CdcErrors.printable(procedure) + "' not found in catalog '" + catalog + "': its procedures are "
            + catalog + ".system." + String.join(", " + catalog + ".system.", known) + " (docs/SQL.md).");
  }

  /** DDL on the catalog, which mirrors SQL Server's CDC-enabled tables. */
  public static CdcConfigException readOnly(String catalog, String what) {
    return new CdcConfigException(CdcErrorCode.CATALOG_READ_ONLY,
        "Catalog '" + catalog + "' cannot " + what + ": it lists SQL Server's CDC-enabled tables (enable or disable"
            + " CDC on the server with sys.sp_cdc_enable_table / sys.sp_cdc_disable_table).");
  }

  /** An option the catalog sets itself, or one that would change a table's schema, given where it cannot be. */
  public static CdcConfigException optionNotHere(String catalog, String option, String reason) {
    return new CdcConfigException(CdcErrorCode.INVALID_OPTION,
        "Option '" + option + "' cannot be set on catalog '" + catalog + "' tables: " + reason);
  }

  /** A procedure argument the procedure itself checks (not one of the Java API it calls). */
  public static CdcConfigException invalidArgument(String procedure, String name, String given, String expected) {
    return new CdcConfigException(CdcErrorCode.INVALID_PROCEDURE_ARGUMENT,
        procedure + ": " + name + " must be " + expected + ", not "
            + (given == null ? "NULL" : "'" + CdcErrors.printable(given) + "'") + ".");
  }
}
