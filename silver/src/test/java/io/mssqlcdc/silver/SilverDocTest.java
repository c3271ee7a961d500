package io.mssqlcdc.silver;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Keeps the silver parts of docs/TABLES.md and docs/OPTIONS.md in step with the code. With
 * {@code -Dmssqlcdc.regenerateDocs=true} it rewrites them instead of failing.
 */
class SilverDocTest {
  @Test
  void tablesPageListsTheSilverColumns() throws IOException {
    check(Path.of("..", "docs", "TABLES.md"), "silver-columns", SilverDoc.silverColumns());
  }

  @Test
  void optionsPageListsTheApplyChangesArguments() throws IOException {
    check(Path.of("..", "docs", "OPTIONS.md"), "silver-arguments", SilverDoc.arguments());
  }

  @Test
  void tablesPageListsTheHistoryColumns() throws IOException {
    check(Path.of("..", "docs", "TABLES.md"), "history-columns", SilverDoc.historyColumns());
  }

  @Test
  void optionsPageListsTheApplyHistoryArguments() throws IOException {
    check(Path.of("..", "docs", "OPTIONS.md"), "history-arguments", SilverDoc.historyArguments());
  }

  private static void check(Path doc, String name, String expected) throws IOException {
    io.mssqlcdc.sink.GeneratedSections.check(doc, name, expected,
        io.mssqlcdc.sink.GeneratedSections.regenerate("silver", "SilverDocTest"));
  }
}
