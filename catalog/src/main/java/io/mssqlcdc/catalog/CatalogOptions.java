package io.mssqlcdc.catalog;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClients;
import io.mssqlcdc.errors.CatalogErrors;
import io.mssqlcdc.options.CdcReaderOptions;
import io.mssqlcdc.options.OptionSpec;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The options of a {@code spark.sql.catalog.<name> = io.mssqlcdc.catalog.CdcCatalog}: the reader
 * options of {@code format("mssql_cdc")} ({@link CdcReaderOptions}, declared there once), less
 * {@code captureInstance}, which each table supplies. They are validated when Spark initializes the
 * catalog, as the source validates them. {@link #toString()} masks the connection string's
 * password.
 */
final class CatalogOptions implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Options whose value shapes a table's schema, which Spark fixes when it loads the table. */
  private static final Set<String> SCHEMA_OPTIONS = Set.of(
      CdcReaderOptions.COLUMNS.name(), CdcReaderOptions.INCLUDE_COMMAND_ID.name(),
      CdcReaderOptions.SNAPSHOT_CHUNKS.name());

  private final String catalog;
  /** Declared name → value, without {@code captureInstance}. */
  private final Map<String, String> given;

  private CatalogOptions(String catalog, Map<String, String> given) {
    this.catalog = catalog;
    this.given = given;
  }

  /** Parses the catalog's options (keys in any case): unknown names and bad values fail here. */
  static CatalogOptions parse(String catalog, Map<String, String> raw) {
    for (String k : raw.keySet()) {
      if (k.equalsIgnoreCase(CdcReaderOptions.CAPTURE_INSTANCE.name())) {
        throw CatalogErrors.optionNotHere(catalog, k, "each table reads its own capture instance (SHOW TABLES lists"
            + " them); remove it from spark.sql.catalog." + catalog + ".*.");
      }
      if (k.equalsIgnoreCase(CdcReaderOptions.SNAPSHOT_CHUNKS.name())) {
        throw CatalogErrors.optionNotHere(catalog, k, "it selects key ranges of one table: read them with"
            + " format(\"mssql_cdc_snapshot\").");
      }
    }
    Map<String, String> withInstance = new LinkedHashMap<>(raw);
    withInstance.put(CdcReaderOptions.CAPTURE_INSTANCE.name(), "catalog_" + catalog);
    // the snapshot reader takes every option (stream-only ones are accepted and ignored): the full check
    Map<String, String> declared = new LinkedHashMap<>(
        CdcReaderOptions.parse(withInstance, CdcReaderOptions.Reader.SNAPSHOT).asMap());
    declared.remove(CdcReaderOptions.CAPTURE_INSTANCE.name());
    return new CatalogOptions(catalog, Map.copyOf(declared));
  }

  String catalog() {
    return catalog;
  }

  /** The reader options of {@code captureInstance}: the catalog's, then {@code overrides} (a read's or a call's). */
  Map<String, String> reader(String captureInstance, Map<String, String> overrides) {
    Map<String, String> o = new LinkedHashMap<>(given);
    for (Map.Entry<String, String> e : overrides.entrySet()) {
      if (e.getKey().equalsIgnoreCase(CdcReaderOptions.CAPTURE_INSTANCE.name())) {
        throw CatalogErrors.optionNotHere(catalog, e.getKey(), "the table names its capture instance ('"
            + captureInstance + "').");
      }
      o.keySet().removeIf(k -> k.equalsIgnoreCase(e.getKey()));
      o.put(e.getKey(), e.getValue());
    }
    o.put(CdcReaderOptions.CAPTURE_INSTANCE.name(), captureInstance);
    return o;
  }

  /** {@link #reader}, for a read of a loaded table: options that would change its schema are refused. */
  Map<String, String> read(String captureInstance, Map<String, String> readOptions) {
    for (String k : readOptions.keySet()) {
      if (SCHEMA_OPTIONS.stream().anyMatch(s -> s.equalsIgnoreCase(k))) {
        throw CatalogErrors.optionNotHere(catalog, k, "it changes the table's columns, which Spark fixed when it"
            + " loaded the table: set it on spark.sql.catalog." + catalog + "." + k + ", or read with"
            + " format(\"mssql_cdc\") / format(\"mssql_cdc_snapshot\").");
      }
    }
    return reader(captureInstance, readOptions);
  }

  /** {@code options} without the options only the snapshot reader takes (the stream refuses those). */
  static Map<String, String> forStream(Map<String, String> options, Map<String, String> explicit) {
    Map<String, String> o = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : options.entrySet()) {
      boolean explicitlyGiven = explicit.keySet().stream().anyMatch(k -> k.equalsIgnoreCase(e.getKey()));
      if (explicitlyGiven || !isSnapshotOnly(e.getKey())) {
        o.put(e.getKey(), e.getValue());
      }
    }
    return o;
  }

  private static boolean isSnapshotOnly(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    for (OptionSpec<?> s : CdcReaderOptions.ALL) {
      boolean named = s.name().toLowerCase(Locale.ROOT).equals(k)
          || s.aliases().stream().anyMatch(a -> a.toLowerCase(Locale.ROOT).equals(k));
      if (named) {
        return s.scope() == OptionSpec.Scope.SNAPSHOT;
      }
    }
    return false;
  }

  /** A client of the catalog's database (the caller closes it). */
  CdcClient open() {
    return CdcClients.open(CdcReaderOptions.parse(reader("catalog_" + catalog, Map.of()),
        CdcReaderOptions.Reader.SNAPSHOT));
  }

  /** The option names given to the catalog, in documentation order of the source's options. */
  List<String> names() {
    return CdcReaderOptions.names().stream().filter(given::containsKey).toList();
  }

  @Override
  public String toString() {
    return "CatalogOptions{" + catalog + ": "
        + CdcReaderOptions.parse(reader("catalog_" + catalog, Map.of()), CdcReaderOptions.Reader.SNAPSHOT) + "}";
  }
}
