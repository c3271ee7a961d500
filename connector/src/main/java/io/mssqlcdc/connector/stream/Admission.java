package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.lsn.Lsn;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Where the next micro-batch ends (reference-behaviour §5.2). The end is always a
 * {@code cdc.lsn_time_mapping} entry (a commit or an idle entry), so a commit is never split:
 * {@code upper} is {@code fn_cdc_get_max_lsn} (an entry) or the AvailableNow target (an earlier
 * max), and a {@code maxCommitsPerBatch} cap is the n-th entry after the start. At least one
 * entry is always admitted because n ≥ 1.
 */
final class Admission {
  private Admission() {}

  /**
   * The end LSN of the batch after {@code start}: {@code start} itself when nothing is new.
   *
   * @param upper the largest LSN the batch may reach (max_lsn, or the AvailableNow target)
   * @param maxCommits {@code maxCommitsPerBatch}, empty for no limit
   */
  static Lsn end(CdcClient client, Lsn start, Lsn upper, OptionalInt maxCommits) {
    if (!upper.isAfter(start)) {
      return start;
    }
    if (maxCommits.isPresent()) {
      Optional<Lsn> nth = client.nthCommitAfter(start, maxCommits.getAsInt());
      if (nth.isPresent() && nth.get().isBefore(upper) && nth.get().isAfter(start)) {
        return nth.get();
      }
    }
    return upper;
  }

  /**
   * Entries of {@code cdc.lsn_time_mapping} in {@code (after, upTo]} ({@code upTo} an entry),
   * counted with O(log n) {@link CdcClient#nthCommitAfter} calls; {@code cap} when there are at
   * least that many.
   */
  static long pendingCommits(CdcClient client, Lsn after, Lsn upTo, long cap) {
    if (!upTo.isAfter(after)) {
      return 0;
    }
    long hi = 1;
    while (true) {
      Optional<Lsn> e = client.nthCommitAfter(after, (int) hi);
      if (e.isEmpty()) {
        return 0;
      }
      if (!e.get().isBefore(upTo)) {
        break;
      }
      if (hi >= cap) {
        return cap;
      }
      hi = Math.min(cap, hi * 2);
    }
    long lo = hi / 2 + 1; // smallest n with nth(n) >= upTo lies in [lo, hi]
    while (lo < hi) {
      long mid = (lo + hi) >>> 1;
      if (client.nthCommitAfter(after, (int) mid).orElseThrow().isBefore(upTo)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
