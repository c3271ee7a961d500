package io.mssqlcdc.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Which buckets or key ranges tier 2 reads: seeded, bounded, none at sample 0. */
class SamplingTest {
  private static List<Integer> upTo(int n) {
    return IntStream.range(0, n).boxed().toList();
  }

  @Test
  void aSampleIsTheCeilingOfItsShareChosenTheSameWayForTheSameSeed() {
    Sampling s = new Sampling(0.25, 7);
    List<Integer> first = s.sampled(upTo(10));
    assertThat(first).hasSize(3).isSorted().isSubsetOf(upTo(10));
    assertThat(new Sampling(0.25, 7).sampled(upTo(10))).isEqualTo(first);
    assertThat(new Sampling(0, 7).sampled(upTo(10))).isEmpty();
    assertThat(new Sampling(1.0, 7).sampled(upTo(10))).isEqualTo(upTo(10));
  }

  @Test
  void aMismatchReadsEveryRangeUpToTheCapThenTheLargerOfTheCapAndTheShare() {
    assertThat(new Sampling(0.01, 7).mismatchRanges(upTo(Sampling.MISMATCH_RANGES))).isEqualTo(upTo(10));
    assertThat(new Sampling(0.01, 7).mismatchRanges(upTo(40))).hasSize(Sampling.MISMATCH_RANGES).isSorted();
    assertThat(new Sampling(0.5, 7).mismatchRanges(upTo(40))).hasSize(20);
    assertThat(new Sampling(0, 7).mismatchRanges(upTo(4))).as("sample 0 reads none, as the reference").isEmpty();
  }
}
