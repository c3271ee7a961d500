package io.mssqlcdc.connector.stream;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Keeps the bench runnable; the numbers in docs/FAKE.md come from running it with 500,000 rows. */
class FakeShareBenchTest {
  @Test
  void benchRunsAndReportsTheFakesShare() throws Exception {
    FakeShareBench.Result r = FakeShareBench.run(Integer.getInteger("bench.rows", 2_000), Integer.getInteger("bench.rounds", 2));
    System.out.println("FakeShareBench " + r);
    assertThat(r.share()).isPositive();
  }
}
