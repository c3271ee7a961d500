package io.mssqlcdc.sink.chunked;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;

/**
 * Plans the chunks of a chunked snapshot over one integer key (reference-behaviour §12.9 and its
 * verified details, O13): a grid of fine slices anchored at 0, counted by the source in one
 * {@code GROUP BY} per grid; a slice holding more than {@code chunkRows} rows (and wider than one
 * value) is re-counted on a finer grid over its own MIN..MAX, down to one value; consecutive
 * non-empty slices are packed in key order into chunks of at most {@code chunkRows} rows (a new
 * chunk starts at a slice whenever the current one has rows and adding the slice would exceed);
 * the first chunk is open below (it also takes NULL keys and keys below MIN inserted since), the
 * last ends at {@code MAX + 1}. A single value holding more than {@code chunkRows} is one chunk.
 * Bounds are {@link BigInteger}: {@code MAX + 1} can pass BIGINT. Plain logic: the counts come
 * from {@link Counts}.
 */
public final class IntChunkPlanner {
  /** Most slices per grid, as in the reference. */
  static final int MAX_SLICES = 100_000;

  /** What the planner asks the source. */
  public interface Counts {
    /**
     * Rows per fine slice {@code floor(k / width)} (floor for negative keys) of the non-NULL keys
     * in {@code [lo, hi)} ({@code lo} null: no lower bound), by slice id.
     */
    SortedMap<BigInteger, Long> buckets(BigInteger lo, BigInteger hi, long width);

    /** The smallest and largest non-NULL key in {@code [lo, hi)}; empty when none. */
    Optional<BigInteger[]> minMax(BigInteger lo, BigInteger hi);
  }

  /** A planned chunk: {@code [lo, hi)}, {@code lo} null for the first (open below). */
  public record Chunk(BigInteger lo, BigInteger hi, long rows) {}

  private record Slice(BigInteger start, BigInteger end, long rows) {}

  private final Counts counts;
  private final long chunkRows;

  public IntChunkPlanner(Counts counts, long chunkRows) {
    if (chunkRows < 1) {
      throw new IllegalArgumentException("chunk_rows must be at least 1, not " + chunkRows);
    }
    this.counts = counts;
    this.chunkRows = chunkRows;
  }

  /**
   * The chunks of a table whose key spans {@code [min, max]} (read after the stamp), with about
   * {@code estimatedRows} rows.
   */
  public List<Chunk> plan(BigInteger min, BigInteger max, long estimatedRows) {
    BigInteger end = max.add(BigInteger.ONE);
    long n = slices(Math.max(0, estimatedRows));
    long width = width(min, max, n);
    List<Slice> slices = new ArrayList<>();
    collect(null, end, width, slices);
    return pack(slices, end);
  }

  private void collect(BigInteger a, BigInteger b, long width, List<Slice> out) {
    SortedMap<BigInteger, Long> c = counts.buckets(a, b, width);
    BigInteger w = BigInteger.valueOf(width);
    for (Map.Entry<BigInteger, Long> e : c.entrySet()) {
      if (e.getValue() <= 0) {
        continue;
      }
      BigInteger x = e.getKey().multiply(w);
      BigInteger y = x.add(w);
      if (a != null && x.compareTo(a) < 0) {
        x = a;
      }
      if (y.compareTo(b) > 0) {
        y = b;
      }
      if (e.getValue() > chunkRows && width > 1) {
        Optional<BigInteger[]> mm = counts.minMax(x, y);
        if (mm.isPresent()) {
          long n = slices(e.getValue());
          long subWidth = width(mm.get()[0], mm.get()[1], n);
          if (subWidth < width) {
            collect(x, y, subWidth, out);
            continue;
          }
        }
      }
      out.add(new Slice(x, y, e.getValue()));
    }
  }

  private List<Chunk> pack(List<Slice> slices, BigInteger end) {
    List<Chunk> chunks = new ArrayList<>();
    if (slices.isEmpty()) {
      chunks.add(new Chunk(null, end, 0));
      return chunks;
    }
    BigInteger lo = null;
    long rows = 0;
    for (Slice s : slices) {
      if (rows > 0 && rows + s.rows() > chunkRows) {
        chunks.add(new Chunk(lo, s.start(), rows));
        lo = s.start();
        rows = 0;
      }
      rows += s.rows();
    }
    chunks.add(new Chunk(lo, end, rows));
    return chunks;
  }

  private long slices(long rows) {
    double n = Math.ceil(16.0 * rows / chunkRows);
    return (long) Math.min(MAX_SLICES, Math.max(1, n));
  }

  /** {@code ceil((max - min + 1) / n)}, at least 1, at most BIGINT's maximum. */
  static long width(BigInteger min, BigInteger max, long n) {
    BigInteger span = max.subtract(min).add(BigInteger.ONE);
    BigInteger[] qr = span.divideAndRemainder(BigInteger.valueOf(n));
    BigInteger w = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
    if (w.signum() <= 0) {
      return 1;
    }
    return w.bitLength() < 64 ? w.longValueExact() : Long.MAX_VALUE;
  }
}
