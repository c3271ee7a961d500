package io.mssqlcdc.catalog.procedures;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Every procedure of the catalog, in documentation order: {@code CALL <catalog>.system.<name>(...)}.
 * docs/SQL.md's procedure reference is generated from these declarations ({@link #doc()}) and a test
 * keeps it in step.
 */
public final class Procedures {
  /** The namespace of the procedures: {@code CALL cdc.system.start_stream(...)}. */
  public static final String NAMESPACE = "system";

  private static final List<Function<CatalogContext, CdcProcedure>> ALL = List.of(
      StartStream::new, StartMany::new, SnapshotProcedure::new, BackfillProcedure::new, ApplyChangesProcedure::new,
      ApplyHistoryProcedure::new,
      FinalizedUntil::new, IsFinal::new, AwaitTracking::new, ReconcileProcedure::new, PreflightProcedure::new);

  private Procedures() {}

  /** The procedures, for {@code context}. */
  public static List<CdcProcedure> all(CatalogContext context) {
    return ALL.stream().map(f -> f.apply(context)).toList();
  }

  /** The procedure named {@code name} (ignoring case). */
  public static Optional<CdcProcedure> find(String name, CatalogContext context) {
    return all(context).stream().filter(p -> p.name().equalsIgnoreCase(name)).findFirst();
  }

  /** The procedure names, in documentation order. */
  public static List<String> names() {
    return all(null).stream().map(CdcProcedure::name).toList();
  }

  /** The procedure reference of docs/SQL.md (Markdown). */
  public static String doc() {
    StringBuilder sb = new StringBuilder();
    for (CdcProcedure p : all(null)) {
      sb.append("### `").append(p.name()).append("`\n\n").append(p.description()).append("\n\n");
      sb.append("| Parameter | Type | Default | Meaning |\n|---|---|---|---|\n");
      for (Param a : Param.check(p.params())) {
        sb.append("| `").append(a.name()).append("` | `").append(a.type().sql()).append("` | ").append(a.defaultDoc())
            .append(" | ").append(a.doc().replace("|", "\\|")).append(" |\n");
      }
      sb.append("\nResult, one row").append(p.name().equals("start_many") ? " per table" : "").append(":\n\n");
      sb.append("| Column | Type | Meaning |\n|---|---|---|\n");
      for (CdcProcedure.Column c : p.columns()) {
        sb.append("| `").append(c.name()).append("` | `").append(c.type().sql()).append("` | ")
            .append(c.doc().replace("|", "\\|")).append(" |\n");
      }
      sb.append('\n');
    }
    return sb.toString();
  }
}
