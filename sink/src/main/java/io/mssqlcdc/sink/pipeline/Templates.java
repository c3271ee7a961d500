package io.mssqlcdc.sink.pipeline;

import io.mssqlcdc.errors.SinkErrors;

/**
 * Fan-out templates (reference-behaviour §18): {@code target}, {@code appId} and
 * {@code checkpoint} name one table, app id and checkpoint per stream with {@code {ci}}, replaced
 * by the capture instance. Python's {@code str.format} rules, as in the reference: {@code {{} and
 * {@code }}} are literal braces; any other placeholder, or a lone brace, is an error.
 */
final class Templates {
  private Templates() {}

  /** Checks {@code template} contains {@code {ci}} and nothing else that looks like a placeholder. */
  static void check(String name, String template) {
    if (template == null) {
      return;
    }
    expand(name, template, "x");
    if (!expand(name, template, "\u0000").contains("\u0000")) {
      throw SinkErrors.templateWithoutCi(name, template);
    }
  }

  /** {@code template} with every {@code {ci}} replaced by {@code ci}. */
  static String expand(String name, String template, String ci) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < template.length(); i++) {
      char c = template.charAt(i);
      if (c == '{') {
        if (i + 1 < template.length() && template.charAt(i + 1) == '{') {
          out.append('{');
          i++;
          continue;
        }
        int close = template.indexOf('}', i);
        if (close < 0) {
          throw SinkErrors.templatePlaceholder(name, template, template.substring(i));
        }
        String field = template.substring(i, close + 1);
        if (!field.equals("{ci}")) {
          throw SinkErrors.templatePlaceholder(name, template, field);
        }
        out.append(ci);
        i = close;
      } else if (c == '}') {
        if (i + 1 < template.length() && template.charAt(i + 1) == '}') {
          out.append('}');
          i++;
          continue;
        }
        throw SinkErrors.templatePlaceholder(name, template, "}");
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
