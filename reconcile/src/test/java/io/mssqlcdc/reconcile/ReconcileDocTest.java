package io.mssqlcdc.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
    String begin = "<!-- BEGIN GENERATED: " + name + " -->\n";
    String end = "<!-- END GENERATED: " + name + " -->";
    String text = Files.readString(doc, StandardCharsets.UTF_8);
    int b = text.indexOf(begin);
    int e = text.indexOf(end);
    assertThat(b).as(doc + " has the markers of " + name).isGreaterThanOrEqualTo(0);
    assertThat(e).isGreaterThan(b);
    if (Boolean.getBoolean("mssqlcdc.regenerateDocs")) {
      Files.writeString(doc, text.substring(0, b + begin.length()) + expected + text.substring(e),
          StandardCharsets.UTF_8);
      return;
    }
    assertThat(text.substring(b + begin.length(), e))
        .as(doc + " section " + name + " is stale: regenerate it with mvn -B -ntp -pl reconcile -am test"
            + " -Dtest=ReconcileDocTest -Dsurefire.failIfNoSpecifiedTests=false -Dmssqlcdc.regenerateDocs=true")
        .isEqualTo(expected);
  }
}
