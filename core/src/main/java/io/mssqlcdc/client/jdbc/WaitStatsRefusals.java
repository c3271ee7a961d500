package io.mssqlcdc.client.jdbc;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The logins this JVM found refused {@code sys.dm_exec_session_wait_stats} (issue 26 item 10):
 * the facts column {@code network_wait_ms} needs VIEW SERVER PERFORMANCE STATE on SQL Server
 * 2022+ (VIEW SERVER STATE before), an optional grant. Without it every range's reader would send
 * two probes that fail; after the first refusal no client of the same login asks again in this
 * JVM (an executor), and the refusal is logged once per login, at INFO.
 */
final class WaitStatsRefusals {
  private static final Logger LOG = LoggerFactory.getLogger(WaitStatsRefusals.class);
  private static final Set<String> REFUSED = ConcurrentHashMap.newKeySet();

  private WaitStatsRefusals() {}

  /** Whether {@code login} (null: none known) was refused already. */
  static boolean refused(String login) {
    return login != null && REFUSED.contains(login);
  }

  /** {@code login} was refused: remembered, and said once. */
  static void refuse(String login, String serverMessage) {
    if (login == null || REFUSED.add(login)) {
      LOG.info("mssql_cdc: network_wait_ms stays empty: SQL Server refused sys.dm_exec_session_wait_stats ({});"
          + " GRANT VIEW SERVER PERFORMANCE STATE (SQL Server 2022+; VIEW SERVER STATE before) to fill it."
          + " Not asked again{}", serverMessage, login == null ? " by this client" : " in this JVM for this login");
    }
  }
}
