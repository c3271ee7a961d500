package io.mssqlcdc.fake;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * SQL Server's key order for the fake: NULL first, then values ascending; composite keys
 * lexicographically. Strings compare by UTF-16 code unit (a binary collation; the fake reports
 * {@code Latin1_General_100_BIN2}), byte arrays unsigned.
 */
final class KeyOrder {
  private KeyOrder() {}

  static final Comparator<List<Object>> KEYS = KeyOrder::compareKeys;

  static int compareKeys(List<Object> a, List<Object> b) {
    int n = Math.min(a.size(), b.size());
    for (int i = 0; i < n; i++) {
      int c = compare(a.get(i), b.get(i));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.size(), b.size());
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static int compare(Object a, Object b) {
    if (a == null || b == null) {
      return a == null ? (b == null ? 0 : -1) : 1;
    }
    if (a instanceof byte[] x && b instanceof byte[] y) {
      return Arrays.compareUnsigned(x, y);
    }
    if (a instanceof Number x && b instanceof Number y && a.getClass() != b.getClass()) {
      return new BigDecimal(x.toString()).compareTo(new BigDecimal(y.toString()));
    }
    if (a.getClass() != b.getClass() || !(a instanceof Comparable)) {
      throw new IllegalArgumentException("Cannot compare key values " + FakeErrors.describe(a) + " and "
          + FakeErrors.describe(b) + ": pass bounds of the key column's Java class (see ChangeCursor).");
    }
    return ((Comparable) a).compareTo(b);
  }
}
