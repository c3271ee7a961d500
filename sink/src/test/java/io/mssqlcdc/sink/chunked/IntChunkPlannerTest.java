package io.mssqlcdc.sink.chunked;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.sink.chunked.IntChunkPlanner.Chunk;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The integer chunk plan against keys held in memory: the chunks tile the key space and respect the size. */
class IntChunkPlannerTest {

  /** Counts answered from a list of keys, as SQL Server's GROUP BY on floor(k / w) would. */
  static final class KeyCounts implements IntChunkPlanner.Counts {
    final long[] keys;
    int statements;

    KeyCounts(long... keys) {
      this.keys = keys.clone();
      Arrays.sort(this.keys);
    }

    @Override
    public SortedMap<BigInteger, Long> buckets(BigInteger lo, BigInteger hi, long width) {
      statements++;
      SortedMap<BigInteger, Long> m = new TreeMap<>();
      for (long k : keys) {
        BigInteger b = BigInteger.valueOf(k);
        if ((lo == null || b.compareTo(lo) >= 0) && b.compareTo(hi) < 0) {
          m.merge(BigInteger.valueOf(Math.floorDiv(k, width)), 1L, Long::sum);
        }
      }
      return m;
    }

    @Override
    public Optional<BigInteger[]> minMax(BigInteger lo, BigInteger hi) {
      statements++;
      BigInteger min = null;
      BigInteger max = null;
      for (long k : keys) {
        BigInteger b = BigInteger.valueOf(k);
        if (b.compareTo(lo) >= 0 && b.compareTo(hi) < 0) {
          min = min == null ? b : min.min(b);
          max = max == null ? b : max.max(b);
        }
      }
      return min == null ? Optional.empty() : Optional.of(new BigInteger[] {min, max});
    }
  }

  private static void assertTiles(List<Chunk> chunks, long[] keys, long chunkRows, long max) {
    assertThat(chunks.get(0).lo()).isNull();
    assertThat(chunks.get(chunks.size() - 1).hi()).isEqualTo(BigInteger.valueOf(max).add(BigInteger.ONE));
    for (int i = 1; i < chunks.size(); i++) {
      assertThat(chunks.get(i).lo()).isEqualTo(chunks.get(i - 1).hi());
      if (chunks.get(i - 1).lo() != null) {
        assertThat(chunks.get(i).lo()).isGreaterThan(chunks.get(i - 1).lo());
      }
    }
    long total = 0;
    for (Chunk c : chunks) {
      long in = Arrays.stream(keys).filter(k -> (c.lo() == null || BigInteger.valueOf(k).compareTo(c.lo()) >= 0)
          && BigInteger.valueOf(k).compareTo(c.hi()) < 0).count();
      assertThat(c.rows()).isEqualTo(in);
      total += in;
      boolean singleValue = Arrays.stream(keys).filter(k -> (c.lo() == null || BigInteger.valueOf(k).compareTo(c.lo()) >= 0)
          && BigInteger.valueOf(k).compareTo(c.hi()) < 0).distinct().count() == 1;
      assertThat(c.rows() <= chunkRows || singleValue).as("chunk " + c + " of " + chunkRows).isTrue();
    }
    assertThat(total).isEqualTo(keys.length);
  }

  @Test
  void denseKeysAreCutIntoChunksOfAtMostChunkRows() {
    long[] keys = new long[10_000];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = i + 1;
    }
    List<Chunk> chunks = new IntChunkPlanner(new KeyCounts(keys), 1_000).plan(BigInteger.ONE,
        BigInteger.valueOf(10_000), 10_000);
    assertTiles(chunks, keys, 1_000, 10_000);
    assertThat(chunks).hasSizeBetween(10, 12); // slices of ceil(10000 / 160) = 63 keys pack 15 to a chunk
  }

  @Test
  void skewedAndNegativeKeysAreRefinedDownToOneValue() {
    List<Long> ks = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      ks.add(-1_000_000L + i);          // a dense negative run
    }
    for (int i = 0; i < 50; i++) {
      ks.add(1_000_000_000L * i);      // sparse giants
    }
    for (int i = 0; i < 300; i++) {
      ks.add(42L);                     // not unique here, to force a single-value slice over the limit
    }
    long[] keys = ks.stream().mapToLong(Long::longValue).toArray();
    long max = Arrays.stream(keys).max().getAsLong();
    long min = Arrays.stream(keys).min().getAsLong();
    List<Chunk> chunks = new IntChunkPlanner(new KeyCounts(keys), 200).plan(BigInteger.valueOf(min),
        BigInteger.valueOf(max), 100);  // a bad estimate: the refinement must still bound the chunks
    assertTiles(chunks, keys, 200, max);
  }

  @Test
  void randomKeySetsAlwaysTile() {
    Random r = new Random(7);
    for (int round = 0; round < 30; round++) {
      int n = 1 + r.nextInt(3_000);
      long[] keys = new long[n];
      for (int i = 0; i < n; i++) {
        keys[i] = r.nextBoolean() ? r.nextInt(100_000) - 50_000 : (long) (r.nextGaussian() * 1e12);
      }
      keys = Arrays.stream(keys).distinct().toArray();
      long max = Arrays.stream(keys).max().getAsLong();
      long min = Arrays.stream(keys).min().getAsLong();
      long chunkRows = 1 + r.nextInt(500);
      List<Chunk> chunks = new IntChunkPlanner(new KeyCounts(keys), chunkRows).plan(BigInteger.valueOf(min),
          BigInteger.valueOf(max), r.nextInt(2 * n + 1));
      assertTiles(chunks, keys, chunkRows, max);
    }
  }

  @Test
  void anEmptyTableIsOneChunkAndExtremeKeysDoNotOverflow() {
    List<Chunk> empty = new IntChunkPlanner(new KeyCounts(), 10).plan(BigInteger.ZERO, BigInteger.ZERO, 0);
    assertThat(empty).containsExactly(new Chunk(null, BigInteger.ONE, 0));
    long[] keys = {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE};
    List<Chunk> chunks = new IntChunkPlanner(new KeyCounts(keys), 2).plan(BigInteger.valueOf(Long.MIN_VALUE),
        BigInteger.valueOf(Long.MAX_VALUE), 5);
    assertTiles(chunks, keys, 2, Long.MAX_VALUE);
    assertThat(chunks.get(chunks.size() - 1).hi()).isEqualTo(BigInteger.valueOf(Long.MAX_VALUE).add(BigInteger.ONE));
  }
}
