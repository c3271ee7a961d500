package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.SplitPoint;
import io.mssqlcdc.lsn.Lsn;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits one piece into commit-aligned ranges of about equal change rows (reference-behaviour
 * §6.1): the NTILE tiles of {@link io.mssqlcdc.client.CdcClient#splitPoints} are merged so that
 * each range holds at least {@link #minRows} rows (50,000 for up to 5 captured columns, as many values for
 * wider rows) and about {@code total / n}; there are at most {@code n} ranges, and a piece under twice that
 * stays whole. The last range
 * always ends at the piece's end, so idle entries past the last change are covered.
 */
final class RangeSplitter {
  /** The smallest range worth its own partition (and connection), for a table of up to {@link #NARROW} columns. */
  static final long MIN_ROWS = 50_000;
  /** The captured columns {@link #MIN_ROWS} is sized for; a wider row is more work per row. */
  static final int NARROW = 5;
  /** The fewest rows a range may hold however wide its rows are. */
  static final long MIN_ROWS_WIDE = 5_000;

  /**
   * The smallest range worth its own partition for rows of {@code columns} captured columns: {@link #MIN_ROWS}
   * rows of up to {@link #NARROW} columns, as many values for wider rows (at least {@link #MIN_ROWS_WIDE} rows),
   * so a wide table's batch of 20,000 rows (1.8 million values at 90 columns) is read in parallel where a
   * narrow one of as many rows is not worth a second connection.
   */
  static long minRows(int columns) {
    if (columns <= NARROW) {
      return MIN_ROWS;
    }
    return Math.max(MIN_ROWS_WIDE, MIN_ROWS * NARROW / columns);
  }

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
