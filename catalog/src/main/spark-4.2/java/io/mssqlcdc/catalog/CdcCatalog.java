package io.mssqlcdc.catalog;

import io.mssqlcdc.client.CdcClient;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.connector.catalog.Changelog;
import org.apache.spark.sql.connector.catalog.ChangelogContext;
import org.apache.spark.sql.connector.catalog.ChangelogRange;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The {@code mssql_cdc} catalog on Spark 4.2 (docs/SQL.md): {@link CdcCatalogBase}'s namespaces,
 * tables and procedures, and the change-data API: {@code SELECT ... FROM cdc.dbo.orders CHANGES
 * FROM VERSION '0x...' TO VERSION '0x...'} reads the change stream's rows of that commit-LSN range
 * ({@link CdcChangelog}).
 */
public final class CdcCatalog extends CdcCatalogBase {

  @Override
  public Changelog loadChangelog(Identifier ident, ChangelogContext context, CaseInsensitiveStringMap readOptions)
      throws NoSuchTableException {
    CatalogTable table = CatalogTable.load(options(), entry(ident));
    ChangeRange range;
    try (CdcClient client = options().open()) {
      range = resolve(client, table.captureInstance(), context.range());
    }
    return new CdcChangelog(table, range, table.streamOptions(readerOptions(readOptions)));
  }

  /**
   * The change-data API's own options (Spark passes the {@code CHANGES} clause's {@code WITH}
   * options, its bounds and modes included, to {@code loadChangelog}) are Spark's, not the reader's.
   */
  static final java.util.Set<String> CHANGELOG_OPTIONS = java.util.Set.of("startingversion", "endingversion",
      "startingtimestamp", "endingtimestamp", "startingboundinclusive", "endingboundinclusive", "deduplicationmode",
      "computeupdates");

  private static java.util.Map<String, String> readerOptions(CaseInsensitiveStringMap given) {
    java.util.Map<String, String> o = new java.util.LinkedHashMap<>();
    given.asCaseSensitiveMap().forEach((k, v) -> {
      if (!CHANGELOG_OPTIONS.contains(k.toLowerCase(java.util.Locale.ROOT))) {
        o.put(k, v);
      }
    });
    return o;
  }

  private static ChangeRange resolve(CdcClient client, String captureInstance, ChangelogRange r) {
    if (r instanceof ChangelogRange.VersionRange v) {
      return ChangeRange.ofVersions(client, v.startingVersion(), v.startingBoundInclusive(), v.endingVersion(),
          v.endingBoundInclusive());
    }
    if (r instanceof ChangelogRange.TimestampRange t) {
      return ChangeRange.ofTimestamps(client, captureInstance, t.startingTimestamp(), t.startingBoundInclusive(),
          t.endingTimestamp(), t.endingBoundInclusive());
    }
    return ChangeRange.unbounded(client, captureInstance);
  }
}
