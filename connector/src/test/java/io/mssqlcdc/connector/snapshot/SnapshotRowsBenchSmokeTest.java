package io.mssqlcdc.connector.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Runs the bench at a tiny size and checks what it computes: {@code SnapshotRows} builds every
 * row of the cursor, in order, with its id. The real run is manual (docs/SNAPSHOT.md).
 */
@Tag("spark")
class SnapshotRowsBenchSmokeTest {
  @Test
  void bothVariantsSeeEveryRowInOrder() {
    SnapshotRowsBench.Result r = SnapshotRowsBench.run(1_000, 1);
    assertThat(r.report()).contains("1,000 rows").contains("cursor ").contains("rows ").contains("heap in use after GC");
    long expected = 0; // the synthetic cursor's ids are 0 .. 999
    for (int id = 0; id < 1_000; id++) {
      expected = 31 * expected + id;
    }
    assertThat(r.cursorChecksums()).containsExactly(expected);
    assertThat(r.rowsChecksums()).containsExactly(expected);
  }
}
