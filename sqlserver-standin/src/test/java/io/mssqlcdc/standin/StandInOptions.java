package io.mssqlcdc.standin;

import java.util.Set;
import javax.net.ssl.SSLContext;

/**
 * How the stand-in presents itself: login, database, the server properties the client probes,
 * and the permissions and capabilities that decide its error paths.
 *
 * @param database the database name (ENVCHANGE, {@code DB_NAME()}, error texts)
 * @param user the login the stand-in accepts; {@code password} its password (anything else: error 18456)
 * @param databaseUser what {@code USER_NAME()} returns
 * @param sqlServer2022 whether the version probe (Q1) says SQL Server 2022+ (else the client reads a fixed offset)
 * @param networkWaitMs the session's ASYNC_NETWORK_IO wait (Q16), or -1 for no row
 * @param deniedChangeTables capture instances whose change table the login may not read (error 229)
 * @param changeTablesHaveCommandId false for builds whose change tables lack {@code __$command_id} (error 207)
 * @param snapshotIsolationAllowed false: snapshot reads fail with error 3952
 * @param collation the database collation: of character columns in {@code sys.columns}, and the rule names resolve
 *     by (exact unless {@code _CI})
 * @param tls the server's TLS context (PRELOGIN ENCRYPTION), or null: encryption not supported
 */
public record StandInOptions(String database, String user, String password, String databaseUser, boolean sqlServer2022,
    long networkWaitMs, Set<String> deniedChangeTables, boolean changeTablesHaveCommandId, boolean snapshotIsolationAllowed,
    String collation, SSLContext tls) {

  public StandInOptions {
    deniedChangeTables = Set.copyOf(deniedChangeTables);
  }

  public static StandInOptions defaults() {
    return new StandInOptions("cdc_standin", "cdc_reader", "Stand-in-Pa55word", "cdc_reader", true, -1, Set.of(), true,
        true, "Latin1_General_100_BIN2", null);
  }

  public StandInOptions withTls(SSLContext context) {
    return new StandInOptions(database, user, password, databaseUser, sqlServer2022, networkWaitMs, deniedChangeTables,
        changeTablesHaveCommandId, snapshotIsolationAllowed, collation, context);
  }

  public StandInOptions withSqlServer2022(boolean v) {
    return new StandInOptions(database, user, password, databaseUser, v, networkWaitMs, deniedChangeTables,
        changeTablesHaveCommandId, snapshotIsolationAllowed, collation, tls);
  }

  public StandInOptions withNetworkWaitMs(long v) {
    return new StandInOptions(database, user, password, databaseUser, sqlServer2022, v, deniedChangeTables,
        changeTablesHaveCommandId, snapshotIsolationAllowed, collation, tls);
  }

  public StandInOptions withDeniedChangeTables(Set<String> v) {
    return new StandInOptions(database, user, password, databaseUser, sqlServer2022, networkWaitMs, v,
        changeTablesHaveCommandId, snapshotIsolationAllowed, collation, tls);
  }

  public StandInOptions withChangeTablesHaveCommandId(boolean v) {
    return new StandInOptions(database, user, password, databaseUser, sqlServer2022, networkWaitMs, deniedChangeTables,
        v, snapshotIsolationAllowed, collation, tls);
  }

  public StandInOptions withSnapshotIsolationAllowed(boolean v) {
    return new StandInOptions(database, user, password, databaseUser, sqlServer2022, networkWaitMs, deniedChangeTables,
        changeTablesHaveCommandId, v, collation, tls);
  }

  public StandInOptions withCollation(String v) {
    return new StandInOptions(database, user, password, databaseUser, sqlServer2022, networkWaitMs, deniedChangeTables,
        changeTablesHaveCommandId, snapshotIsolationAllowed, v, tls);
  }

  @Override
  public String toString() {
    return "StandInOptions[database=" + database + ", user=" + user + ", password=***]";
  }
}
