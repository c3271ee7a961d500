package io.mssqlcdc.fake;

import io.mssqlcdc.client.SplitPoint;
import io.mssqlcdc.fake.Catalog.SegmentRef;
import io.mssqlcdc.lsn.Lsn;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link io.mssqlcdc.client.CdcClient#splitPoints} over segment row counts: NTILE(n) over the
 * change rows ordered by start LSN, each tile's bound the start LSN of its last row; tiles
 * sharing a bound are merged, and each tile's rows are those of its commit-aligned range
 * {@code (previous bound, bound]} (a straddling commit stays whole in the first tile).
 */
final class SplitPlanner {
  private SplitPlanner() {}

  static List<SplitPoint> plan(List<SegmentRef> segments, int n) {
    if (n < 1) {
      throw FakeErrors.invalidArgument("The number of split points n", n, "at least 1");
    }
    long total = 0;
    for (SegmentRef s : segments) {
      total += s.rows();
    }
    List<SplitPoint> out = new ArrayList<>();
    if (total == 0) {
      return out;
    }
    long tiles = Math.min(n, total);
    long base = total / tiles;
    long extra = total % tiles;
    int seg = 0;
    long rowsBeforeSeg = 0; // rows in segments before `seg`
    long tileEnd = 0; // 1-based index of the last row of the current tile
    long taken = 0; // rows already assigned to emitted split points
    Lsn lastBound = null;
    for (long g = 0; g < tiles; g++) {
      tileEnd += base + (g < extra ? 1 : 0);
      while (rowsBeforeSeg + segments.get(seg).rows() < tileEnd) {
        rowsBeforeSeg += segments.get(seg).rows();
        seg++;
      }
      Lsn bound = segments.get(seg).commitLsn();
      if (bound.equals(lastBound)) {
        continue;
      }
      long upTo = rowsBeforeSeg + segments.get(seg).rows();
      out.add(new SplitPoint(bound, bound.increment(), upTo - taken));
      taken = upTo;
      lastBound = bound;
    }
    return out;
  }
}
