package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.client.KeyRange;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts a key into ranges that cover it exactly once (reference-behaviour §12.2). The first range
 * is open below, so it also takes NULL keys and keys below the minimum inserted meanwhile; the
 * last is open above; each range ends where the next starts ({@code [lo, hi)}).
 */
final class KeyRanges {
  private KeyRanges() {}

  /**
   * Uniform ranges of a single integer key whose values lie in {@code [min, max]}:
   * {@code n = min(parts, max - min + 1)} ranges with lower bounds
   * {@code min + (max - min + 1) * i / n} for {@code i = 1..n-1}. Bounds take the class of
   * {@code min} ({@code Short}, {@code Integer} or {@code Long}), as the client reads the key.
   */
  static List<KeyRange> uniform(Number min, Number max, int parts) {
    BigInteger lo = BigInteger.valueOf(min.longValue());
    BigInteger width = BigInteger.valueOf(max.longValue()).subtract(lo).add(BigInteger.ONE);
    if (parts < 1) {
      throw new IllegalArgumentException("parts must be at least 1, not " + parts);
    }
    if (width.signum() <= 0) {
      throw new IllegalArgumentException("min " + min + " is above max " + max);
    }
    int n = width.min(BigInteger.valueOf(parts)).intValueExact();
    List<Object> starts = new ArrayList<>(n - 1);
    for (int i = 1; i < n; i++) {
      long bound = lo.add(width.multiply(BigInteger.valueOf(i)).divide(BigInteger.valueOf(n))).longValueExact();
      starts.add(sameClass(min, bound));
    }
    List<List<Object>> bounds = new ArrayList<>();
    for (Object s : starts) {
      bounds.add(List.of(s));
    }
    return between(bounds);
  }

  /**
   * The ranges between ascending, distinct {@code starts}: {@code [null, s1), [s1, s2), ...,
   * [sk, null)}; the whole key ({@link KeyRange#ALL}) when there is no start.
   */
  static List<KeyRange> between(List<List<Object>> starts) {
    List<KeyRange> ranges = new ArrayList<>(starts.size() + 1);
    List<Object> lo = null;
    for (List<Object> s : starts) {
      ranges.add(new KeyRange(lo, s));
      lo = s;
    }
    ranges.add(new KeyRange(lo, null));
    return ranges;
  }

  /** Whether {@code v} is a Java integer of a key read by the client. */
  static boolean isInteger(Object v) {
    return v instanceof Short || v instanceof Integer || v instanceof Long || v instanceof Byte;
  }

  private static Object sameClass(Number like, long v) {
    if (like instanceof Short) {
      return (short) v;
    }
    if (like instanceof Integer) {
      return (int) v;
    }
    if (like instanceof Byte) {
      return (byte) v;
    }
    return v;
  }
}
