package io.mssqlcdc.catalog;

import io.mssqlcdc.catalog.procedures.CatalogContext;
import io.mssqlcdc.catalog.procedures.CdcProcedure;
import io.mssqlcdc.catalog.procedures.Procedures;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.errors.CatalogErrors;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.ProcedureCatalog;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The Spark-line-independent part of the {@code mssql_cdc} catalog; the public class is
 * {@code CdcCatalog}, one per Spark line (src/main/spark-4.x): 4.2's adds the change-data API
 * ({@code loadChangelog}, the {@code CHANGES} clause), which 4.1 lacks.
 *
 * <p>The {@code mssql_cdc} catalog (docs/SQL.md): {@code spark.sql.catalog.cdc =
 * io.mssqlcdc.catalog.CdcCatalog}, with the source's connection options under
 * {@code spark.sql.catalog.cdc.*}. Namespaces are the SQL Server schemas holding CDC-enabled
 * tables; tables are those tables ({@link CatalogTable}: {@code SELECT} reads the snapshot,
 * {@code readStream.table} the change stream); {@code cdc.system.*} are the pipeline's operations
 * as {@code CALL} procedures ({@link Procedures}). Read-only: DDL fails naming the server-side
 * procedure that does it.
 */
public abstract class CdcCatalogBase implements TableCatalog, SupportsNamespaces, ProcedureCatalog {
  private String name;
  private CatalogOptions options;

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    this.name = name;
    this.options = CatalogOptions.parse(name, options.asCaseSensitiveMap());
  }

  @Override
  public String name() {
    return name;
  }

  private SourceTables tables() {
    try (CdcClient client = options.open()) {
      return SourceTables.list(client);
    }
  }

  // ---- namespaces: SQL Server schemas -------------------------------------------------------

  @Override
  public String[][] listNamespaces() {
    return tables().schemas().stream().map(s -> new String[] {s}).toArray(String[][]::new);
  }

  @Override
  public String[][] listNamespaces(String[] namespace) throws NoSuchNamespaceException {
    if (namespace.length == 0) {
      return listNamespaces();
    }
    requireSchema(tables(), namespace);
    return new String[0][];
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(String[] namespace) throws NoSuchNamespaceException {
    requireSchema(tables(), namespace);
    return Map.of();
  }

  @Override
  public void createNamespace(String[] namespace, Map<String, String> metadata) {
    throw CatalogErrors.readOnly(name, "create namespace " + String.join(".", namespace));
  }

  @Override
  public void alterNamespace(String[] namespace, NamespaceChange... changes) {
    throw CatalogErrors.readOnly(name, "alter namespace " + String.join(".", namespace));
  }

  @Override
  public boolean dropNamespace(String[] namespace, boolean cascade) {
    throw CatalogErrors.readOnly(name, "drop namespace " + String.join(".", namespace));
  }

  private static String requireSchema(SourceTables t, String[] namespace) throws NoSuchNamespaceException {
    Optional<String> s = namespace.length == 1 ? t.schema(namespace[0]) : Optional.empty();
    if (s.isEmpty()) {
      throw new NoSuchNamespaceException(namespace);
    }
    return s.get();
  }

  // ---- tables: CDC-enabled source tables ----------------------------------------------------

  @Override
  public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
    SourceTables t = tables();
    String schema = requireSchema(t, namespace);
    return t.in(schema).stream().map(e -> Identifier.of(new String[] {e.schema()}, e.table()))
        .toArray(Identifier[]::new);
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    return CatalogTable.load(options, entry(ident));
  }

  /** The CDC-enabled table {@code ident} names. */
  final SourceTables.Entry entry(Identifier ident) throws NoSuchTableException {
    if (ident.namespace().length != 1) {
      throw new NoSuchTableException(ident);
    }
    Optional<SourceTables.Entry> e = tables().find(ident.namespace()[0], ident.name());
    if (e.isEmpty()) {
      throw new NoSuchTableException(ident);
    }
    return e.get();
  }

  final CatalogOptions options() {
    return options;
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) {
    throw CatalogErrors.readOnly(name, "alter table " + ident);
  }

  @Override
  public boolean dropTable(Identifier ident) {
    throw CatalogErrors.readOnly(name, "drop table " + ident);
  }

  @Override
  public void renameTable(Identifier oldIdent, Identifier newIdent) {
    throw CatalogErrors.readOnly(name, "rename table " + oldIdent);
  }

  // ---- procedures: cdc.system.* ---------------------------------------------------------------

  @Override
  public UnboundProcedure loadProcedure(Identifier ident) {
    boolean system = ident.namespace().length == 1 && ident.namespace()[0].equalsIgnoreCase(Procedures.NAMESPACE);
    Optional<CdcProcedure> p = system ? Procedures.find(ident.name(), context()) : Optional.empty();
    return p.orElseThrow(() -> CatalogErrors.procedureNotFound(name,
        String.join(".", Arrays.asList(ident.namespace())) + (ident.namespace().length > 0 ? "." : "") + ident.name(),
        Procedures.names()));
  }

  @Override
  public Identifier[] listProcedures(String[] namespace) {
    if (namespace.length == 1 && namespace[0].equalsIgnoreCase(Procedures.NAMESPACE)) {
      List<String> names = Procedures.names();
      return names.stream().map(n -> Identifier.of(new String[] {Procedures.NAMESPACE}, n)).toArray(Identifier[]::new);
    }
    return new Identifier[0];
  }

  private CatalogContext context() {
    return new CatalogContext(name, (ci, overrides) -> options.reader(ci, overrides),
        argument -> tables().resolve(name, argument));
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "{" + name + "}";
  }
}
