package io.mssqlcdc.silver;

/**
 * LSN comparisons on their text form. Bronze, the facts and the control table hold LSNs as
 * {@code 0x} + 20 upper-case hex digits, whose string order is their numeric order (as the
 * reference compares them, in Spark and in Python alike); these helpers treat {@code null} as "none".
 */
final class Lsns {
  private Lsns() {}

  /** The greatest of the non-null values; null when all are null. */
  static String max(String... values) {
    String m = null;
    for (String v : values) {
      if (v != null && (m == null || v.compareTo(m) > 0)) {
        m = v;
      }
    }
    return m;
  }

  /** Whether {@code a} is set and after {@code b} (a null {@code b} is before everything). */
  static boolean after(String a, String b) {
    return a != null && (b == null || a.compareTo(b) > 0);
  }
}
