package io.mssqlcdc.standin.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@link JdbcReadBench} small so it keeps working; {@code -Dbench.rows=200000 -Dbench.rounds=5}
 * makes it the real run (docs/SQLSERVER.md).
 */
class JdbcReadBenchSmokeTest {
  @TempDir Path dir;

  @Test
  void theBenchReadsEveryRowBothWaysAndReportsTheRatio() {
    int rows = Integer.getInteger("bench.rows", 2_000);
    String report = JdbcReadBench.run(dir, rows, Integer.getInteger("bench.rounds", 1));
    System.out.println(report);
    assertThat(report).contains(String.format(java.util.Locale.ROOT, "%,d rows", rows)).contains("fake").contains("jdbc")
        .contains("of fake");
  }
}
