package io.mssqlcdc.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.catalog.procedures.Procedures;
import io.mssqlcdc.sink.GeneratedSections;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Keeps docs/SQL.md's procedure reference in step with the procedures the catalog registers. With
 * {@code -Dmssqlcdc.regenerateDocs=true} it rewrites the generated section instead of failing.
 */
@Tag("spark")
class CatalogDocTest {
  private static final Path DOC = Path.of("..", "docs", "SQL.md");

  @Test
  void sqlPageListsEveryProcedureWithItsParametersAndResult() throws IOException {
    GeneratedSections.check(DOC, "procedures", Procedures.doc(),
        GeneratedSections.regenerate("catalog", "CatalogDocTest"));
  }

  @Test
  void theCatalogRegistersExactlyTheDocumentedProceduresAndParameters() throws IOException {
    CdcCatalog catalog = new CdcCatalog();
    catalog.initialize("cdc", new CaseInsensitiveStringMap(Map.of("backend", "fake", "fakePath", "/nowhere")));
    List<String> registered = Arrays.stream(catalog.listProcedures(new String[] {"system"}))
        .map(Identifier::name).toList();

    String text = Files.readString(DOC, StandardCharsets.UTF_8);
    String section = text.substring(text.indexOf("<!-- BEGIN GENERATED: procedures -->"),
        text.indexOf("<!-- END GENERATED: procedures -->"));
    String[] parts = section.split("\n### `");
    List<String> documented = new ArrayList<>();
    for (int i = 1; i < parts.length; i++) {
      String name = parts[i].substring(0, parts[i].indexOf('`'));
      documented.add(name);
      String params = parts[i].substring(parts[i].indexOf("| Parameter |"), parts[i].indexOf("Result"));
      List<String> documentedParams = new ArrayList<>();
      Matcher m = Pattern.compile("(?m)^\\| `([A-Za-z]+)` \\|").matcher(params);
      while (m.find()) {
        documentedParams.add(m.group(1));
      }
      ProcedureParameter[] bound = catalog.loadProcedure(Identifier.of(new String[] {"system"}, name))
          .bind(new StructType()).parameters();
      assertThat(documentedParams).as("parameters of " + name)
          .containsExactlyElementsOf(Arrays.stream(bound).map(ProcedureParameter::name).toList());
    }
    assertThat(documented).containsExactlyElementsOf(registered);
    assertThat(registered).containsExactly("start_stream", "start_many", "snapshot", "backfill", "apply_changes",
        "apply_history", "finalized_until", "is_final", "await_tracking", "reconcile", "preflight");
  }
}
