package io.mssqlcdc.standin;

import java.util.ArrayList;
import java.util.List;

/**
 * mssql-jdbc sends a prepared statement's text with its {@code ?} marks rewritten to
 * {@code @P0, @P1, ...} (declared in sp_executesql's second parameter). The stand-in turns them
 * back into {@code ?} (outside {@code [..]}, {@code '..'} and {@code ".."}), so the text compares
 * with {@link io.mssqlcdc.client.jdbc.CdcSql}'s, and orders the values by mark.
 */
final class ParameterMarks {
  private ParameterMarks() {}

  /** The text with {@code ?} marks and the parameter values (as text) in mark order. */
  record Converted(String sql, List<String> params) {}

  static Converted toQuestionMarks(String text, List<Object> values) {
    StringBuilder sql = new StringBuilder(text.length());
    List<String> params = new ArrayList<>();
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c == '[' || c == '\'' || c == '"') {
        char close = c == '[' ? ']' : c;
        int j = i + 1;
        while (j < text.length()) {
          if (text.charAt(j) == close) {
            if (j + 1 < text.length() && text.charAt(j + 1) == close) {
              j += 2;
              continue;
            }
            break;
          }
          j++;
        }
        int end = Math.min(j + 1, text.length());
        sql.append(text, i, end);
        i = end;
      } else if (c == '@' && i + 2 < text.length() && text.charAt(i + 1) == 'P' && Character.isDigit(text.charAt(i + 2))) {
        int j = i + 2;
        while (j < text.length() && Character.isDigit(text.charAt(j))) {
          j++;
        }
        int n = Integer.parseInt(text.substring(i + 2, j));
        if (n >= values.size()) {
          throw new IllegalArgumentException("@P" + n + " but only " + values.size() + " parameter values: " + text);
        }
        Object v = values.get(n);
        params.add(v == null ? null : v instanceof byte[] b ? "0x" + java.util.HexFormat.of().withUpperCase().formatHex(b)
            : v.toString());
        sql.append('?');
        i = j;
      } else {
        sql.append(c);
        i++;
      }
    }
    return new Converted(sql.toString(), params);
  }
}
