package io.mssqlcdc.reconcile;

/** Renders the reconcile parts of docs/TABLES.md and docs/OPTIONS.md from the declarations. */
public final class ReconcileDoc {
  private ReconcileDoc() {}

  /** The report table's columns. */
  public static String reportColumns() {
    return ReportTable.doc();
  }

  /** The Reconcile arguments table. */
  public static String arguments() {
    StringBuilder sb = new StringBuilder("| Builder method | Type | Default | Meaning |\n|---|---|---|---|\n");
    for (Reconcile.Argument a : Reconcile.ARGUMENTS) {
      sb.append("| `").append(a.name()).append("` | ").append(a.type()).append(" | ").append(a.defaultText())
          .append(" | ").append(a.doc().replace("|", "\\|").replace("\n", " ")).append(" |\n");
    }
    return sb.toString();
  }
}
