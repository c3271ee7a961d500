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
    return io.mssqlcdc.sink.TablesDoc.arguments(Reconcile.ARGUMENTS);
  }

}
