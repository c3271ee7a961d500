package io.mssqlcdc.connector.stream;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Keeps the bench runnable and checks what it computes: both variants read every row written, in
 * commit order. The numbers in docs/FAKE.md come from running it with 500,000 rows.
 */
@Tag("spark")
class FakeShareBenchTest {
  @Test
  void bothVariantsReadEveryRowInOrder() throws Exception {
    int n = Integer.getInteger("bench.rows", 2_000);
    FakeShareBench.Result r = FakeShareBench.run(n, Integer.getInteger("bench.rounds", 2));
    System.out.println("FakeShareBench " + r);
    long expected = 0; // ids 0 .. n-1, in the order they were committed
    for (long id = 0; id < n; id++) {
      expected = 31 * expected + id;
    }
    assertThat(r.fakeChecksum()).as("fake").isEqualTo(expected);
    assertThat(r.fullChecksum()).as("fake+connector").isEqualTo(expected);
  }
}
