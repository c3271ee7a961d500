package io.mssqlcdc.sink.chunked;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Plans the chunks of a chunked snapshot over any bindable key, one column or several
 * (reference-behaviour §12.9, verified W8): walk bounds with {@link Bounds#keyBound} (the key
 * leaving exactly {@code chunkRows} rows in {@code [lo, key)}, below the extent's MAX) until none
 * is left; the first chunk is open below, the last ends at {@link Bounds#after}(MAX) (the first
 * key past MAX now), or is open when none exists or it reads back equal to MAX (a
 * {@code datetime2(7)} truncated to microseconds). An open last end is sought again before every
 * wave. Plain logic: the bounds come from {@link Bounds}.
 */
public final class KeysetChunkPlanner {

  /** What the planner asks the source. Keys are lists, one value per key column. */
  public interface Bounds {
    /** The key leaving exactly {@code n} rows in {@code [lo, key)} with {@code key < top}; empty when fewer remain. */
    Optional<List<Object>> keyBound(List<Object> lo, List<Object> top, long n);

    /** The first key after {@code max} (the second key at or after it); empty when none. */
    Optional<List<Object>> after(List<Object> max);
  }

  /** A planned chunk {@code [lo, hi)}; null bounds are open. */
  public record Chunk(List<Object> lo, List<Object> hi) {}

  private final Bounds bounds;
  private final long chunkRows;

  public KeysetChunkPlanner(Bounds bounds, long chunkRows) {
    if (chunkRows < 1) {
      throw new IllegalArgumentException("chunk_rows must be at least 1, not " + chunkRows);
    }
    this.bounds = bounds;
    this.chunkRows = chunkRows;
  }

  /** The chunks of a table whose largest key is {@code max} (read after the stamp); one open chunk when {@code max} is null. */
  public List<Chunk> plan(List<Object> max) {
    List<Chunk> chunks = new ArrayList<>();
    if (max == null) {
      chunks.add(new Chunk(null, null));
      return chunks;
    }
    List<Object> lo = null;
    while (true) {
      Optional<List<Object>> b = bounds.keyBound(lo, max, chunkRows);
      if (b.isEmpty() || Objects.equals(b.get(), lo)) {
        break;
      }
      chunks.add(new Chunk(lo, b.get()));
      lo = b.get();
    }
    chunks.add(new Chunk(lo, lastEnd(max)));
    return chunks;
  }

  /** The last chunk's end: the first key after {@code max}, or open. */
  public List<Object> lastEnd(List<Object> max) {
    Optional<List<Object>> a = bounds.after(max);
    return a.isEmpty() || a.get().equals(max) ? null : a.get();
  }
}
