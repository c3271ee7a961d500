package io.mssqlcdc.silver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the bench at a tiny size so that it keeps working, and checks the mechanism it measures: the
 * pruned call reads fewer rows than the baseline (a count, not a time). The real run is manual
 * (docs/SILVER.md).
 */
@Tag("slow")
@Tag("spark")
class ApplyChangesBenchSmokeTest {
  @TempDir Path tmp;

  @Test
  void theBenchRunsAndThePrunedMergeScansFewerSilverFiles() {
    String report = ApplyChangesBench.run(SilverFixture.SPARK, tmp, 5_000, 4, 2, 1);
    System.out.println(report);
    assertThat(report).contains("5,000 rows").contains("baseline").contains("pruned").contains("silvers equal");
    Matcher m = Pattern.compile("(baseline|pruned)\\s+([0-9]+) of\\s+([0-9]+) files scanned").matcher(report);
    long[] scanned = new long[2];
    long[] files = new long[2];
    int i = 0;
    while (m.find()) {
      scanned[i] = Long.parseLong(m.group(2));
      files[i++] = Long.parseLong(m.group(3));
    }
    assertThat(i).isEqualTo(2);
    assertThat(files).containsExactly(4, 4);
    assertThat(scanned[0]).as("the baseline scans all of silver: " + report).isEqualTo(4);
    assertThat(scanned[1]).as(report).isLessThan(4);
  }
}
