package io.mssqlcdc.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The runner's table: a run whose figures have no target (e.g. {@code cases=snapshot}) still prints. */
class ReportTest {
  @Test
  void figuresWithoutATargetPrintTheirTable() {
    Figure f = Figure.compared("2 snapshot", "narrow, 5 columns", "rows/s", List.of(100.0, 120.0, 110.0),
        "Parquet -> noop (batch)", List.of(200.0, 200.0, 200.0), null, "note", Map.of(), Map.of());
    String table = Report.table(List.of(f));
    assertThat(table).contains("2 snapshot", "narrow, 5 columns", "Parquet -> noop (batch)", "0.55");
  }
}
