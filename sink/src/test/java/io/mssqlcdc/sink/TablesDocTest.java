package io.mssqlcdc.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
        .as(doc + " section " + name + " is stale: regenerate it with mvn -B -ntp -pl sink -am test"
            + " -Dtest=TablesDocTest -Dsurefire.failIfNoSpecifiedTests=false -Dmssqlcdc.regenerateDocs=true")
        .isEqualTo(expected);
  }
}
