package io.mssqlcdc.sink;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Keeps the generated parts of docs/TABLES.md and docs/OPTIONS.md in step with the code. With
 * {@code -Dmssqlcdc.regenerateDocs=true} it rewrites them instead of failing.
 */
class TablesDocTest {

  @Test
  void tablesPageMatchesTheCode() throws IOException {
    for (Map.Entry<String, String> s : TablesDoc.tablesSections().entrySet()) {
      check(Path.of("..", "docs", "TABLES.md"), s.getKey(), s.getValue());
    }
  }

  @Test
  void optionsPageListsThePipelineArguments() throws IOException {
    for (Map.Entry<String, String> s : TablesDoc.optionsSections().entrySet()) {
      check(Path.of("..", "docs", "OPTIONS.md"), s.getKey(), s.getValue());
    }
  }

  private static void check(Path doc, String name, String expected) throws IOException {
    io.mssqlcdc.sink.GeneratedSections.check(doc, name, expected,
        io.mssqlcdc.sink.GeneratedSections.regenerate("sink", "TablesDocTest"));
  }
}
