package io.mssqlcdc.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The generated sections of the docs ({@code <!-- BEGIN GENERATED: name -->} ... {@code END}):
 * a doc test checks a section equals what the code generates, or, with
 * {@code -Dmssqlcdc.regenerateDocs=true}, rewrites it. Shared by the sink, silver and reconcile doc tests.
 */
public final class GeneratedSections {
  private GeneratedSections() {}

  /**
   * Checks (or regenerates) section {@code name} of {@code doc}; {@code regenerate} is the
   * command the failure message tells the reader to run.
   */
  public static void check(Path doc, String name, String expected, String regenerate) throws IOException {
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
        .as(doc + " section " + name + " is stale: regenerate it with " + regenerate)
        .isEqualTo(expected);
  }

  /** The regenerate command for doc test {@code testClass} of {@code module}. */
  public static String regenerate(String module, String testClass) {
    return "mvn -B -ntp -pl " + module + " -am test -Dtest=" + testClass
        + " -Dsurefire.failIfNoSpecifiedTests=false -Dmssqlcdc.regenerateDocs=true";
  }
}
