package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.lsn.Lsn;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Cuts a batch's closed LSN range at each newer capture instance's start LSN S
 * (reference-behaviour §6 step 6, §11 D2): below S a commit is only in the older instance, from
 * S on it is in both with the same {@code (start_lsn, seqval)}, so the older instance reads
 * {@code [lo, decrement(S)]} and the newer {@code [S, hi]}, and every commit is read exactly
 * once. Instances without a known start LSN are never cut at. No piece is ever empty.
 */
final class RangeCutter {
  private RangeCutter() {}

  /**
   * @param instances the table's capture instances, oldest first
   * @param decrement {@code fn_cdc_decrement_lsn}
   */
  static List<LsnRange> cut(List<CaptureInstance> instances, Lsn from, Lsn to, UnaryOperator<Lsn> decrement) {
    List<LsnRange> pieces = new ArrayList<>();
    if (to.isBefore(from) || instances.isEmpty()) {
      return pieces;
    }
    // the instance holding `from`: the newest one whose start is at or below it, else the oldest
    int current = 0;
    for (int i = 1; i < instances.size(); i++) {
      Lsn s = instances.get(i).startLsn();
      if (s != null && !s.isAfter(from)) {
        current = i;
      }
    }
    Lsn lo = from;
    for (int i = current + 1; i < instances.size(); i++) {
      Lsn s = instances.get(i).startLsn();
      if (s == null || !s.isAfter(lo) || s.isAfter(to)) {
        continue;
      }
      pieces.add(new LsnRange(instances.get(current).name(), lo, decrement.apply(s), -1));
      current = i;
      lo = s;
    }
    pieces.add(new LsnRange(instances.get(current).name(), lo, to, -1));
    return pieces;
  }
}
