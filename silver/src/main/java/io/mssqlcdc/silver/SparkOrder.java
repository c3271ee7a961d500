package io.mssqlcdc.silver;

import java.util.Comparator;

/**
 * The order Spark's {@code min}/{@code max} give values of the types a key may have, for values taken to
 * the driver ({@link LocalRanking}): strings by code point (Spark compares their UTF-8 bytes, which orders
 * as code points do, not as Java's UTF-16 {@code compareTo}), binary unsigned byte by byte, floating point
 * with {@code -0.0} equal to {@code 0.0} and NaN above everything, the rest by their natural order.
 */
final class SparkOrder {
  /** Nulls are not compared: callers skip them, as Spark's {@code min}/{@code max} do. */
  static final Comparator<Object> VALUES = SparkOrder::compare;

  private SparkOrder() {}

  @SuppressWarnings({"unchecked", "rawtypes"})
  static int compare(Object a, Object b) {
    if (a instanceof String x && b instanceof String y) {
      return codePoints(x, y);
    }
    if (a instanceof byte[] x && b instanceof byte[] y) {
      return java.util.Arrays.compareUnsigned(x, y);
    }
    if (a instanceof Double x && b instanceof Double y) {
      return x.doubleValue() == y.doubleValue() ? 0 : Double.compare(x, y);
    }
    if (a instanceof Float x && b instanceof Float y) {
      return x.floatValue() == y.floatValue() ? 0 : Float.compare(x, y);
    }
    if (a instanceof Comparable c) {
      return c.compareTo(b);
    }
    throw new IllegalArgumentException("no order for values of " + a.getClass().getName());
  }

  private static int codePoints(String x, String y) {
    int i = 0;
    int j = 0;
    while (i < x.length() && j < y.length()) {
      int a = x.codePointAt(i);
      int b = y.codePointAt(j);
      if (a != b) {
        return Integer.compare(a, b);
      }
      i += Character.charCount(a);
      j += Character.charCount(b);
    }
    return Boolean.compare(i < x.length(), j < y.length());
  }
}
