package io.mssqlcdc.connector.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Runs the bench at a tiny size so that it keeps working; the real run is manual (docs/SNAPSHOT.md). */
class SnapshotRowsBenchSmokeTest {
  @Test
  void theBenchRunsAndReportsEveryVariant() {
    assertThat(SnapshotRowsBench.run(1_000, 1))
        .contains("1,000 rows").contains("cursor ").contains("rows ").contains("heap in use after GC");
  }
}
