package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.errors.Secrets;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Set;

/**
 * Classifies a failed statement by SQL Server error number ({@link SQLException#getErrorCode()})
 * and SQLState, never by message text (messages are localised and change between versions). It
 * looks at the whole chain: the exception, its {@code getNextException()}s and causes.
 */
public final class SqlServerErrors {
  /** What the client does about a failure. */
  public enum Kind {
    /** Retry on a new connection (driver side); a task retry on executors. */
    TRANSIENT,
    /** The login lacks a right: name the GRANT. */
    PERMISSION,
    /** An object does not exist or is invisible to the login (208: e.g. a change table). */
    MISSING_OBJECT,
    /** A column does not exist (207: e.g. {@code __$command_id} on old builds). */
    INVALID_COLUMN,
    /** Login refused (18456): wrong user, password or database; retrying does not help. */
    LOGIN_FAILED,
    /**
     * {@code AT TIME ZONE} does not know the zone name (9820): the {@code sourceTimeZone} option
     * names a zone this server does not list in {@code sys.time_zone_info} (an IANA name, say).
     */
    UNKNOWN_TIME_ZONE,
    /** A snapshot-isolation read in a database without {@code ALLOW_SNAPSHOT_ISOLATION} (3952). */
    SNAPSHOT_NOT_ALLOWED,
    /** Anything else: fails at once. */
    OTHER
  }

  /**
   * Transient error numbers: 1205 deadlock victim, 1222 lock request timeout (only raised when
   * {@code SET LOCK_TIMEOUT} is set), 596 session killed, 64/121/233/10053/10054/10060 transport
   * resets, 6005 shutdown in progress, 4221 secondary not ready, 4060 cannot open the database at
   * login (a database in recovery or failing over: mssql-jdbc itself retries the login once, and
   * Azure SQL lists it among its transient errors; a misspelled database fails the same way, after
   * the retries, with SQL Server's text naming the database), and Azure SQL's throttling and
   * failover errors 10928, 10929, 40143, 40197, 40501, 40540, 40613, 49918, 49919, 49920.
   */
  static final Set<Integer> TRANSIENT_NUMBERS = Set.of(
      1205, 1222, 596, 64, 121, 233, 10053, 10054, 10060, 6005, 4221, 4060,
      10928, 10929, 40143, 40197, 40501, 40540, 40613, 49918, 49919, 49920);

  /** 229/230 object/column permission denied, 262 permission denied in database, 297/300 server permissions, 916 no access to the database. */
  static final Set<Integer> PERMISSION_NUMBERS = Set.of(229, 230, 262, 297, 300, 916);

  /**
   * SQLStates of connection loss ({@code 08xxx}), timeouts and serialization failure (the
   * reference's list). mssql-jdbc's query timeout is a {@link java.sql.SQLTimeoutException}
   * (SQLState HY008, which also means an explicit cancel): {@link #classify} takes it by type.
   */
  static boolean transientState(String state) {
    if (state == null) {
      return false;
    }
    String s = state.toUpperCase(Locale.ROOT);
    return s.startsWith("08") || s.equals("40001") || s.equals("HYT00") || s.equals("HYT01");
  }

  private SqlServerErrors() {}

  /** The kind of {@code e}: the first link of the chain that decides. */
  public static Kind classify(SQLException e) {
    if (certificateRejected(e)) {
      // mssql-jdbc reports a TLS certificate it does not trust as SQLState 08S01 (connection
      // failure); retrying cannot fix it: fail at once with the driver's text (trustServerCertificate,
      // hostNameInCertificate, trustStore)
      return Kind.OTHER;
    }
    Kind found = Kind.OTHER;
    for (SQLException x : chain(e)) {
      // JDBC's own type for a timeout: mssql-jdbc reports queryTimeout expiring as
      // SQLTimeoutException with SQLState HY008 (not the ODBC HYT00 the reference's drivers use)
      Kind k = x instanceof java.sql.SQLTimeoutException ? Kind.TRANSIENT : classifyOne(x.getErrorCode(), x.getSQLState());
      if (k != Kind.OTHER) {
        found = k;
        break;
      }
    }
    return found;
  }

  /** The kind of one error number + SQLState pair. */
  public static Kind classifyOne(int number, String sqlState) {
    if (number == 18456) {
      return Kind.LOGIN_FAILED;
    }
    if (PERMISSION_NUMBERS.contains(number)) {
      return Kind.PERMISSION;
    }
    if (number == 208) {
      return Kind.MISSING_OBJECT;
    }
    if (number == 207) {
      return Kind.INVALID_COLUMN;
    }
    if (number == 9820) {
      return Kind.UNKNOWN_TIME_ZONE;
    }
    if (number == 3952) {
      return Kind.SNAPSHOT_NOT_ALLOWED;
    }
    if (TRANSIENT_NUMBERS.contains(number) || transientState(sqlState)) {
      return Kind.TRANSIENT;
    }
    return Kind.OTHER;
  }

  /** Whether a certificate check failed somewhere in the cause chain of {@code e} (PKIX path, host name). */
  static boolean certificateRejected(Throwable e) {
    java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    java.util.ArrayDeque<Throwable> todo = new java.util.ArrayDeque<>();
    todo.add(e);
    while (!todo.isEmpty() && seen.size() < 50) {
      Throwable t = todo.poll();
      if (!seen.add(t)) {
        continue;
      }
      if (t instanceof java.security.cert.CertificateException || t instanceof java.security.cert.CertPathBuilderException
          || t instanceof java.security.cert.CertPathValidatorException) {
        return true;
      }
      if (t.getCause() != null) {
        todo.add(t.getCause());
      }
      if (t instanceof SQLException s && s.getNextException() != null) {
        todo.add(s.getNextException());
      }
    }
    return false;
  }

  public static boolean isTransient(SQLException e) {
    return classify(e) == Kind.TRANSIENT;
  }

  /** {@code error <n> (SQLState <s>): <message>}, password masked, for messages and logs. */
  public static String describe(SQLException e) {
    return "error " + e.getErrorCode() + " (SQLState " + e.getSQLState() + "): " + Secrets.redact(e.getMessage());
  }

  private static java.util.List<SQLException> chain(SQLException e) {
    java.util.List<SQLException> out = new java.util.ArrayList<>();
    java.util.ArrayDeque<Throwable> todo = new java.util.ArrayDeque<>();
    todo.add(e);
    while (!todo.isEmpty() && out.size() < 20) {
      Throwable t = todo.poll();
      if (t instanceof SQLException s && !out.contains(s)) {
        out.add(s);
        if (s.getNextException() != null) {
          todo.add(s.getNextException());
        }
      }
      if (t.getCause() != null && t.getCause() != t) {
        todo.add(t.getCause());
      }
    }
    return out;
  }
}
