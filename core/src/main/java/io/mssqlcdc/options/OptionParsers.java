package io.mssqlcdc.options;

import io.mssqlcdc.errors.CdcErrors;
import java.util.Locale;

/** Parsers shared by option declarations; every failure names the option and the value. */
public final class OptionParsers {
  private OptionParsers() {}

  /** {@code true/1/yes/y} and {@code false/0/no/n}, any case, blanks ignored. */
  public static boolean bool(String name, String raw) {
    String v = raw.strip().toLowerCase(Locale.ROOT);
    return switch (v) {
      case "true", "1", "yes", "y" -> true;
      case "false", "0", "no", "n" -> false;
      default -> throw CdcErrors.invalidOption(name, raw, "true or false (or 1/0, yes/no, y/n)", null);
    };
  }

  public static int positiveInt(String name, String raw, String hint) {
    try {
      int v = Integer.parseInt(raw.strip());
      if (v >= 1) {
        return v;
      }
    } catch (NumberFormatException e) {
      // fall through to the message
    }
    throw CdcErrors.invalidOption(name, raw, "a positive integer", hint);
  }

  public static long nonNegativeLong(String name, String raw, String unit) {
    try {
      long v = Long.parseLong(raw.strip());
      if (v >= 0) {
        return v;
      }
    } catch (NumberFormatException e) {
      // fall through to the message
    }
    throw CdcErrors.invalidOption(name, raw, "a non-negative integer (" + unit + ")", null);
  }

  /** {@code raw} as given, unless it is empty or only blanks. */
  public static String nonBlank(String name, String raw, String expected, String hint) {
    if (raw.isBlank()) {
      throw CdcErrors.invalidOption(name, raw, expected, hint);
    }
    return raw;
  }

  /** One of {@code allowed} (any case); returns the allowed spelling. */
  public static String oneOf(String name, String raw, String hint, String... allowed) {
    String v = raw.strip();
    for (String a : allowed) {
      if (a.equalsIgnoreCase(v)) {
        return a;
      }
    }
    throw CdcErrors.invalidOption(name, raw, "one of '" + String.join("', '", allowed) + "'", hint);
  }

  /** Levenshtein distance, for did-you-mean suggestions. */
  public static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
