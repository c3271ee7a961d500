package io.mssqlcdc.fake.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the bench at a tiny size and checks what it computes: every round of the fake's variants
 * reads the values the in-memory baselines hold. The real run is manual (docs/FAKE.md).
 */
class ChangeReadBenchSmokeTest {
  @TempDir
  Path dir;

  @Test
  void theFakeReadsTheValuesTheBaselinesHold() {
    ChangeReadBench.Result r = ChangeReadBench.run(dir, 2_000, 1);
    assertThat(r.report()).contains("2,000 rows").contains("memory").contains("convert").contains("fake+convert");
    Map<String, List<Long>> sums = r.checksums();
    assertThat(sums.get("memory")).as("2 warm-up rounds + 1").hasSize(3).containsOnly(2_000L * 6);
    assertThat(sums.get("fake")).as("no value lost or NULL").hasSize(3).containsOnly(2_000L * 6);
    long converted = sums.get("convert").get(0);
    assertThat(sums.get("convert")).containsOnly(converted);
    assertThat(sums.get("fake+convert")).as("the same values, converted").hasSize(3).containsOnly(converted);
  }
}
