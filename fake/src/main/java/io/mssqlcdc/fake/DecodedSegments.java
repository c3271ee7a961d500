package io.mssqlcdc.fake;

import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A bounded, per-JVM cache of decoded change segments, so that reading the same commits again
 * (the measured rounds of a benchmark, a replayed batch, the many small reads of a test) costs
 * only iteration, not decoding: the fake's read cost then stays well below the connector's own
 * per-row work, which is what benchmarks are meant to measure.
 *
 * <p>Safe because segment files are immutable: a commit's segment is written once under a new
 * name ({@code changes/<instance>/<commitLsn>.seg}) and only ever deleted (cleanup, disable),
 * never rewritten. Entries are keyed by path, size and modification time all the same, so a
 * directory deleted and re-created by a test never serves stale rows.
 *
 * <p>Bounded by rows, least recently used first out: at most
 * {@code -Dmssqlcdc.fake.cacheRows} rows in all (default 200,000), and segments larger than a
 * tenth of that are never cached but streamed from the file, so one huge transaction keeps
 * executor memory flat. Values are shared between readers: they are immutable Java values
 * (byte arrays are handed out as they are; readers must not change them).
 */
final class DecodedSegments {
  static final long MAX_ROWS = Long.getLong("mssqlcdc.fake.cacheRows", 200_000L);

  /** A segment decoded whole: per row its seqval, operation, command id and all column values. */
  record Decoded(String[] columns, int[] seqHigh, long[] seqLow, byte[] operation, int[] commandId,
      Object[][] values) {
    int rows() {
      return operation.length;
    }
  }

  private record Key(Path file, long size, long modified) {}

  private static final Map<Key, Decoded> CACHE = new LinkedHashMap<>(64, 0.75f, true);
  private static long cachedRows;

  private DecodedSegments() {}

  /** Whether a segment of {@code rows} rows may be cached. */
  static boolean cacheable(int rows) {
    return rows <= MAX_ROWS / 10;
  }

  static synchronized Decoded get(Path file, long size, long modified) {
    return CACHE.get(new Key(file, size, modified));
  }

  static synchronized void put(Path file, long size, long modified, Decoded decoded) {
    if (!cacheable(decoded.rows())) {
      return;
    }
    Decoded old = CACHE.put(new Key(file, size, modified), decoded);
    cachedRows += decoded.rows() - (old == null ? 0 : old.rows());
    Iterator<Decoded> eldest = CACHE.values().iterator();
    while (cachedRows > MAX_ROWS && eldest.hasNext()) {
      cachedRows -= eldest.next().rows();
      eldest.remove();
    }
  }

  /** Empties the cache (tests). */
  static synchronized void clear() {
    CACHE.clear();
    cachedRows = 0;
  }
}
