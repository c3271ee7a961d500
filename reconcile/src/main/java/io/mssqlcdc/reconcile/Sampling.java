package io.mssqlcdc.reconcile;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Which buckets or key ranges reconcile's tier 2 reads (reference-behaviour §17 step 8): a seeded
 * sample of the matching ones, and for a whole-table MISMATCH (any key but one integer or date
 * column) every range up to {@link #MISMATCH_RANGES}. Plain logic: the same seed on the same
 * candidates chooses the same ones.
 */
final class Sampling {
  /** The most key ranges a whole-table MISMATCH reads beyond the sample's share (issue 26 item 6). */
  static final int MISMATCH_RANGES = 10;

  private final double sample;
  private final long seed;

  Sampling(double sample, long seed) {
    this.sample = sample;
    this.seed = seed;
  }

  /**
   * The key ranges a whole-table MISMATCH (any key but one integer or date column) reads: every
   * range up to {@value #MISMATCH_RANGES}, beyond that the sample's share but at least
   * {@value #MISMATCH_RANGES}, chosen by the seeded RNG; none when {@code sample} is 0.
   */
  List<Integer> mismatchRanges(List<Integer> all) {
    if (sample <= 0) {
      return List.of();
    }
    if (all.size() <= MISMATCH_RANGES) {
      return all;
    }
    int n = (int) Math.max(MISMATCH_RANGES, Math.ceil(sample * all.size()));
    List<Integer> copy = new ArrayList<>(all);
    Collections.shuffle(copy, new Random(seed));
    List<Integer> out = new ArrayList<>(copy.subList(0, Math.min(n, all.size())));
    Collections.sort(out);
    return out;
  }

  /** {@code ceil(sample * n)} of {@code candidates} chosen by the seeded RNG (none when sample is 0). */
  List<Integer> sampled(List<Integer> candidates) {
    if (sample <= 0 || candidates.isEmpty()) {
      return List.of();
    }
    int n = (int) Math.min(candidates.size(), Math.ceil(sample * candidates.size()));
    List<Integer> copy = new ArrayList<>(candidates);
    Collections.shuffle(copy, new Random(seed));
    List<Integer> out = new ArrayList<>(copy.subList(0, n));
    Collections.sort(out);
    return out;
  }
}
