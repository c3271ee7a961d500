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

  @Test
  void theJobsColumnShowsTheCandidateAndTheBaselineAndAnUnjudgedTargetHasNoVerdict() {
    Figure f = Figure.compared("3 bronze", "narrow, 5 columns", "rows/s", List.of(90.0), "Delta's streaming sink",
        List.of(100.0), 0.9, "note", Map.of(), Map.of()).withJobs("4.0+1.0", "4.0");
    Figure limit = Figure.compared("1 source", "narrow, 5 columns", "rows/s", List.of(50.0), "Parquet -> noop",
        List.of(100.0), null, "note", Map.of(), Map.of()).withTarget("(>= 1.00 at scale 10)", null);
    String[] lines = Report.table(List.of(f, limit)).split(System.lineSeparator());
    assertThat(lines[0]).contains("  jobs  ");
    assertThat(lines[2]).contains("0.90", "4.0+1.0 / 4.0", ">= 0.90", "met");
    assertThat(lines[3]).contains("0.50", "(>= 1.00 at scale 10)").doesNotContain("met");
    assertThat(f.details()).containsEntry("jobs", "4.0+1.0").containsEntry("baselineJobs", "4.0");
  }
}
