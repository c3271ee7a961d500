package io.mssqlcdc.reconcile;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Keeps the reconcile parts of docs/TABLES.md and docs/OPTIONS.md in step with the code. With
 * {@code -Dmssqlcdc.regenerateDocs=true} it rewrites them instead of failing.
 */
class ReconcileDocTest {
  @Test
  void tablesPageListsTheReportColumns() throws IOException {
    check(Path.of("..", "docs", "TABLES.md"), "reconcile-columns", ReconcileDoc.reportColumns());
  }

  @Test
  void optionsPageListsTheReconcileArguments() throws IOException {
    check(Path.of("..", "docs", "OPTIONS.md"), "reconcile-arguments", ReconcileDoc.arguments());
  }

  private static void check(Path doc, String name, String expected) throws IOException {
    io.mssqlcdc.sink.GeneratedSections.check(doc, name, expected,
        io.mssqlcdc.sink.GeneratedSections.regenerate("reconcile", "ReconcileDocTest"));
  }
}
