package io.mssqlcdc.options;

import io.mssqlcdc.errors.CdcErrors;

/**
 * Validation of names that end up inside T-SQL ({@code cdc.[<ci>_CT]}, {@code [schema].[table]},
 * {@code [column]}). A name is accepted when it is non-empty, at most 128 characters (100 for a
 * capture instance) and free of control characters; any letters are allowed. The SQL client
 * bracket-quotes accepted names with {@link #quote(String)}, which doubles {@code ]}.
 */
public final class Identifiers {
  private Identifiers() {}

  /** A capture instance name: non-empty, ≤ 100 characters, no {@code ]}, no control character. */
  public static String captureInstance(String name) {
    String v = check("capture instance", name, 100);
    if (v.indexOf(']') >= 0) {
      throw CdcErrors.invalidIdentifier("capture instance", name, "']' is not allowed in a capture instance name");
    }
    return v;
  }

  /** A schema, table or column name: non-empty, ≤ 128 characters, no control character. */
  public static String name(String kind, String name) {
    return check(kind, name, 128);
  }

  /** {@code [name]} with {@code ]} doubled, after {@link #name} validated it. */
  public static String quote(String name) {
    return "[" + name("identifier", name).replace("]", "]]") + "]";
  }

  private static String check(String kind, String name, int max) {
    if (name == null || name.isEmpty()) {
      throw CdcErrors.invalidIdentifier(kind, String.valueOf(name), "it must not be empty");
    }
    if (name.length() > max) {
      throw CdcErrors.invalidIdentifier(kind, name, "it is longer than " + max + " characters");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (Character.isISOControl(c) || Character.getType(c) == Character.FORMAT && c != '\u200d') {
        throw CdcErrors.invalidIdentifier(kind, name, "it holds a control character at position " + i);
      }
    }
    return name;
  }
}
