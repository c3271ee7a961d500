package io.mssqlcdc.finalization;

import io.mssqlcdc.connector.CdcOffset;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Optional;

/**
 * The rules of the verdict, without Spark (reference-behaviour §15, ADR 0005).
 *
 * <p>Why a committed batch ending at LSN {@code L} finalizes the period before {@code L}'s commit
 * time: {@code L} never exceeds {@code sys.fn_cdc_get_max_lsn()}, the last LSN capture has
 * processed, and capture writes change rows in commit order; so once the batch is committed to the
 * target, every source transaction committed at or before {@code L}'s commit time is in it, except
 * those sharing that exact commit time ({@code tran_end_time} has ~3.33 ms resolution). Truncating
 * to the start of the period excludes the period holding {@code L}.
 */
public final class Verdicts {
  private Verdicts() {}

  /**
   * The verdict a committed batch ending at {@code endOffset} implies: its commit time truncated
   * to the period; empty without an offset or when the offset carries no commit time (an LSN that
   * is no commit's, such as an explicit {@code startingLsn} before the first batch).
   */
  public static Optional<LocalDateTime> candidate(CdcOffset endOffset, Granularity granularity) {
    if (endOffset == null) {
      return Optional.empty();
    }
    return endOffset.commitTs().map(ts -> granularity.truncate(LocalDateTime.ofInstant(ts, ZoneOffset.UTC)));
  }

  /**
   * Whether the period ending at {@code periodEndUtc} (exclusive) is complete under
   * {@code verdict}: exactly when {@code periodEndUtc <= verdict}. No verdict: nothing is final.
   */
  public static boolean isFinal(Optional<LocalDateTime> verdict, LocalDateTime periodEndUtc) {
    return verdict.isPresent() && !periodEndUtc.isAfter(verdict.get());
  }
}
