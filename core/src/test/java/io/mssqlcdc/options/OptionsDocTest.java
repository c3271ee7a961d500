package io.mssqlcdc.options;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Keeps docs/OPTIONS.md in step with the option declarations. With
 * {@code -Dmssqlcdc.regenerateDocs=true} it rewrites the generated section instead of failing.
 */
class OptionsDocTest {
  private static final String BEGIN = "<!-- BEGIN GENERATED: reader-options -->\n";
  private static final String END = "<!-- END GENERATED: reader-options -->";

  @Test
  void optionsPageMatchesTheDeclarations() throws IOException {
    Path doc = Path.of("..", "docs", "OPTIONS.md");
    String text = Files.readString(doc, StandardCharsets.UTF_8);
    int b = text.indexOf(BEGIN);
    int e = text.indexOf(END);
    assertThat(b).as("docs/OPTIONS.md has the generated-section markers").isGreaterThanOrEqualTo(0);
    assertThat(e).isGreaterThan(b);
    String current = text.substring(b + BEGIN.length(), e);
    String expected = OptionsDoc.readerOptionsTable();
    if (Boolean.getBoolean("mssqlcdc.regenerateDocs")) {
      Files.writeString(doc, text.substring(0, b + BEGIN.length()) + expected + text.substring(e), StandardCharsets.UTF_8);
      return;
    }
    assertThat(current)
        .as("docs/OPTIONS.md is stale: regenerate it with"
            + " mvn -B -ntp -pl core test -Dtest=OptionsDocTest -Dmssqlcdc.regenerateDocs=true")
        .isEqualTo(expected);
  }

  @Test
  void everyOptionHasADocAndADefault() {
    for (OptionSpec<?> s : CdcReaderOptions.ALL) {
      assertThat(s.doc()).as(s.name()).isNotBlank();
      assertThat(s.defaultText()).as(s.name()).isNotBlank();
      assertThat(s.type()).as(s.name()).isNotBlank();
    }
  }
}
