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
   * counted by the source in one statement ({@link CdcClient#commitsBetween}); a result above
   * {@code cap} means "more than cap". An idle stream ({@code upTo} at or before {@code after}) has
   * none, and asks the source nothing.
   */
  static long pendingCommits(CdcClient client, Lsn after, Lsn upTo, long cap) {
    if (!upTo.isAfter(after)) {
      return 0;
    }
    return client.commitsBetween(after, upTo, (int) Math.min(Integer.MAX_VALUE, cap + 1));
  }
}
