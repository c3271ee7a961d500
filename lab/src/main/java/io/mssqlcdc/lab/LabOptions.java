package io.mssqlcdc.lab;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The lab's command line: {@code <command> [--name value]...}. Every option is declared in
 * {@link #KNOWN}; a bad value fails naming the option, the value and what is accepted.
 */
final class LabOptions {
  /** Option → one-line help. */
  static final Map<String, String> KNOWN = known();

  static final List<String> COMMANDS = List.of("setup", "seed", "stream", "bulk", "long-tx");

  final String command;
  private final Map<String, String> values;

  private LabOptions(String command, Map<String, String> values) {
    this.command = command;
    this.values = values;
  }

  static LabOptions parse(String[] args, Map<String, String> env) {
    if (args.length == 0) {
      throw new IllegalArgumentException("Missing command: one of " + String.join(", ", COMMANDS) + ". " + usage());
    }
    String command = args[0].toLowerCase(Locale.ROOT);
    if (!COMMANDS.contains(command)) {
      throw new IllegalArgumentException("Unknown command '" + args[0] + "': use one of " + String.join(", ", COMMANDS) + ".");
    }
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 1; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException("Unexpected argument '" + a + "': options look like --name value.");
      }
      String name = a.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      if (!KNOWN.containsKey(name)) {
        throw new IllegalArgumentException("Unknown option '--" + name + "'. Known: --" + String.join(", --", KNOWN.keySet()) + ".");
      }
      if (value == null) {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("Option '--" + name + "' needs a value.");
        }
        value = args[++i];
      }
      values.put(name, value);
    }
    if (!values.containsKey("url") && env.get("MSSQL_CDC_LAB_URL") != null) {
      values.put("url", env.get("MSSQL_CDC_LAB_URL"));
    }
    LabOptions o = new LabOptions(command, values);
    o.validate();
    return o;
  }

  private void validate() {
    url();
    database();
    seed();
    rows();
    tps();
    duration();
    mix();
    batch();
    hold();
  }

  /** Connection string (JDBC URL or ODBC keywords), login with rights to create the database. */
  String url() {
    String u = values.get("url");
    if (u == null || u.isBlank()) {
      throw new IllegalArgumentException("Option '--url' is required (or set MSSQL_CDC_LAB_URL), e.g. "
          + "jdbc:sqlserver://localhost:1433;user=sa;password=...;encrypt=true;trustServerCertificate=true");
    }
    return u;
  }

  String database() {
    String d = values.getOrDefault("database", "cdc_lab");
    if (!d.matches("[A-Za-z_][A-Za-z0-9_]{0,99}")) {
      throw new IllegalArgumentException("Option '--database' must be letters, digits and '_' (starting with a letter or '_'), not '" + d + "'.");
    }
    return d;
  }

  long seed() {
    return longValue("seed", 42L, Long.MIN_VALUE);
  }

  int rows() {
    return (int) longValue("rows", 10_000L, 1);
  }

  int tps() {
    return (int) longValue("tps", 20L, 1);
  }

  int batch() {
    return (int) longValue("batch", 1_000L, 1);
  }

  Duration duration() {
    return durationValue("duration", Duration.ofMinutes(1));
  }

  Duration hold() {
    return durationValue("hold", Duration.ofSeconds(30));
  }

  Mix mix() {
    return Mix.parse(values.getOrDefault("mix", "insert=50,update=40,delete=10"));
  }

  Optional<String> raw(String name) {
    return Optional.ofNullable(values.get(name));
  }

  private long longValue(String name, long dflt, long min) {
    String v = values.get(name);
    if (v == null) {
      return dflt;
    }
    try {
      long n = Long.parseLong(v.strip());
      if (n >= min) {
        return n;
      }
    } catch (NumberFormatException e) {
      // message below
    }
    throw new IllegalArgumentException("Option '--" + name + "' must be an integer" + (min > Long.MIN_VALUE ? " >= " + min : "")
        + ", not '" + v + "'.");
  }

  private Duration durationValue(String name, Duration dflt) {
    String v = values.get(name);
    if (v == null) {
      return dflt;
    }
    String s = v.strip().toLowerCase(Locale.ROOT);
    try {
      if (s.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
      }
      char unit = s.charAt(s.length() - 1);
      long n = Character.isDigit(unit) ? Long.parseLong(s) : Long.parseLong(s.substring(0, s.length() - 1));
      Duration d = switch (unit) {
        case 's' -> Duration.ofSeconds(n);
        case 'm' -> Duration.ofMinutes(n);
        case 'h' -> Duration.ofHours(n);
        default -> Character.isDigit(unit) ? Duration.ofSeconds(n) : null;
      };
      if (d != null && !d.isNegative() && !d.isZero()) {
        return d;
      }
    } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
      // message below
    }
    throw new IllegalArgumentException("Option '--" + name + "' must be a positive duration such as 90, 90s, 5m or 1h, not '" + v + "'.");
  }

  static String usage() {
    StringBuilder sb = new StringBuilder("Usage: lab <" + String.join("|", COMMANDS) + "> [options]\n");
    KNOWN.forEach((k, v) -> sb.append("  --").append(k).append("  ").append(v).append('\n'));
    return sb.toString();
  }

  private static Map<String, String> known() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("url", "connection string (JDBC URL or Server=...;UID=...;PWD=...), or env MSSQL_CDC_LAB_URL");
    m.put("database", "database to create and use (default cdc_lab)");
    m.put("seed", "random seed; the same seed replays the same workload (default 42)");
    m.put("rows", "seed/bulk: rows to write (default 10000)");
    m.put("batch", "seed/bulk: rows per transaction (default 1000)");
    m.put("tps", "stream: transactions per second (default 20)");
    m.put("duration", "stream: how long to run, e.g. 90s, 5m (default 1m)");
    m.put("mix", "stream: operation weights, e.g. insert=50,update=40,delete=10");
    m.put("hold", "long-tx: how long the transaction stays open (default 30s)");
    return m;
  }
}
