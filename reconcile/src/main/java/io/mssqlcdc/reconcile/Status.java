package io.mssqlcdc.reconcile;

import java.math.BigInteger;
import java.util.Objects;

/** A bucket's verdict (reference-behaviour §17 step 7). */
public enum Status {
  /** Rows and key sums equal on both sides. */
  MATCH,
  /** They differ, but keys of the bucket changed after silver's position: the stream or silver has not caught up. */
  IN_FLIGHT,
  /** They differ and nothing is in flight: silver is not the source. */
  MISMATCH;

  /**
   * Equal rows and sums (both sums null for a whole-table count) → MATCH; else IN_FLIGHT when the
   * bucket moved, else MISMATCH.
   */
  public static Status of(long sourceRows, BigInteger sourceSum, long silverRows, BigInteger silverSum, boolean moved) {
    if (sourceRows == silverRows && Objects.equals(sourceSum, silverSum)) {
      return MATCH;
    }
    return moved ? IN_FLIGHT : MISMATCH;
  }
}
