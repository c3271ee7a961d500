package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.errors.CdcErrors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code sourceTimeZone=auto}: asks the server which clock it keeps (reference §9). Runs once per
 * client, on the driver only: executors receive the result in the {@code sourceTimeZone} option.
 *
 * <ol>
 *   <li>{@link CdcSql#VERSION_PROBE}: 1 on SQL Server 2022+ and Azure SQL. A version test and not
 *       a try, because {@code CURRENT_TIMEZONE_ID()} fails to compile on older servers even in a
 *       branch that is not taken.
 *   <li>1 → {@link CdcSql#ZONE_NAME} ({@code CURRENT_TIMEZONE_ID()}), validated like the option.
 *   <li>0 → {@link CdcSql#FIXED_OFFSET}: today's offset, with a warning (unsound across a daylight
 *       saving change: set {@code sourceTimeZone} on such servers).
 * </ol>
 */
final class ClockDetector {
  private static final Logger LOG = LoggerFactory.getLogger(ClockDetector.class);

  /** Runs one scalar query and returns its value as text ({@code null} for SQL NULL). */
  @FunctionalInterface
  interface Scalars {
    String scalar(String sql);
  }

  private ClockDetector() {}

  static ServerClock detect(Scalars server) {
    if ("1".equals(server.scalar(CdcSql.VERSION_PROBE))) {
      String name = server.scalar(CdcSql.ZONE_NAME);
      try {
        return ServerClock.parse(name);
      } catch (CdcConfigException e) {
        throw CdcErrors.invalidOption("sourceTimeZone", "auto", "a zone SQL Server names in plain characters",
            "CURRENT_TIMEZONE_ID() returned '" + CdcErrors.printable(name) + "': set sourceTimeZone explicitly");
      }
    }
    String offset = server.scalar(CdcSql.FIXED_OFFSET);
    int minutes = Integer.parseInt(offset.strip());
    ServerClock clock = ServerClock.fixedOffset(minutes);
    if (clock.kind() != ServerClock.Kind.UTC) {
      LOG.warn("SQL Server before 2022 names no time zone: converting commit times with today's offset {}."
          + " Across a daylight-saving change this is off by the change; set the option sourceTimeZone to the"
          + " server's Windows zone name (e.g. 'E. South America Standard Time') to convert exactly.", clock);
    }
    return clock;
  }
}
