package io.mssqlcdc.silver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the bench at a tiny size so that it keeps working, and checks the mechanism it measures: the
 * pruned call reads fewer rows than the baseline (a count, not a time). The real run is manual
 * (docs/SILVER.md).
 */
class ApplyChangesBenchSmokeTest {
  @TempDir Path tmp;

  @Test
  void theBenchRunsAndThePrunedMergeScansFewerSilverFiles() {
    String report = ApplyChangesBench.run(SilverFixture.SPARK, tmp, 5_000, 4, 2, 1);
    System.out.println(report);
    assertThat(report).contains("5,000 rows").contains("baseline").contains("pruned").contains("silvers equal");
    Matcher m = Pattern.compile("(baseline|pruned)\\s+([0-9]+) files scanned").matcher(report);
    long[] read = new long[2];
    int i = 0;
    while (m.find()) {
      read[i++] = Long.parseLong(m.group(2).replace(",", ""));
    }
    assertThat(i).isEqualTo(2);
    assertThat(read[0]).as(report).isEqualTo(4);
    assertThat(read[1]).as(report).isLessThan(read[0]);
  }
}
