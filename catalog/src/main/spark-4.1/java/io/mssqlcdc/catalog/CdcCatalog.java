package io.mssqlcdc.catalog;

/**
 * The {@code mssql_cdc} catalog on Spark 4.1 (docs/SQL.md): namespaces, tables and procedures of
 * {@link CdcCatalogBase}. Spark 4.1 has no change-data API, so there is no {@code CHANGES} clause.
 */
public final class CdcCatalog extends CdcCatalogBase {
}
