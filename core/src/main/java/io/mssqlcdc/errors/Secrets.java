package io.mssqlcdc.errors;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Masks secrets in text that may reach a log line, an exception message, the Spark UI or a
 * facts row. Covers both connection-string styles this library accepts: JDBC
 * ({@code jdbc:sqlserver://h;user=u;password=p}) and the ODBC-style keyword string of the
 * reference implementation ({@code Server=h;UID=u;PWD=p}), including brace-quoted values
 * ({@code PWD={a;b}}c}}}).
 */
public final class Secrets {
  /** What a masked value reads as. */
  public static final String MASK = "***";

  // keyword = value, up to the next ';' or the end; a value may be {braced} with '}}' escapes.
  private static final Pattern SECRET =
      Pattern.compile(
          "(?i)((?:password|pwd|accesstoken|access_token|keystoresecret|clientsecret|trustStorePassword|keyStorePassword|aadSecurePrincipalSecret)\\s*=\\s*)(\\{(?:[^}]|}})*}?|[^;]*)");

  private Secrets() {}

  /** {@code text} with the value of every password-like keyword replaced by {@link #MASK}. */
  public static String redact(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    Matcher m = SECRET.matcher(text);
    if (!m.find()) {
      return text;
    }
    StringBuilder sb = new StringBuilder();
    m.reset();
    while (m.find()) {
      m.appendReplacement(sb, Matcher.quoteReplacement(m.group(1) + MASK));
    }
    m.appendTail(sb);
    return sb.toString();
  }
}
