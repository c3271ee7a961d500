package io.mssqlcdc.client.jdbc;

import java.util.ArrayList;
import java.util.List;

/**
 * A T-SQL text with its {@code ?} parameters, in order. Every parameter is text: LSNs as
 * {@code 0x} hex (converted server-side with {@code CONVERT(binary(10), ?, 1)}), key bounds as the
 * text a {@code CAST} reads back. Values never reach the text itself.
 */
public record SqlText(String sql, List<String> params) {
  public SqlText {
    params = List.copyOf(params);
    int marks = countMarks(sql);
    if (marks != params.size()) {
      throw new IllegalStateException("SQL has " + marks + " parameter marks but " + params.size() + " values: " + sql);
    }
  }

  /**
   * The {@code ?} marks outside {@code [..]}, {@code '..'} and {@code ".."} (doubled closing
   * characters escape), as mssql-jdbc scans them: a quoted name such as {@code [a?b]} holds none.
   */
  static int countMarks(String sql) {
    int n = 0;
    int i = 0;
    while (i < sql.length()) {
      char c = sql.charAt(i++);
      if (c == '?') {
        n++;
      } else if (c == '[' || c == '\'' || c == '"') {
        char close = c == '[' ? ']' : c;
        while (i < sql.length()) {
          if (sql.charAt(i++) == close) {
            if (i < sql.length() && sql.charAt(i) == close) {
              i++;
            } else {
              break;
            }
          }
        }
      }
    }
    return n;
  }

  public static SqlText of(String sql, String... params) {
    return new SqlText(sql, List.of(params));
  }

  /** This text followed by {@code other}, parameters concatenated. */
  public SqlText then(String separator, SqlText other) {
    List<String> p = new ArrayList<>(params);
    p.addAll(other.params);
    return new SqlText(sql + separator + other.sql, p);
  }
}
