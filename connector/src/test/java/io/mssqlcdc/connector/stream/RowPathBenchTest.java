package io.mssqlcdc.connector.stream;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Keeps the bench runnable and checks what it computes: both paths hand Spark the same values of
 * every row. Performance numbers come from running it with N = 1,000,000 (docs/SOURCE.md).
 */
@Tag("spark")
class RowPathBenchTest {
  @Test
  void bothPathsHandSparkTheSameRows() throws Exception {
    int n = Integer.getInteger("bench.rows", 20_000);
    RowPathBench.Result r = RowPathBench.run(n, Integer.getInteger("bench.rounds", 2));
    System.out.println("RowPathBench " + r);
    long expected = 0; // per row written, in commit order: id + qty (= id) + UTF-8 bytes of "customer-<id>"
    for (int k = 0; k < n; k++) {
      expected = 31 * expected + 2L * k + ("customer-" + k).length();
    }
    assertThat(r.rowChecksum()).as("row-based").isEqualTo(expected);
    assertThat(r.columnarChecksum()).as("columnar").isEqualTo(expected);
  }
}
