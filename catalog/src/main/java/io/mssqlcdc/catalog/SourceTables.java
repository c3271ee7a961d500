package io.mssqlcdc.catalog;

import io.mssqlcdc.catalog.procedures.CatalogContext;
import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.errors.CatalogErrors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The CDC-enabled tables of the catalog's database, as {@link CdcClient#allCaptureInstances} lists
 * them: a table per tracked source table, its namespace its schema. Names are matched exactly
 * first, then ignoring case (SQL Server's default collations ignore case).
 */
final class SourceTables {
  /** One source table and its capture instances (oldest first). */
  record Entry(String schema, String table, List<CaptureInstance> instances) {
    /**
     * The capture instance the table is read through: its default name {@code <schema>_<table>}
     * when it has it, else the oldest. The stream follows the table's newer instance on its own.
     */
    String captureInstance() {
      String dflt = schema + "_" + table;
      return instances.stream().filter(i -> i.name().equalsIgnoreCase(dflt)).findFirst()
          .orElse(instances.get(0)).name();
    }

    /** {@code schema.table}. */
    String qualified() {
      return schema + "." + table;
    }
  }

  private final List<Entry> entries;

  private SourceTables(List<Entry> entries) {
    this.entries = entries;
  }

  /** Lists the tables through {@code client} (one call). */
  static SourceTables list(CdcClient client) {
    Map<String, List<CaptureInstance>> byTable = new LinkedHashMap<>();
    for (CaptureInstance i : client.allCaptureInstances()) {
      byTable.computeIfAbsent(i.sourceSchema() + "\u0000" + i.sourceTable(), k -> new ArrayList<>()).add(i);
    }
    List<Entry> entries = new ArrayList<>();
    for (List<CaptureInstance> l : byTable.values()) {
      entries.add(new Entry(l.get(0).sourceSchema(), l.get(0).sourceTable(), List.copyOf(l)));
    }
    return new SourceTables(List.copyOf(entries));
  }

  List<Entry> all() {
    return entries;
  }

  /** The schemas with a CDC-enabled table, in listing order, each once. */
  List<String> schemas() {
    List<String> out = new ArrayList<>();
    for (Entry e : entries) {
      if (out.stream().noneMatch(s -> s.equals(e.schema()))) {
        out.add(e.schema());
      }
    }
    return out;
  }

  /** The schema as listed, matched exactly then ignoring case. */
  Optional<String> schema(String name) {
    List<String> schemas = schemas();
    return schemas.stream().filter(s -> s.equals(name)).findFirst()
        .or(() -> schemas.stream().filter(s -> s.equalsIgnoreCase(name)).findFirst());
  }

  List<Entry> in(String schema) {
    return entries.stream().filter(e -> e.schema().equals(schema)).toList();
  }

  /** The table {@code schema.table}, matched exactly then ignoring case. */
  Optional<Entry> find(String schema, String table) {
    return entries.stream().filter(e -> e.schema().equals(schema) && e.table().equals(table)).findFirst()
        .or(() -> {
          List<Entry> loose = entries.stream()
              .filter(e -> e.schema().equalsIgnoreCase(schema) && e.table().equalsIgnoreCase(table)).toList();
          return loose.size() == 1 ? Optional.of(loose.get(0)) : Optional.empty();
        });
  }

  /**
   * A procedure's {@code table} argument, {@code schema.table} as SHOW TABLES lists it.
   *
   * @throws io.mssqlcdc.errors.CdcConfigException naming the catalog's tables when it is none of them
   */
  Entry require(String catalog, String qualified) {
    if (qualified != null) {
      int dot = qualified.indexOf('.');
      if (dot > 0 && dot < qualified.length() - 1) {
        Optional<Entry> e = find(qualified.substring(0, dot).strip(), qualified.substring(dot + 1).strip());
        if (e.isPresent()) {
          return e.get();
        }
      }
    }
    throw CatalogErrors.tableNotFound(catalog, String.valueOf(qualified), entries.stream().map(Entry::qualified)
        .toList());
  }

  /**
   * A procedure's {@code table} argument resolved to the table and the capture instance to read:
   * {@code schema.table} reads the table's own ({@link Entry#captureInstance()}); a name without a
   * dot is one of the tables' capture instances (matched exactly, then ignoring case), read as
   * given, as a reader's {@code captureInstance} option would (what mssql_cdc's Python builders
   * pass over Spark Connect).
   *
   * @throws io.mssqlcdc.errors.CdcConfigException naming the catalog's tables when it is neither
   */
  CatalogContext.ResolvedTable resolve(String catalog, String argument) {
    if (argument != null && argument.indexOf('.') < 0) {
      String name = argument.strip();
      for (boolean exact : new boolean[] {true, false}) {
        for (Entry e : entries) {
          for (CaptureInstance i : e.instances()) {
            if (exact ? i.name().equals(name) : i.name().equalsIgnoreCase(name)) {
              return new CatalogContext.ResolvedTable(e.qualified(), i.name());
            }
          }
        }
      }
    }
    Entry e = require(catalog, argument);
    return new CatalogContext.ResolvedTable(e.qualified(), e.captureInstance());
  }
}
