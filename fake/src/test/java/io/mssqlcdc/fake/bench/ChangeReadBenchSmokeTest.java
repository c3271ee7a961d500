package io.mssqlcdc.fake.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the bench at a tiny size so it keeps working; the real run is manual (docs/FAKE.md). */
class ChangeReadBenchSmokeTest {
  @TempDir
  Path dir;

  @Test
  void theBenchRunsAndReportsEveryVariant() {
    String report = ChangeReadBench.run(dir, 2_000, 1);
    assertThat(report).contains("2,000 rows").contains("memory").contains("convert").contains("fake+convert");
  }
}
