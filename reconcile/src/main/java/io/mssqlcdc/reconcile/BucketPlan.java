package io.mssqlcdc.reconcile;

import io.mssqlcdc.client.KeyBucket;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Tier 1 buckets of a single integer or date key (reference-behaviour §17 step 6, §33 O3): fine
 * buckets {@code floor(o / w)} of the key's ordinal {@code o} on a grid anchored at 0, counted and
 * summed on each side, merged into buckets of about {@code bucketRows} rows. Plain logic; the
 * counts come from SQL Server ({@code keyBuckets}) and from Spark.
 */
public final class BucketPlan {
  /** How many fine buckets the key's span is cut into at most. */
  public static final long FINE_BUCKETS = 100_000;

  private BucketPlan() {}

  /** A tier 1 bucket {@code [lo, hi)} of ordinals (fine ids {@code firstFine..lastFine}), with both sides' counts. */
  public record Bucket(BigInteger lo, BigInteger hi, long firstFine, long lastFine, long sourceRows,
      BigInteger sourceSum, long silverRows, BigInteger silverSum, boolean moved) {
    /** The bucket's verdict. */
    public Status status() {
      return Status.of(sourceRows, sourceSum, silverRows, silverSum, moved);
    }

    /** Whether the fine bucket {@code fine} lies in this bucket. */
    public boolean holds(long fine) {
      return fine >= firstFine && fine <= lastFine;
    }
  }

  /** The fine width for ordinals spanning {@code [min, max]}: {@code max(1, ceil((max - min + 1) / 100,000))}. */
  public static long width(long min, long max) {
    BigInteger span = BigInteger.valueOf(max).subtract(BigInteger.valueOf(min)).add(BigInteger.ONE);
    BigInteger[] qr = span.divideAndRemainder(BigInteger.valueOf(FINE_BUCKETS));
    BigInteger w = qr[1].signum() > 0 ? qr[0].add(BigInteger.ONE) : qr[0];
    return Math.max(1, w.longValueExact());
  }

  /** The fine bucket of ordinal {@code o}: {@code floor(o / w)}, rounding down below zero. */
  public static long fine(long o, long w) {
    return Math.floorDiv(o, w);
  }

  /**
   * Merges fine buckets: the union of both sides' non-empty fine ids, ascending; a bucket starts at
   * the first id and whenever the rows gathered so far (the larger side's, per fine id) reached
   * {@code bucketRows}; bucket i is {@code [start_i * w, start_(i+1) * w)}, the last ending at
   * {@code (last id + 1) * w}. A bucket is moved when one of its fine ids is in {@code moved}.
   */
  public static List<Bucket> merge(List<KeyBucket> source, List<KeyBucket> silver, Collection<Long> movedIds,
      long w, long bucketRows) {
    TreeSet<Long> moved = new TreeSet<>(movedIds);
    SortedMap<Long, KeyBucket> src = byId(source);
    SortedMap<Long, KeyBucket> sil = byId(silver);
    TreeSet<Long> ids = new TreeSet<>(src.keySet());
    ids.addAll(sil.keySet());
    List<List<Long>> groups = new ArrayList<>();
    List<Long> current = null;
    long acc = 0;
    for (long id : ids) {
      if (current == null || acc >= bucketRows) {
        current = new ArrayList<>();
        groups.add(current);
        acc = 0;
      }
      current.add(id);
      acc += Math.max(rows(src, id), rows(sil, id));
    }
    List<Bucket> out = new ArrayList<>();
    BigInteger bw = BigInteger.valueOf(w);
    for (int i = 0; i < groups.size(); i++) {
      List<Long> g = groups.get(i);
      long first = g.get(0);
      long last = i + 1 < groups.size() ? groups.get(i + 1).get(0) - 1 : g.get(g.size() - 1);
      long sr = 0;
      long tr = 0;
      BigInteger ss = BigInteger.ZERO;
      BigInteger ts = BigInteger.ZERO;
      for (long id : g) {
        KeyBucket s = src.get(id);
        KeyBucket t = sil.get(id);
        if (s != null) {
          sr += s.rows();
          ss = ss.add(s.keySum());
        }
        if (t != null) {
          tr += t.rows();
          ts = ts.add(t.keySum());
        }
      }
      boolean m = !moved.subSet(first, true, last, true).isEmpty();
      out.add(new Bucket(BigInteger.valueOf(first).multiply(bw), BigInteger.valueOf(last).add(BigInteger.ONE).multiply(bw),
          first, last,
          sr, ss, tr, ts, m));
    }
    return out;
  }

  private static SortedMap<Long, KeyBucket> byId(List<KeyBucket> buckets) {
    SortedMap<Long, KeyBucket> m = new TreeMap<>();
    for (KeyBucket b : buckets) {
      KeyBucket old = m.put(b.bucket(), b);
      if (old != null) {
        m.put(b.bucket(), new KeyBucket(b.bucket(), old.rows() + b.rows(), old.keySum().add(b.keySum())));
      }
    }
    return m;
  }

  private static long rows(Map<Long, KeyBucket> m, long id) {
    KeyBucket b = m.get(id);
    return b == null ? 0 : b.rows();
  }
}
