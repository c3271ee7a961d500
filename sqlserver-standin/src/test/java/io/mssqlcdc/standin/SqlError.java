package io.mssqlcdc.standin;

/**
 * An error the stand-in raises as SQL Server would: an ERROR token with SQL Server's error
 * number, state and class (severity), so mssql-jdbc builds the same {@code SQLServerException}
 * (error code, SQLState, message) it would build against a real server.
 */
public final class SqlError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int number;
  private final int state;
  private final int severity;

  public SqlError(int number, int state, int severity, String message) {
    super(message, null, false, false);
    this.number = number;
    this.state = state;
    this.severity = severity;
  }

  public int number() {
    return number;
  }

  public int state() {
    return state;
  }

  public int severity() {
    return severity;
  }

  /** Whether SQL Server ends the session after this error (class 20 and above). */
  public boolean fatal() {
    return severity >= 20;
  }

  // ---- the errors the stand-in raises, with SQL Server's texts, states and classes ----

  public static SqlError invalidObject(String name) {
    return new SqlError(208, 1, 16, "Invalid object name '" + name + "'.");
  }

  public static SqlError invalidColumn(String name) {
    return new SqlError(207, 1, 16, "Invalid column name '" + name + "'.");
  }

  public static SqlError unknownTimeZone(String zone) {
    return new SqlError(9820, 1, 16, "The time zone parameter '" + zone + "' provided to AT TIME ZONE clause is invalid.");
  }

  public static SqlError snapshotNotAllowed(String database) {
    return new SqlError(3952, 1, 16, "Snapshot isolation transaction failed accessing database '" + database
        + "' because snapshot isolation is not allowed in this database. Use ALTER DATABASE to allow snapshot isolation.");
  }

  /** The error of a well-known number, with the text SQL Server sends (object names filled in where they apply). */
  public static SqlError of(int number, String database, String object) {
    return switch (number) {
      case 1205 -> new SqlError(1205, 51, 13, "Transaction (Process ID 53) was deadlocked on lock resources with another"
          + " process and has been chosen as the deadlock victim. Rerun the transaction.");
      case 1222 -> new SqlError(1222, 56, 16, "Lock request time out period exceeded.");
      case 4060 -> new SqlError(4060, 1, 11, "Cannot open database \"" + database + "\" requested by the login. The login failed.");
      case 40613 -> new SqlError(40613, 1, 17, "Database '" + database + "' on server 'standin' is not currently available."
          + "  Please retry the connection later.  If the problem persists, contact customer support, and provide them the"
          + " session tracing ID of '00000000-0000-0000-0000-000000000000'.");
      case 18456 -> new SqlError(18456, 1, 14, "Login failed for user '" + object + "'.");
      case 229 -> new SqlError(229, 5, 14, "The SELECT permission was denied on the object '" + object + "', database '"
          + database + "', schema 'cdc'.");
      case 230 -> new SqlError(230, 1, 14, "The SELECT permission was denied on the column 'id' of the object '" + object
          + "', database '" + database + "', schema 'dbo'.");
      case 300 -> new SqlError(300, 1, 14, "VIEW SERVER PERFORMANCE STATE permission was denied on object 'server',"
          + " database 'master'.");
      case 596 -> new SqlError(596, 1, 21, "Cannot continue the execution because the session is in the kill state.");
      default -> new SqlError(number, 1, 16, "Error " + number + " raised by the stand-in's fault plan.");
    };
  }
}
