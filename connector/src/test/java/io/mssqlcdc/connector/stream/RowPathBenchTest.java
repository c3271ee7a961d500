package io.mssqlcdc.connector.stream;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Keeps the bench runnable; performance numbers come from running it with N = 1,000,000. */
class RowPathBenchTest {
  @Test
  void benchRunsAndReportsARatio() {
    RowPathBench.Result r = RowPathBench.run(Integer.getInteger("bench.rows", 20_000), Integer.getInteger("bench.rounds", 2));
    System.out.println("RowPathBench " + r);
    assertThat(r.ratio()).isPositive();
  }
}
