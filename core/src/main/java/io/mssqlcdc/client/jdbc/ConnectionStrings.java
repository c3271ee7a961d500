package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.errors.Secrets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Turns the {@code connectionString} option into what mssql-jdbc takes: a URL plus
 * {@link Properties}. Two spellings are accepted:
 *
 * <ul>
 *   <li>a JDBC URL ({@code jdbc:sqlserver://host:1433;databaseName=db;user=u;password=p;encrypt=true}),
 *       passed through untouched (TLS and every other property included);
 *   <li>the ODBC-style keyword string of the Python reference
 *       ({@code Server=tcp:host,1433;Database=db;UID=u;PWD={p;w}};Encrypt=yes}): keywords are
 *       matched ignoring case, values may be {@code {braced}} with {@code }}} for {@code }}, and
 *       each keyword maps to its JDBC property. A keyword with no JDBC equivalent fails, naming
 *       it (never its value).
 * </ul>
 *
 * In both cases the client adds what it relies on unless the string sets it:
 * {@code responseBuffering=adaptive} (rows stream, never materialised), {@code loginTimeout}
 * (option {@code connectTimeout}), {@code applicationName}; and it always sets
 * {@code sendStringParametersAsUnicode=true}, whatever the string says (every value is a text
 * parameter). {@link Target#toString()} masks the
 * password; so does {@link #mask}.
 */
public final class ConnectionStrings {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ConnectionStrings.class);
  /** ODBC keyword (lower case) → JDBC property; {@code null} = ignored (Driver). */
  private static final Map<String, String> KEYWORDS = keywords();

  private ConnectionStrings() {}

  /** A URL and properties ready for {@code SQLServerDriver.connect}. */
  public record Target(String url, Properties properties) {
    /** The URL and properties, password masked: safe for logs and messages. */
    @Override
    public String toString() {
      Map<String, String> shown = new java.util.TreeMap<>();
      for (String k : properties.stringPropertyNames()) {
        shown.put(k, isSecret(k) ? Secrets.MASK : properties.getProperty(k));
      }
      return Secrets.redact(url) + " " + shown;
    }
  }

  /** {@code connectionString} with every password-like value masked. */
  public static String mask(String connectionString) {
    return Secrets.redact(connectionString);
  }

  /**
   * The driver target for {@code connectionString}.
   *
   * @param connectTimeoutSeconds login timeout to set unless the string sets one, or when
   *     {@code forceTimeout} (the option was given explicitly, so it wins)
   */
  public static Target toJdbc(String connectionString, long connectTimeoutSeconds, boolean forceTimeout) {
    String cs = connectionString == null ? "" : connectionString.strip();
    Properties props = new Properties();
    String url;
    if (cs.regionMatches(true, 0, "jdbc:sqlserver:", 0, "jdbc:sqlserver:".length())) {
      url = cs;
      int semi = cs.indexOf(';');
      if (semi >= 0) {
        // only to know which properties the URL sets itself
        parse(cs.substring(semi + 1)).forEach(props::setProperty);
      }
      Properties extra = new Properties();
      addDefaults(extra, props, connectTimeoutSeconds, forceTimeout);
      return new Target(url, extra);
    }
    if (cs.regionMatches(true, 0, "jdbc:", 0, 5)) {
      throw CdcErrors.invalidConnectionString(cs.substring(0, Math.min(cs.length(), cs.indexOf(':', 5) + 1)),
          "only SQL Server URLs (jdbc:sqlserver://...) are supported");
    }
    Map<String, String> odbc = parse(cs);
    String server = null;
    for (Map.Entry<String, String> e : odbc.entrySet()) {
      String key = e.getKey();
      if (!KEYWORDS.containsKey(key)) {
        throw CdcErrors.invalidConnectionString(key, "no JDBC equivalent is known for it (known: "
            + String.join(", ", KEYWORDS.keySet()) + ")");
      }
      String prop = KEYWORDS.get(key);
      if (prop == null) {
        continue;
      }
      if (prop.equals("serverName")) {
        server = e.getValue();
        continue;
      }
      props.setProperty(prop, value(prop, key, e.getValue()));
    }
    if (server == null || server.isBlank()) {
      throw CdcErrors.invalidConnectionString("Server", "it is missing (e.g. Server=tcp:myhost,1433)");
    }
    url = url(server);
    addDefaults(props, props, connectTimeoutSeconds, forceTimeout);
    return new Target(url, props);
  }

  /** {@code jdbc:sqlserver://host[\instance][:port]} from an ODBC {@code Server} value. */
  static String url(String server) {
    String s = server.strip();
    if (s.regionMatches(true, 0, "tcp:", 0, 4)) {
      s = s.substring(4);
    }
    String port = null;
    int comma = s.lastIndexOf(',');
    if (comma >= 0) {
      port = s.substring(comma + 1).strip();
      s = s.substring(0, comma).strip();
      if (!port.matches("\\d{1,5}")) {
        throw CdcErrors.invalidConnectionString("Server", "the port after ',' must be a number, not '" + port + "'");
      }
    }
    if (s.isEmpty() || s.contains(";") || s.contains("/")) {
      throw CdcErrors.invalidConnectionString("Server", "expected host, host,port or host\\instance, not '" + server + "'");
    }
    return "jdbc:sqlserver://" + s + (port == null ? "" : ":" + port) + ";";
  }

  private static String value(String prop, String keyword, String v) {
    String s = v.strip();
    return switch (prop) {
      case "encrypt" -> switch (s.toLowerCase(Locale.ROOT)) {
        case "yes", "true", "mandatory", "1" -> "true";
        case "no", "false", "optional", "0" -> "false";
        case "strict" -> "strict";
        default -> throw CdcErrors.invalidConnectionString(keyword, "expected yes, no, mandatory, optional or strict");
      };
      case "trustServerCertificate", "multiSubnetFailover", "integratedSecurity" -> switch (s.toLowerCase(Locale.ROOT)) {
        case "yes", "true", "1", "sspi" -> "true";
        case "no", "false", "0" -> "false";
        default -> throw CdcErrors.invalidConnectionString(keyword, "expected yes or no");
      };
      case "loginTimeout" -> {
        if (!s.matches("\\d{1,6}")) {
          throw CdcErrors.invalidConnectionString(keyword, "expected a number of seconds");
        }
        yield s;
      }
      default -> v;
    };
  }

  private static void addDefaults(Properties target, Properties given, long timeout, boolean force) {
    if (force || !has(given, "loginTimeout")) {
      target.setProperty("loginTimeout", Long.toString(timeout));
    }
    if (!has(given, "responseBuffering")) {
      target.setProperty("responseBuffering", "adaptive");
    }
    if (!has(given, "applicationName")) {
      target.setProperty("applicationName", "mssql-cdc-spark");
    }
    // Every value crosses as a text parameter (LSNs, key bounds, instance and zone names): as varchar in
    // the database's code page, non-ASCII names and nvarchar bounds would be mangled. Forced; the
    // Properties win over the URL's own setting (mssql-jdbc: API arguments, then Properties, then URL).
    String unicode = value(given, "sendStringParametersAsUnicode");
    if (unicode != null && !unicode.strip().equalsIgnoreCase("true")) {
      LOG.warn("mssql_cdc: ignoring sendStringParametersAsUnicode={} in the connection string: the connector sends"
          + " every parameter as Unicode (non-ASCII names and nvarchar key bounds would be mangled otherwise)", unicode);
    }
    target.setProperty("sendStringParametersAsUnicode", "true");
  }

  private static String value(Properties p, String name) {
    for (String k : p.stringPropertyNames()) {
      if (k.equalsIgnoreCase(name)) {
        return p.getProperty(k);
      }
    }
    return null;
  }

  private static boolean has(Properties p, String name) {
    for (String k : p.stringPropertyNames()) {
      if (k.equalsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }

  static boolean isSecret(String property) {
    String p = property.toLowerCase(Locale.ROOT);
    return p.contains("password") || p.contains("secret") || p.equals("accesstoken");
  }

  /**
   * {@code key=value;...} with {@code {braced}} values ({@code }}} escapes {@code }}); keys lower
   * case and stripped. Later duplicates win, as in ODBC.
   */
  static Map<String, String> parse(String s) {
    Map<String, String> out = new LinkedHashMap<>();
    int i = 0;
    while (i < s.length()) {
      int eq = s.indexOf('=', i);
      int semi = s.indexOf(';', i);
      if (eq < 0 || (semi >= 0 && semi < eq)) {
        String rest = (semi < 0 ? s.substring(i) : s.substring(i, semi)).strip();
        if (!rest.isEmpty()) {
          throw CdcErrors.invalidConnectionString(rest, "expected keyword=value");
        }
        i = semi < 0 ? s.length() : semi + 1;
        continue;
      }
      String key = s.substring(i, eq).strip().toLowerCase(Locale.ROOT);
      int j = eq + 1;
      while (j < s.length() && s.charAt(j) == ' ') {
        j++;
      }
      StringBuilder value = new StringBuilder();
      if (j < s.length() && s.charAt(j) == '{') {
        j++;
        boolean closed = false;
        while (j < s.length()) {
          char c = s.charAt(j++);
          if (c == '}') {
            if (j < s.length() && s.charAt(j) == '}') {
              value.append('}');
              j++;
            } else {
              closed = true;
              break;
            }
          } else {
            value.append(c);
          }
        }
        if (!closed) {
          throw CdcErrors.invalidConnectionString(key, "a value opened with '{' is not closed with '}'");
        }
        int next = s.indexOf(';', j);
        i = next < 0 ? s.length() : next + 1;
      } else {
        int next = s.indexOf(';', j);
        value.append(next < 0 ? s.substring(j) : s.substring(j, next));
        i = next < 0 ? s.length() : next + 1;
      }
      if (key.isEmpty()) {
        throw CdcErrors.invalidConnectionString("", "a keyword is empty before '='");
      }
      out.put(key, value.toString());
    }
    return out;
  }

  private static Map<String, String> keywords() {
    Map<String, String> m = new LinkedHashMap<>();
    for (String k : new String[] {"server", "address", "addr", "data source"}) {
      m.put(k, "serverName");
    }
    m.put("database", "databaseName");
    m.put("initial catalog", "databaseName");
    m.put("uid", "user");
    m.put("user id", "user");
    m.put("user", "user");
    m.put("pwd", "password");
    m.put("password", "password");
    m.put("encrypt", "encrypt");
    m.put("trustservercertificate", "trustServerCertificate");
    m.put("hostnameincertificate", "hostNameInCertificate");
    m.put("servercertificate", "serverCertificate");
    m.put("connection timeout", "loginTimeout");
    m.put("connect timeout", "loginTimeout");
    m.put("logintimeout", "loginTimeout");
    m.put("authentication", "authentication");
    m.put("applicationintent", "applicationIntent");
    m.put("multisubnetfailover", "multiSubnetFailover");
    m.put("app", "applicationName");
    m.put("application name", "applicationName");
    m.put("wsid", "workstationID");
    m.put("workstation id", "workstationID");
    m.put("trusted_connection", "integratedSecurity");
    m.put("failover_partner", "failoverPartner");
    m.put("driver", null);
    return m;
  }
}
