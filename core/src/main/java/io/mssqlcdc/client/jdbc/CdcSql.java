package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.client.KeyColumns;
import io.mssqlcdc.client.TableQuery.Isolation;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.options.Identifiers;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * Every T-SQL statement {@link SqlCdcClient} runs, in one place, each with why it has its shape.
 * They follow the shapes the Python reference verified against SQL Server 2022 (reference §20,
 * numbered Q1..Q28 there and here).
 *
 * <p>Rules all of them keep:
 *
 * <ul>
 *   <li>Values are {@code ?} parameters, never text in the statement. LSNs cross as hex text:
 *       {@code CONVERT(binary(10), ?, 1)} in, {@code CONVERT(varchar(22), x, 1)} out (style 1 is
 *       {@code 0x} + uppercase hex, fixed width, so text order is LSN order); the one exception
 *       is the change rows' own LSNs (Q12), read as {@code binary(10)} bytes, once a row. Times come out as
 *       text too ({@code CONVERT(varchar(23), x, 126)}), so no JVM time zone touches them.
 *   <li>Identifiers (capture instance, schema, table, column) are inlined only after
 *       {@link Identifiers} validated them, bracket-quoted with {@code ]} doubled. Small
 *       integers the client computed ({@code NTILE(n)}, {@code TOP (n)}, lock timeout) are
 *       inlined as numbers.
 *   <li>Metadata only through the documented procedures and functions
 *       ({@code sys.sp_cdc_help_change_data_capture}, {@code sys.sp_cdc_get_captured_columns},
 *       {@code sys.sp_cdc_get_ddl_history}, {@code sys.fn_cdc_*}); the only {@code cdc.*} tables
 *       read are the capture instance's change table (one {@code GRANT SELECT} per instance) and
 *       {@code cdc.lsn_time_mapping} (readable without a grant). Least privilege, reference §1.3
 *       invariant 11.
 * </ul>
 */
public final class CdcSql {
  private CdcSql() {}

  // ---- clock (reference §9) -----------------------------------------------------------

  /**
   * Q1. 1 on SQL Server 2022+ (major version 16) and Azure SQL Database / Managed Instance
   * (engine editions 5, 8). A version test, because {@code CURRENT_TIMEZONE_ID()} does not even
   * compile on older servers, whatever branch would run.
   */
  public static final String VERSION_PROBE =
      "SELECT CASE WHEN CAST(SERVERPROPERTY('ProductMajorVersion') AS int) >= 16"
          + " OR CAST(SERVERPROPERTY('EngineEdition') AS int) IN (5, 8) THEN 1 ELSE 0 END";

  /** Q2. The server clock's zone name (Windows name, or UTC), for {@code AT TIME ZONE}. */
  public static final String ZONE_NAME = "SELECT CURRENT_TIMEZONE_ID()";

  /** Q3. Older servers: today's offset from UTC in minutes, the best they can tell. */
  public static final String FIXED_OFFSET = "SELECT DATEPART(TZOFFSET, SYSDATETIMEOFFSET())";

  // ---- LSNs (sys.fn_cdc_*, no grant needed) ---------------------------------------------

  /** Q4. Database-wide last LSN capture processed; NULL when capture never wrote. */
  public static final String MAX_LSN = "SELECT CONVERT(varchar(22), sys.fn_cdc_get_max_lsn(), 1)";

  /**
   * Q5. The instance's low watermark. The name is a parameter (the function takes sysname).
   * 0x00.. or NULL when unknown, unreadable, or not processed by capture yet.
   */
  public static final String MIN_LSN = "SELECT CONVERT(varchar(22), sys.fn_cdc_get_min_lsn(?), 1)";

  /** Q6. Smallest LSN above the parameter. */
  public static final String INCREMENT_LSN =
      "SELECT CONVERT(varchar(22), sys.fn_cdc_increment_lsn(CONVERT(binary(10), ?, 1)), 1)";

  /** Q7. Largest LSN below the parameter. */
  public static final String DECREMENT_LSN =
      "SELECT CONVERT(varchar(22), sys.fn_cdc_decrement_lsn(CONVERT(binary(10), ?, 1)), 1)";

  /**
   * Q8 (DDL variant, first half). The last {@code cdc.lsn_time_mapping} entry at or before an
   * LSN: DDL LSNs are no commit's, so their time is the last commit's. A seek on the clustered
   * index of {@code start_lsn}.
   */
  public static final String ENTRY_AT_OR_BEFORE =
      "SELECT TOP (1) CONVERT(varchar(22), m.start_lsn, 1) FROM cdc.lsn_time_mapping m"
          + " WHERE m.start_lsn <= CONVERT(binary(10), ?, 1) ORDER BY m.start_lsn DESC";

  /**
   * Q8. The UTC commit time of the entry whose {@code start_lsn} is the parameter, as ISO 8601
   * text (style 126 drops {@code .000}; the client parses both). {@code utc} is a
   * {@link UtcConversion} expression of {@code m.tran_end_time} and {@code m.start_lsn}; its
   * parameters (fall-back drops) come first.
   */
  public static SqlText commitTime(SqlText utc, String lsnHex) {
    return SqlText.of("SELECT TOP (1) CONVERT(varchar(23), ").then("", utc).then("", SqlText.of(
        ", 126) FROM cdc.lsn_time_mapping m WHERE m.start_lsn = CONVERT(binary(10), ?, 1) ORDER BY m.start_lsn DESC",
        lsnHex));
  }

  /**
   * Q10. The n-th mapping entry after an LSN (or the last when fewer): TOP (n) of an index seek,
   * then MAX. n is a positive int the client checked, inlined so the plan can use it as a row goal.
   */
  public static String nthCommitAfter(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("n must be at least 1, not " + n);
    }
    return "SELECT CONVERT(varchar(22), MAX(t.start_lsn), 1) FROM (SELECT TOP (" + n + ") start_lsn"
        + " FROM cdc.lsn_time_mapping WHERE start_lsn > CONVERT(binary(10), ?, 1) ORDER BY start_lsn) t";
  }

  /**
   * Q10b. The mapping entries in {@code (after, upTo]}, counted up to {@code limit}: one
   * {@code COUNT_BIG} over {@code TOP (limit)} of a range seek on the clustered index, so a lagging
   * stream's progress report costs one statement, not a search of {@link #nthCommitAfter} probes
   * (each a different prepared statement). Parameters: after, upTo.
   */
  public static String commitsBetween(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, not " + limit);
    }
    return "SELECT COUNT_BIG(*) FROM (SELECT TOP (" + limit + ") start_lsn FROM cdc.lsn_time_mapping"
        + " WHERE start_lsn > CONVERT(binary(10), ?, 1) AND start_lsn <= CONVERT(binary(10), ?, 1)) t";
  }

  /**
   * Q9. The last {@code cdc.lsn_time_mapping} entry in {@code [from, to]} whose UTC commit time is
   * at or before a UTC time: {@code utc} is the expression commit times are read with
   * ({@link UtcConversion} of {@code m.tran_end_time} and {@code m.start_lsn}), so an entry
   * qualifies exactly when the time {@link #commitTime} reports for it does. A backward range
   * scan of the clustered index from {@code to} that stops at the first entry qualifying.
   *
   * <p>Not {@code sys.fn_cdc_map_time_to_lsn(N'largest less than or equal', <local time>)} (the
   * reference's Q9): it compares {@code tran_end_time} on the server clock, which a fall-back
   * sets back, so for a time in the first pass of the repeated hour it returns commits of the
   * second pass, made up to an hour later; and its {@code datetime} parameter rounds to 1/300 s.
   * Parameters: from, to, those of {@code utc}, the time ({@code yyyy-MM-ddTHH:mm:ss.SSS}, UTC).
   */
  public static SqlText lastEntryAtOrBefore(SqlText utc, String fromHex, String toHex, String utcTime) {
    return entryAtOrBefore(utc, fromHex, toHex, utcTime, " DESC");
  }

  /**
   * Q9b. Like {@link #lastEntryAtOrBefore}, the first such entry in LSN order (a forward scan
   * from {@code from}): where a named zone's fall-back correction starts when no entry is 3
   * hours older than the time.
   */
  public static SqlText firstEntryAtOrBefore(SqlText utc, String fromHex, String toHex, String utcTime) {
    return entryAtOrBefore(utc, fromHex, toHex, utcTime, "");
  }

  private static SqlText entryAtOrBefore(SqlText utc, String fromHex, String toHex, String utcTime, String direction) {
    return SqlText.of("SELECT TOP (1) CONVERT(varchar(22), m.start_lsn, 1) FROM cdc.lsn_time_mapping m"
        + " WHERE m.start_lsn BETWEEN CONVERT(binary(10), ?, 1) AND CONVERT(binary(10), ?, 1) AND ", fromHex, toHex)
        .then("", utc)
        .then("", SqlText.of(" <= CONVERT(datetime2(3), ?, 126) ORDER BY m.start_lsn" + direction, utcTime));
  }

  // ---- UTC conversion helpers (reference §9) ---------------------------------------------

  /**
   * Q13. One offset for a whole LSN range, when it provably holds: the range spans under 7 days
   * and the offset 3 hours before its first commit equals the offset 3 hours after its last (no
   * daylight-saving change in between, hence no repeated hour). Then every row converts with one
   * {@code DATEADD}: row-by-row {@code AT TIME ZONE} cut throughput from ~28k to ~10.5k rows/s in
   * the reference's lab. NULL otherwise (or for an empty range).
   */
  public static String rangeOffset(ServerClock zone) {
    String first = UtcConversion.offsetAt(zone, "DATEADD(hour, -" + UtcConversion.WINDOW_HOURS + ", MIN(tran_end_time))");
    String last = UtcConversion.offsetAt(zone, "DATEADD(hour, " + UtcConversion.WINDOW_HOURS + ", MAX(tran_end_time))");
    return "SELECT CASE WHEN DATEDIFF(day, MIN(tran_end_time), MAX(tran_end_time)) < 7 AND " + first + " = " + last
        + " THEN " + last + " END FROM cdc.lsn_time_mapping"
        + " WHERE start_lsn BETWEEN CONVERT(binary(10), ?, 1) AND CONVERT(binary(10), ?, 1)";
  }

  /**
   * Q14. The fall-back drops that can affect an LSN range: over {@code cdc.lsn_time_mapping} in
   * LSN order, from the last entry at least 3 hours before the range's first commit (else from
   * 0x00..) to the range end, the entries more than 1 minute before their predecessor
   * ({@code LAG}) at a repeated local time. Returns {@code (l, t)}: LSN and local time (style 126).
   * The range's first entry is a one-row derived table ({@code a}) the window joins to: when no
   * entry lies at or after the range start (an LSN past the last mapping entry) it has no row and
   * nothing is read, where a scalar subquery would be NULL, fall back to 0x00.. and scan the whole
   * mapping (the reference guards the same case). Parameters: range start, range end.
   */
  public static String drops(ServerClock zone) {
    return "SELECT CONVERT(varchar(22), x.start_lsn, 1) AS l, CONVERT(varchar(23), x.tran_end_time, 126) AS t"
        + " FROM (SELECT m.start_lsn, m.tran_end_time, LAG(m.tran_end_time) OVER (ORDER BY m.start_lsn) AS prev"
        + " FROM (SELECT TOP (1) f.tran_end_time FROM cdc.lsn_time_mapping f"
        + " WHERE f.start_lsn >= CONVERT(binary(10), ?, 1) ORDER BY f.start_lsn) a"
        + " JOIN cdc.lsn_time_mapping m ON m.start_lsn >= ISNULL((SELECT TOP (1) e.start_lsn FROM cdc.lsn_time_mapping e"
        + " WHERE e.tran_end_time <= DATEADD(hour, -" + UtcConversion.WINDOW_HOURS + ", a.tran_end_time)"
        + " ORDER BY e.tran_end_time DESC), 0x00000000000000000000)"
        + " AND m.start_lsn <= CONVERT(binary(10), ?, 1)) x"
        + " WHERE x.tran_end_time < DATEADD(minute, -" + UtcConversion.DROP_MINUTES + ", x.prev)"
        + " AND " + UtcConversion.repeated(zone, "x.tran_end_time")
        + " ORDER BY x.start_lsn";
  }

  // ---- change rows (ADR 0009: the change table, not the query function) -------------------

  /** {@code cdc.[<ci>_CT]}: the change table of a validated capture instance. */
  public static String changeTable(String captureInstance) {
    return "cdc." + Identifiers.quote(Identifiers.captureInstance(captureInstance) + "_CT");
  }

  /**
   * Q11. Commit-aligned tiles of an LSN range: NTILE over the change rows by
   * {@code __$start_lsn}; each commit goes whole to the first tile holding one of its rows
   * ({@code MIN(g)} per commit), so a commit straddling two tiles stays in the first and the row
   * counts are those of the commit-aligned ranges the reader will read (the reference counted
   * rows per raw tile, which misreports a straddled pair). One row per tile that keeps a commit:
   * its largest LSN (bound), the increment of it (where the next range starts) and its rows;
   * ordered by bound. A tile wholly inside one commit keeps none and disappears. Parameters:
   * from, to.
   */
  public static String splitPoints(String captureInstance, int n) {
    if (n < 1) {
      throw new IllegalArgumentException("n must be at least 1, not " + n);
    }
    return "SELECT CONVERT(varchar(22), MAX(y.l), 1) AS b,"
        + " CONVERT(varchar(22), sys.fn_cdc_increment_lsn(MAX(y.l)), 1) AS n, SUM(y.r) AS r"
        + " FROM (SELECT x.[__$start_lsn] AS l, MIN(x.g) AS g, COUNT_BIG(*) AS r"
        + " FROM (SELECT [__$start_lsn], NTILE(" + n + ") OVER (ORDER BY [__$start_lsn]) AS g"
        + " FROM " + changeTable(captureInstance)
        + " WHERE [__$start_lsn] BETWEEN CONVERT(binary(10), ?, 1) AND CONVERT(binary(10), ?, 1)) x"
        + " GROUP BY x.[__$start_lsn]) y"
        + " GROUP BY y.g ORDER BY b";
  }

  /**
   * Q12. The change rows of an LSN range, read from the change table (not
   * {@code cdc.fn_cdc_get_all_changes_<ci>}, which on SQL Server 2022 lacks
   * {@code __$command_id}: ADR 0009), joined to {@code cdc.lsn_time_mapping} for the commit
   * time, ordered by {@code (__$start_lsn, __$command_id, __$seqval, __$operation)}: the order
   * the documentation gives for commit order ({@code __$seqval} alone is not). The change table
   * holds operations 1..4, so no "all update old" filter is needed. A purged range reads as
   * empty: callers check the low watermark after reading. The row's two LSNs come out as the
   * change table's {@code binary(10)}, not as text: two per row, their text's decoding was a
   * measured share of the JDBC path's client CPU (docs/PERFORMANCE.md, "jdbc"). Parameters: those
   * of {@code utc} (fall-back drops), then from, to.
   *
   * @param columns captured columns to select, in order (already limited to captured ones)
   * @param includeCommandId false for change tables without {@code __$command_id}
   * @param utc the commit time's UTC expression of {@code m.tran_end_time}; null reads no commit
   *     time ({@code NULL}) and joins no mapping: a reader that only collects keys
   */
  public static SqlText changes(
      String captureInstance, List<String> columns, boolean includeCommandId, SqlText utc, String fromHex, String toHex) {
    StringBuilder sb = new StringBuilder(
        "SELECT c.[__$start_lsn] AS _start_lsn, c.[__$seqval] AS _seqval, c.[__$operation] AS _operation, ");
    sb.append(includeCommandId ? "c.[__$command_id]" : "0").append(" AS _command_id, ");
    if (utc != null) {
      sb.append("CONVERT(varchar(23), ");
    }
    String head = sb.toString();
    StringBuilder tail = new StringBuilder(utc != null ? ", 126) AS _commit_ts" : "CAST(NULL AS varchar(23)) AS _commit_ts");
    for (String column : columns) {
      tail.append(", c.").append(Identifiers.quote(column));
    }
    tail.append(" FROM ").append(changeTable(captureInstance)).append(" c");
    if (utc != null) {
      tail.append(" JOIN cdc.lsn_time_mapping m ON m.start_lsn = c.[__$start_lsn]");
    }
    tail.append(" WHERE c.[__$start_lsn] BETWEEN CONVERT(binary(10), ?, 1) AND CONVERT(binary(10), ?, 1)")
        .append(" ORDER BY c.[__$start_lsn]").append(includeCommandId ? ", c.[__$command_id]" : "")
        .append(", c.[__$seqval], c.[__$operation]");
    SqlText start = utc != null ? SqlText.of(head).then("", utc) : SqlText.of(head);
    return start.then("", SqlText.of(tail.toString(), fromHex, toHex));
  }

  /**
   * Q28. Whether a failed change-table read is a missing grant: only when the instance exists
   * for this login (min LSN above zero) does {@code HAS_PERMS_BY_NAME} on the change table
   * decide; plus the database user, for the exact GRANT. Parameters: instance, {@code cdc.[<ci>_CT]}.
   */
  public static final String PERMISSION_PROBE =
      "SELECT CASE WHEN sys.fn_cdc_get_min_lsn(?) > 0x00000000000000000000"
          + " THEN HAS_PERMS_BY_NAME(?, 'OBJECT', 'SELECT') END, USER_NAME()";

  /**
   * Q29. Whether a change table has {@code __$command_id}: its length, NULL when the column is
   * missing. Asked only after a read that selected it failed with error 207 (invalid column), so
   * the {@code includeCommandId=false} advice is given only where the column really is missing.
   * Parameter: {@code cdc.[<ci>_CT]}.
   */
  public static final String COMMAND_ID_PROBE = "SELECT COL_LENGTH(?, '__$command_id')";

  // ---- metadata (documented procedures only) ---------------------------------------------

  /** Q17. Captured columns with their current types; needs SELECT on the source columns. */
  public static final String CAPTURED_COLUMNS = "EXEC sys.sp_cdc_get_captured_columns @capture_instance = ?";

  /** Q19. DDL recorded for the instance (the client filters the LSN range: the proc takes none). */
  public static final String DDL_HISTORY = "EXEC sys.sp_cdc_get_ddl_history @capture_instance = ?";

  /** Q20. Every capture instance the login can see (first resolution, and fallback). */
  public static final String HELP_ALL = "EXEC sys.sp_cdc_help_change_data_capture";

  /** Q20. The capture instances of one table (after the first resolution: cheaper). */
  public static final String HELP_TABLE =
      "EXEC sys.sp_cdc_help_change_data_capture @source_schema = ?, @source_name = ?";

  /**
   * Q18. The source table's columns now, by {@code column_id}, with the declared type pieces the
   * key bounds need ({@code max_length} is in bytes: halved for n-types; -1 is max) and the
   * collation of character columns. {@code QUOTENAME} on the server: names are parameters.
   */
  public static final String TABLE_COLUMNS =
      "SELECT c.name, c.column_id, c.is_computed, c.collation_name, TYPE_NAME(c.system_type_id) AS type_name,"
          + " c.max_length, c.precision, c.scale FROM sys.columns c"
          + " WHERE c.object_id = OBJECT_ID(QUOTENAME(?) + '.' + QUOTENAME(?)) ORDER BY c.column_id";

  /** Q15. One round trip, timed by the client. */
  public static final String PING = "SELECT 1";

  /** Q16. This session's network wait (own session: no VIEW SERVER STATE needed). No row = 0. */
  public static final String NETWORK_WAIT =
      "SELECT wait_time_ms FROM sys.dm_exec_session_wait_stats"
          + " WHERE session_id = @@SPID AND wait_type = 'ASYNC_NETWORK_IO'";

  // ---- preflight --------------------------------------------------------------------------

  /** Whether CDC is enabled on the connection's database; {@code sys.databases} needs no grant. */
  public static final String CDC_ENABLED =
      "SELECT is_cdc_enabled, DB_NAME() FROM sys.databases WHERE database_id = DB_ID()";

  /**
   * Seconds since the newest mapping entry, both on the server clock. Capture writes an entry
   * for every commit it processes and idle entries on quiet databases, so a large value means
   * the capture job (SQL Server Agent) is not running. NULL when capture never wrote.
   */
  public static final String CAPTURE_AGE_SECONDS =
      "SELECT DATEDIFF(second, m.tran_end_time, SYSDATETIME()) FROM cdc.lsn_time_mapping m"
          + " WHERE m.start_lsn = sys.fn_cdc_get_max_lsn()";

  // ---- capture health (issue 30): each read alone, what the login cannot read is reported -----

  /**
   * The server's UTC clock (ISO 8601) and the newest mapping entry's age in ms on the server clock (NULL
   * when capture never wrote): {@link io.mssqlcdc.client.CaptureHealth#maxLsnTime()} without a zone.
   */
  public static final String HEALTH_CLOCK =
      "SELECT CONVERT(varchar(33), SYSUTCDATETIME(), 126), (SELECT DATEDIFF_BIG(millisecond, m.tran_end_time,"
          + " SYSDATETIME()) FROM cdc.lsn_time_mapping m WHERE m.start_lsn = sys.fn_cdc_get_max_lsn())";

  /**
   * This database's CDC jobs ({@code capture}, {@code cleanup}): whether each runs (its activity in SQL
   * Server Agent's current session started and not stopped), its {@code retention} in minutes, and whether
   * it is {@code continuous} (a scheduled capture job, {@code @continuous = 0}, is not running between runs). Needs
   * SELECT on msdb (e.g. SQLAgentReaderRole); Azure SQL Database has no such jobs (no rows).
   */
  public static final String CDC_JOBS =
      "SELECT j.job_type, CASE WHEN a.start_execution_date IS NOT NULL AND a.stop_execution_date IS NULL"
          + " THEN 1 ELSE 0 END, j.retention, j.continuous FROM msdb.dbo.cdc_jobs j LEFT JOIN msdb.dbo.sysjobactivity a"
          + " ON a.job_id = j.job_id AND a.session_id = (SELECT MAX(s.session_id) FROM msdb.dbo.syssessions s)"
          + " WHERE j.database_id = DB_ID()";

  /**
   * Capture's newest log scan session: the server's UTC clock, the session end's age in ms on the server
   * clock and its {@code latency} (seconds). Needs VIEW DATABASE STATE (VIEW DATABASE PERFORMANCE STATE on SQL Server 2022).
   */
  public static final String LOG_SCAN =
      "SELECT TOP (1) CONVERT(varchar(33), SYSUTCDATETIME(), 126), DATEDIFF_BIG(millisecond, s.end_time,"
          + " SYSDATETIME()), s.latency"
          + " FROM sys.dm_cdc_log_scan_sessions s WHERE s.session_id > 0 AND s.end_time IS NOT NULL"
          + " ORDER BY s.end_time DESC";

  /** Capture's errors of the last hour: how many, and the newest one's message. Needs VIEW DATABASE STATE. */
  public static final String CDC_ERRORS =
      "SELECT COUNT(*), (SELECT TOP (1) e2.error_message FROM sys.dm_cdc_errors e2 WHERE e2.entry_time >="
          + " DATEADD(hour, -1, SYSDATETIME()) ORDER BY e2.entry_time DESC) FROM sys.dm_cdc_errors e"
          + " WHERE e.entry_time >= DATEADD(hour, -1, SYSDATETIME())";

  // ---- the source table (snapshots, reference §12.2; Q21..Q27) ----------------------------

  /** {@code [schema].[table]}, validated and quoted. */
  public static String table(TableRef t) {
    return Identifiers.quote(t.schema()) + "." + Identifiers.quote(t.table());
  }

  /**
   * Session prefix of every source-table read: isolation (never READ UNCOMMITTED/NOLOCK;
   * SNAPSHOT needs ALLOW_SNAPSHOT_ISOLATION) and {@code SET LOCK_TIMEOUT} (-1 waits forever; a
   * blocked read then fails with error 1222 and the task is retried). Sent as its own batch,
   * without parameters, so both settings stick to the session rather than to an
   * {@code sp_executesql} scope. {@code SET LOCK_TIMEOUT} takes an int ({@code @@LOCK_TIMEOUT} is
   * one): a larger {@code lockTimeoutMs} is refused here, naming the option, rather than failing
   * on the server at the first read.
   */
  public static String sessionPrefix(Isolation isolation, long lockTimeoutMs) {
    String level = isolation == Isolation.SNAPSHOT ? "SNAPSHOT" : "READ COMMITTED";
    return "SET TRANSACTION ISOLATION LEVEL " + level + "; SET LOCK_TIMEOUT " + lockTimeout(lockTimeoutMs) + ";";
  }

  /** {@code lockTimeoutMs} as {@code SET LOCK_TIMEOUT} takes it: -1 (wait forever) up to {@link Integer#MAX_VALUE}. */
  static long lockTimeout(long lockTimeoutMs) {
    if (lockTimeoutMs > Integer.MAX_VALUE) {
      throw CdcErrors.invalidOption("lockTimeoutMs", Long.toString(lockTimeoutMs),
          "at most " + Integer.MAX_VALUE + " milliseconds (about 24.8 days)",
          "SET LOCK_TIMEOUT takes an int; leave the option unset to wait forever");
    }
    return Math.max(-1L, lockTimeoutMs);
  }

  /**
   * Q21. MIN and MAX of one key in a range: two scalar subqueries, each a single seek at one end
   * of the index. {@code range} is the single seekable piece (or none) of the range.
   */
  public static SqlText keyMinMax(TableRef t, String key, List<SqlText> range) {
    String k = Identifiers.quote(key);
    SqlText where = range.isEmpty() ? SqlText.of("") : SqlText.of(" WHERE ").then("", union(range, " OR "));
    return SqlText.of("SELECT (SELECT MIN(" + k + ") FROM " + table(t)).then("", where)
        .then("", SqlText.of(") AS lo, (SELECT MAX(" + k + ") FROM " + table(t))).then("", where)
        .then("", SqlText.of(") AS hi"));
  }

  /**
   * Q22. The first key of tiles 2..n of {@code NTILE(n) OVER (ORDER BY keys)}: where the tile
   * number changes ({@code LAG}). One scan of the index; n inlined (a positive int).
   */
  public static String keyTiles(TableRef t, List<String> keys, int n) {
    if (n < 1) {
      throw new IllegalArgumentException("n must be at least 1, not " + n);
    }
    String k = quotedList(keys);
    return "SELECT " + k + " FROM (SELECT " + k + ", [__$tile], LAG([__$tile]) OVER (ORDER BY " + k + ") AS [__$prev]"
        + " FROM (SELECT " + k + ", NTILE(" + n + ") OVER (ORDER BY " + k + ") AS [__$tile] FROM " + table(t) + ") a) b"
        + " WHERE [__$tile] <> [__$prev] ORDER BY [__$tile]";
  }

  /**
   * Q23. Rows and key sums per fine bucket of one integer or date key, in one {@code GROUP BY} on
   * the server: the ordinal {@code o} is {@code CAST(k AS bigint)} (integers) or the days since
   * 1970-01-01 (dates); the bucket {@code floor(o / w)} is written out as T-SQL's truncating
   * division corrected for negative ordinals ({@code (o + 1) / w - 1}); sums are
   * {@code decimal(38,0)}, which a sum of bigint values overflows only past 10^19 rows. NULL keys
   * are left out; {@code range} (the single seekable piece of a range on the key itself, or none)
   * restricts the rows. The width is a positive long the client checked, inlined. Ordered by
   * bucket (the reference sorted on the client).
   */
  public static SqlText keyBuckets(TableRef t, String key, KeyColumns.Ordinal kind, long width, List<SqlText> range) {
    if (width < 1) {
      throw new IllegalArgumentException("width must be at least 1, not " + width);
    }
    String k = Identifiers.quote(key);
    String o = kind == KeyColumns.Ordinal.DATE
        ? "CAST(DATEDIFF(day, CAST('19700101' AS date), " + k + ") AS bigint)"
        : "CAST(" + k + " AS bigint)";
    String w = "CAST(" + width + " AS bigint)";
    SqlText where = SqlText.of(" WHERE " + k + " IS NOT NULL");
    if (!range.isEmpty()) {
      where = where.then(" AND ", union(range, " OR "));
    }
    return SqlText.of("SELECT [__$b] AS b, COUNT_BIG(*) AS n, SUM(CAST([__$o] AS decimal(38,0))) AS s FROM (SELECT "
        + o + " AS [__$o], CASE WHEN " + o + " >= 0 THEN " + o + " / " + w + " ELSE (" + o + " + 1) / " + w
        + " - 1 END AS [__$b] FROM " + table(t)).then("", where)
        .then("", SqlText.of(") x GROUP BY [__$b] ORDER BY [__$b]"));
  }

  /** Q23 without a key: the table's rows, NULL keys included (reconcile's whole-table count). */
  public static String countRows(TableRef t) {
    return "SELECT COUNT_BIG(*) FROM " + table(t);
  }

  /**
   * Q25. The row count from the table's metadata ({@code sp_spaceused}: partition statistics,
   * no scan). Its {@code rows} column is text ({@code char(11)} or wider, padded). Parameter:
   * the table as {@code [schema].[table]} ({@link #table}), which the procedure resolves with
   * {@code OBJECT_ID}.
   */
  public static final String ROW_ESTIMATE = "EXEC sys.sp_spaceused @objname = ?";

  /**
   * Q26. The largest key: {@code TOP (1)} of the key in descending order, one backward seek of
   * its index (NULL sorts first, so last here).
   */
  public static String keyMax(TableRef t, List<String> keys) {
    StringJoiner desc = new StringJoiner(", ");
    for (String k : keys) {
      desc.add(Identifiers.quote(k) + " DESC");
    }
    return "SELECT TOP (1) " + quotedList(keys) + " FROM " + table(t) + " ORDER BY " + desc;
  }

  /**
   * Q27. The key {@code n} rows into a key range: each seekable piece ({@link KeyPredicates}, or
   * the whole table) contributes its first {@code n + 1} keys ({@code TOP} of an index seek),
   * joined with {@code UNION ALL} (pieces are disjoint), and the outer query skips {@code n} of
   * them in key order. At most {@code n + 1} rows per piece are read. n is a non-negative long
   * the client checked, inlined as {@code CAST(n AS bigint)}: a bare literal from 2^31 on is a
   * {@code numeric}, which TOP and OFFSET refuse (errors 1060 and 10060).
   */
  public static SqlText keyBound(TableRef t, List<String> keys, List<SqlText> pieces, long n) {
    if (n < 0 || n == Long.MAX_VALUE) {
      throw new IllegalArgumentException("n must be at least 0 and below " + Long.MAX_VALUE + ", not " + n);
    }
    String k = quotedList(keys);
    String top = "SELECT * FROM (SELECT TOP (CAST(" + (n + 1) + " AS bigint)) " + k + " FROM " + table(t);
    String order = " ORDER BY " + k + ") p";
    List<SqlText> parts = new ArrayList<>();
    if (pieces.isEmpty()) {
      parts.add(SqlText.of(top + order));
    }
    for (SqlText piece : pieces) {
      parts.add(SqlText.of(top + " WHERE ").then("", piece).then("", SqlText.of(order)));
    }
    return SqlText.of("SELECT " + k + " FROM (").then("", union(parts, " UNION ALL "))
        .then("", SqlText.of(") u ORDER BY " + k + " OFFSET CAST(" + n + " AS bigint) ROWS FETCH NEXT 1 ROWS ONLY"));
  }

  /**
   * Q24. The table's rows in a key range: one {@code SELECT} per seekable piece
   * ({@link KeyPredicates}), joined with {@code UNION ALL} (pieces are disjoint); the whole table
   * when there are none.
   */
  public static SqlText readTable(TableRef t, List<String> columns, List<SqlText> pieces) {
    String select = "SELECT " + quotedList(columns) + " FROM " + table(t);
    if (pieces.isEmpty()) {
      return SqlText.of(select);
    }
    List<SqlText> parts = new ArrayList<>();
    for (SqlText p : pieces) {
      parts.add(SqlText.of(select + " WHERE ").then("", p));
    }
    return union(parts, " UNION ALL ");
  }

  private static SqlText union(List<SqlText> parts, String separator) {
    SqlText r = parts.get(0);
    for (int i = 1; i < parts.size(); i++) {
      r = r.then(separator, parts.get(i));
    }
    return parts.size() > 1 && separator.equals(" OR ") ? SqlText.of("(").then("", r).then("", SqlText.of(")")) : r;
  }

  static String quotedList(List<String> names) {
    StringJoiner j = new StringJoiner(", ");
    for (String n : names) {
      j.add(Identifiers.quote(n));
    }
    return j.toString();
  }
}
