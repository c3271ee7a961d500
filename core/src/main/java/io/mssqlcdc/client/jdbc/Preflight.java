package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.errors.CdcErrorCode;
import io.mssqlcdc.errors.CdcErrors;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks, before a stream starts, that the source can stream; each failure names the T-SQL that
 * fixes it:
 *
 * <ol>
 *   <li>CDC enabled on the database ({@link CdcSql#CDC_ENABLED}) → {@code EXEC sys.sp_cdc_enable_db}.
 *   <li>The capture instance listed for this login → {@code sys.sp_cdc_enable_table ...} and the
 *       change-table GRANT.
 *   <li>Its low watermark non-zero (capture processed its creation) → start the capture job.
 *   <li>Capture alive: {@code sys.fn_cdc_get_max_lsn()} not NULL (else it never ran: fails), and
 *       its mapping entry not older than {@link #STALE} on the server clock (else a warning: a
 *       stopped Agent looks like this, but so may a quiet database without heartbeat).
 * </ol>
 */
final class Preflight {
  private static final Logger LOG = LoggerFactory.getLogger(Preflight.class);

  /** An entry this old on the server clock suggests capture is not running. */
  static final Duration STALE = Duration.ofMinutes(15);

  /** Runs one statement and returns its first row as text (nulls for no row). */
  @FunctionalInterface
  interface Rows {
    String[] row(String sql);
  }

  private final CdcClient client;
  private final Rows server;

  Preflight(CdcClient client, Rows server) {
    this.client = client;
    this.server = server;
  }

  void check(String captureInstance) {
    String[] db = server.row(CdcSql.CDC_ENABLED);
    String database = db[1] == null ? "(current)" : db[1];
    if (!("1".equals(db[0]) || "true".equalsIgnoreCase(db[0]))) {
      throw CdcErrors.cdcNotEnabled(database);
    }
    try {
      client.captureInstances(captureInstance);
    } catch (CdcConfigException e) {
      if (e.code() == CdcErrorCode.CAPTURE_INSTANCE_NOT_FOUND) {
        throw CdcErrors.captureInstanceMissing(captureInstance, e.getMessage());
      }
      throw e;
    }
    client.minLsn(captureInstance);
    String[] age = server.row(CdcSql.CAPTURE_AGE_SECONDS);
    if (age[0] == null) {
      throw CdcErrors.captureNotRunning(database, "sys.fn_cdc_get_max_lsn() is NULL: capture has never written to it");
    }
    long seconds = Long.parseLong(age[0].strip());
    if (seconds > STALE.toSeconds()) {
      LOG.warn("{}", CdcErrors.captureNotRunning(database, "its newest cdc.lsn_time_mapping entry is " + seconds
          + " s old (a quiet database without sql/heartbeat.sql can look like this too)").getMessage());
    }
  }
}
