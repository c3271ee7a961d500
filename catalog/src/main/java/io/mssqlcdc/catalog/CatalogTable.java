package io.mssqlcdc.catalog;

import io.mssqlcdc.connector.CdcTableProvider;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A CDC-enabled SQL Server table of the catalog: a batch read is its snapshot
 * ({@code format("mssql_cdc_snapshot")}), a streaming read its change stream
 * ({@code format("mssql_cdc")}), both in the stream's schema, inferred when Spark loads the table.
 * A read's options are the source's, over the catalog's.
 */
final class CatalogTable implements SupportsRead {
  private final CatalogOptions options;
  private final SourceTables.Entry entry;
  private final StructType schema;

  private CatalogTable(CatalogOptions options, SourceTables.Entry entry, StructType schema) {
    this.options = options;
    this.entry = entry;
    this.schema = schema;
  }

  /** Loads the table: infers the stream's schema (one connection), as {@code format("mssql_cdc").load()} does. */
  static CatalogTable load(CatalogOptions options, SourceTables.Entry entry) {
    Map<String, String> reader = CatalogOptions.forStream(options.reader(entry.captureInstance(), Map.of()), Map.of());
    StructType schema = new CdcTableProvider().inferSchema(new CaseInsensitiveStringMap(reader));
    return new CatalogTable(options, entry, schema);
  }

  @Override
  public String name() {
    return options.catalog() + "." + entry.qualified();
  }

  @Override
  @SuppressWarnings("deprecation") // Spark 4.2 still asks schema() of tables that do not override columns()
  public StructType schema() {
    return schema;
  }

  @Override
  public Map<String, String> properties() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("provider", "mssql_cdc");
    p.put("capture_instance", entry.captureInstance());
    p.put("capture_instances", entry.instances().stream().map(i -> i.name()).collect(Collectors.joining(",")));
    p.put("key", String.join(",", entry.instances().get(entry.instances().size() - 1).indexColumns()));
    return p;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return EnumSet.of(TableCapability.BATCH_READ, TableCapability.MICRO_BATCH_READ);
  }

  /** The capture instance's unique index columns (of its newest instance), the changes' row id. */
  java.util.List<String> keyColumns() {
    return entry.instances().get(entry.instances().size() - 1).indexColumns();
  }

  String captureInstance() {
    return entry.captureInstance();
  }

  /** The options of {@code format("mssql_cdc")} reading this table's change stream, with {@code given} over the catalog's. */
  Map<String, String> streamOptions(Map<String, String> given) {
    return CatalogOptions.forStream(options.read(entry.captureInstance(), given), given);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap readOptions) {
    Map<String, String> given = readOptions.asCaseSensitiveMap();
    Map<String, String> all = options.read(entry.captureInstance(), given);
    return () -> new CatalogScan(name(), schema, all, CatalogOptions.forStream(all, given));
  }
}
