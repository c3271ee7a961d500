package io.mssqlcdc.connector.stream;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Keeps the bench runnable and checks what it computes: the query counts every row of the one
 * transaction. The memory figure in docs/SOURCE.md comes from running it with 1,000,000 rows of
 * 1 KB; a unit test asserts no memory bound (that depends on the JVM, its collector and the load).
 */
@Tag("spark")
class BigTransactionBenchTest {
  @Test
  void theQueryCountsEveryRowOfTheTransaction() throws Exception {
    int n = Integer.getInteger("bench.rows", 20_000);
    BigTransactionBench.Result r = BigTransactionBench.run(n, 100);
    System.out.println(r);
    assertThat(r.rowsCounted()).isEqualTo(n);
  }
}
