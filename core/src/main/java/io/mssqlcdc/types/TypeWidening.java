package io.mssqlcdc.types;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a column typed {@code old} can be read as {@code new} without losing values
 * (reference-behaviour §4.2, {@code _fits}). Both are Spark SQL type strings; comparison
 * ignores case and blanks.
 *
 * <ul>
 *   <li>equal types fit;
 *   <li>integer ladder tinyint &lt; smallint &lt; int &lt; bigint, widening only;
 *   <li>float → double; date → timestamp_ntz;
 *   <li>tinyint, smallint, int → double (bigint does not: 64-bit integers exceed 53-bit mantissas);
 *   <li>integer → decimal(p,s) when p − s ≥ its digits (tinyint 3, smallint 5, int 10, bigint 20);
 *   <li>decimal(p1,s1) → decimal(p2,s2) when s2 ≥ s1 and p2 − s2 ≥ p1 − s1;
 *   <li>nothing else.
 * </ul>
 */
public final class TypeWidening {
  private static final List<String> INTEGERS = List.of("tinyint", "smallint", "int", "bigint");
  private static final int[] INTEGER_DIGITS = {3, 5, 10, 20};
  private static final Pattern DECIMAL = Pattern.compile("decimal\\((\\d+),(\\d+)\\)");

  private TypeWidening() {}

  public static boolean fits(String oldType, String newType) {
    String o = normalize(oldType);
    String n = normalize(newType);
    if (o.equals(n)) {
      return true;
    }
    int oi = INTEGERS.indexOf(o);
    int ni = INTEGERS.indexOf(n);
    if (oi >= 0 && ni >= 0) {
      return ni >= oi;
    }
    if (o.equals("float") && n.equals("double")) {
      return true;
    }
    if (o.equals("date") && n.equals("timestamp_ntz")) {
      return true;
    }
    if (oi >= 0 && oi <= 2 && n.equals("double")) {
      return true;
    }
    Matcher nd = DECIMAL.matcher(n);
    if (!nd.matches()) {
      return false;
    }
    int p2 = Integer.parseInt(nd.group(1));
    int s2 = Integer.parseInt(nd.group(2));
    if (oi >= 0) {
      return p2 - s2 >= INTEGER_DIGITS[oi];
    }
    Matcher od = DECIMAL.matcher(o);
    if (od.matches()) {
      int p1 = Integer.parseInt(od.group(1));
      int s1 = Integer.parseInt(od.group(2));
      return s2 >= s1 && p2 - s2 >= p1 - s1;
    }
    return false;
  }

  /** Lower case, no blanks; Spark's aliases (integer, long, short, byte, real) to their SQL names. */
  static String normalize(String type) {
    String t = type.replaceAll("\\s+", "").toLowerCase(Locale.ROOT);
    return switch (t) {
      case "integer" -> "int";
      case "long" -> "bigint";
      case "short" -> "smallint";
      case "byte" -> "tinyint";
      case "real" -> "float";
      case "decimal" -> "decimal(10,0)";
      default -> t.startsWith("numeric(") ? "decimal(" + t.substring(8) : t;
    };
  }
}
