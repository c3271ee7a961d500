package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.SplitPoint;
import io.mssqlcdc.lsn.Lsn;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits one piece into commit-aligned ranges of about equal change rows (reference-behaviour
 * §6.1): the NTILE tiles of {@link io.mssqlcdc.client.CdcClient#splitPoints} are merged so that
 * each range holds at least {@link #MIN_ROWS} rows and about {@code total / n}; there are at
 * most {@code n} ranges, and a piece under {@code 2 * MIN_ROWS} rows stays whole. The last range
 * always ends at the piece's end, so idle entries past the last change are covered.
 */
final class RangeSplitter {
  /** The smallest range worth its own partition (and connection). */
  static final long MIN_ROWS = 50_000;

  private RangeSplitter() {}

  static List<LsnRange> split(LsnRange piece, List<SplitPoint> tiles, int n, long minRows) {
    long total = 0;
    for (SplitPoint t : tiles) {
      total += t.rows();
    }
    List<LsnRange> out = new ArrayList<>();
    if (n <= 1 || tiles.isEmpty()) {
      out.add(new LsnRange(piece.captureInstance(), piece.from(), piece.to(), total));
      return out;
    }
    long target = Math.max(minRows, (total + n - 1) / n);
    Lsn lo = piece.from();
    long acc = 0;
    for (SplitPoint t : tiles) {
      acc += t.rows();
      boolean inside = !t.bound().isBefore(lo) && t.bound().isBefore(piece.to());
      if (acc >= target && inside && out.size() < n - 1) {
        out.add(new LsnRange(piece.captureInstance(), lo, t.bound(), acc));
        lo = t.next();
        acc = 0;
      }
    }
    if (!out.isEmpty() && acc < minRows) {
      // IMPORTANT: never a tiny trailing range: the last closed range takes it up to the piece's end
      LsnRange prev = out.remove(out.size() - 1);
      out.add(new LsnRange(piece.captureInstance(), prev.from(), piece.to(), prev.rows() + acc));
    } else {
      out.add(new LsnRange(piece.captureInstance(), lo, piece.to(), acc));
    }
    return out;
  }
}
