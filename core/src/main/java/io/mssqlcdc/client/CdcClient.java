package io.mssqlcdc.client;

import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * The seam between the Spark connector and SQL Server CDC. {@code SqlCdcClient} implements it
 * over mssql-jdbc (all T-SQL in one place) and {@code FakeCdcClient} over a directory; one
 * contract test ({@code CdcClientContractTest}) runs against both.
 *
 * <p>Every LSN is a {@link Lsn}; every time is a UTC {@link Instant} (the client converts the
 * server clock's {@code tran_end_time}). Methods are called on the Spark driver (planning,
 * offsets) and on executors (reads); an instance is used by one thread at a time and is not
 * serializable: executors open their own through {@link CdcClients#open}.
 *
 * <p>Failure modes common to all methods: {@link io.mssqlcdc.errors.CdcPermissionException}
 * when the login lacks a right (naming the GRANT), {@link
 * io.mssqlcdc.errors.CdcSourceUnavailableException} for transient failures that outlived the
 * implementation's own retries (the only retry layer: callers do not retry again), {@link
 * io.mssqlcdc.errors.CdcConfigException} for names that do not resolve.
 */
public interface CdcClient extends AutoCloseable {

  // ---- LSNs and commit times (cdc.lsn_time_mapping, sys.fn_cdc_*) -------------------------

  /**
   * {@code sys.fn_cdc_get_max_lsn()}: the last LSN capture processed, database-wide. It is the
   * {@code start_lsn} of the newest {@code cdc.lsn_time_mapping} entry (a commit or an idle
   * "dummy" entry). Empty when capture never wrote to this database.
   */
  Optional<Lsn> maxLsn();

  /**
   * {@code sys.fn_cdc_get_min_lsn(ci)}: the instance's low watermark; change rows below it may
   * be gone (cleanup moves it first, then deletes rows below it).
   *
   * @throws io.mssqlcdc.errors.CdcConfigException when SQL Server returns {@link Lsn#ZERO}
   *     (instance unknown, not readable, or its enable not processed by capture yet)
   */
  Lsn minLsn(String captureInstance);

  /** {@code sys.fn_cdc_increment_lsn}: the smallest LSN greater than {@code lsn}. */
  Lsn incrementLsn(Lsn lsn);

  /** {@code sys.fn_cdc_decrement_lsn}: the largest LSN smaller than {@code lsn}. */
  Lsn decrementLsn(Lsn lsn);

  /**
   * UTC commit time of the {@code cdc.lsn_time_mapping} entry whose {@code start_lsn} equals
   * {@code lsn} exactly (commits and idle entries). Empty when {@code lsn} is no entry's.
   */
  Optional<Instant> commitTime(Lsn lsn);

  /**
   * UTC commit time of the last {@code cdc.lsn_time_mapping} entry at or before {@code lsn}
   * (for DDL LSNs, which are no commit's). Empty when there is none.
   */
  Optional<Instant> commitTimeAtOrBefore(Lsn lsn);

  /**
   * The last {@code cdc.lsn_time_mapping} entry (commit or idle entry), in LSN order, whose UTC
   * commit time, exactly as {@link #commitTime} reports it, is at or before {@code utc}: the
   * position of a copy of the table taken at {@code utc} ({@code seed}'s {@code as_of}, reference
   * §12.7, Q9). Commit times are milliseconds, so {@code utc} counts to the millisecond
   * (truncated). Unlike {@code sys.fn_cdc_map_time_to_lsn}, which compares server-local times, a
   * commit in the second pass of a daylight-saving fall-back hour is compared by its UTC time, so
   * the answer is never a commit made after {@code utc}. Empty when no entry is that old (none
   * yet, or cleanup removed them: callers decide whether that is data loss).
   */
  Optional<Lsn> lsnAtOrBefore(Instant utc);

  /**
   * The {@code n}-th {@code cdc.lsn_time_mapping} entry strictly after {@code after} (n ≥ 1),
   * counting commits and idle entries of the whole database; when fewer than {@code n} exist,
   * the last one; empty when none exists.
   *
   * @throws IllegalArgumentException when n &lt; 1
   */
  Optional<Lsn> nthCommitAfter(Lsn after, int n);

  /**
   * How many {@code cdc.lsn_time_mapping} entries (commits and idle entries of the whole
   * database) lie in {@code (after, upTo]}, counting no further than {@code limit}: a result of
   * {@code limit} means "at least that many". One statement, whatever the count (a progress
   * report's {@code pendingCommits}). 0 when {@code upTo} is not after {@code after}.
   *
   * @throws IllegalArgumentException when limit &lt; 1
   */
  long commitsBetween(Lsn after, Lsn upTo, int limit);

  // ---- capture instances and their metadata -------------------------------------------

  /**
   * The capture instances of the table that {@code captureInstance} tracks, oldest first (by
   * {@code create_date}, then {@code start_lsn}); at most two. The name is matched exactly
   * first, then ignoring case (two case-insensitive matches fail, asking for the exact name). A
   * name no longer listed still resolves when it is its table's default name
   * {@code <schema>_<table>}: the list then holds the table's current instances only, without
   * it.
   *
   * @throws io.mssqlcdc.errors.CdcConfigException when nothing resolves (naming candidates)
   */
  List<CaptureInstance> captureInstances(String captureInstance);

  /**
   * Every capture instance of the database ({@code sys.sp_cdc_help_change_data_capture} without
   * arguments): what the {@code mssql_cdc} catalog lists as its schemas and tables. Ordered by
   * source schema, then source table (both ignoring case), then oldest first within a table.
   * Empty when no table is enabled for CDC.
   */
  List<CaptureInstance> allCaptureInstances();

  /**
   * The columns {@code captureInstance} captures, by {@code column_ordinal}, with their current
   * types and whether the source column is computed.
   *
   * @throws io.mssqlcdc.errors.CdcConfigException when the instance is unknown or has no
   *     column metadata
   */
  List<CapturedColumn> capturedColumns(String captureInstance);

  /**
   * DDL recorded for {@code captureInstance} with {@code ddl_lsn} in {@code (after, to]}, by LSN.
   */
  List<DdlEvent> ddlHistory(String captureInstance, Lsn after, Lsn to);

  // ---- change rows ----------------------------------------------------------------------

  /**
   * Tiles of the instance's change rows in {@code [from, to]}: NTILE({@code n}) over the rows
   * ordered by {@code __$start_lsn}, each ending on a commit boundary (a commit straddling two
   * tiles stays whole in the first), by bound; tiles sharing a bound are merged. Empty when the
   * range holds no change rows.
   */
  List<SplitPoint> splitPoints(String captureInstance, Lsn from, Lsn to, int n);

  /**
   * The change rows of {@code query}: {@code __$start_lsn} in {@code [from, to]}, joined to
   * their commit time, ordered by {@code (__$start_lsn, __$command_id, __$seqval,
   * __$operation)}. A range CDC cleanup purged reads as empty (callers check {@link #minLsn}
   * after reading). Streams rows; the caller closes the cursor.
   */
  ChangeCursor changes(ChangeQuery query);

  // ---- the source table (snapshots) ------------------------------------------------------

  /** The table {@code captureInstance} tracks and the unique index CDC uses for it. */
  SourceTable sourceTable(String captureInstance);

  /** The table's columns as they are now, by {@code column_id}. */
  List<TableColumn> tableColumns(TableRef table);

  /**
   * The smallest and largest non-NULL value of the single key column {@code key} in
   * {@code range} (two seeks); empty when the range holds no non-NULL key.
   */
  Optional<List<Object>> keyMinMax(TableRef table, String key, KeyRange range);

  /**
   * The first key of tiles 2..n of {@code NTILE(n) OVER (ORDER BY keys)} over the whole table:
   * at most {@code n - 1} ascending, distinct bounds that cut the table into tiles of about
   * equal rows (fewer when the table has fewer rows). NULL keys sort first.
   */
  List<List<Object>> keyTiles(TableRef table, List<String> keys, int n);

  /** The table's current rows in {@code query.range()}, streamed; the caller closes it. */
  RowCursor readTable(TableQuery query);

  /**
   * The rows of the table now, NULL keys included ({@code COUNT_BIG(*)}): reconcile's whole-table
   * count (reference §17 step 6, Q23 without a key).
   */
  long countRows(TableRef table);

  /**
   * The table's row count as SQL Server's metadata holds it ({@code sp_spaceused}, reference §12.9
   * and Q25): no scan, so it can lag behind recent writes and is for planning only (how many
   * chunks), never for checks. 0 for an empty table.
   */
  long rowEstimate(TableRef table);

  /**
   * Rows and key sums per fine bucket of the single integer ({@code tinyint}, {@code smallint},
   * {@code int}, {@code bigint}) or {@code date} key column {@code key}, counted on the server
   * in one {@code GROUP BY} (reference §17 step 6, §12.9, Q23). The ordinal of a row is its key
   * value, or for a date the days since 1970-01-01 (negative before); its bucket is
   * {@code floor(ordinal / width)} (rounding down for negative ordinals too). Rows with a NULL
   * key are left out (count them with {@link #countRows}). Only rows whose key lies in
   * {@code range} ({@code [lo, hi)} on the key itself, not the ordinal: integral numbers for an
   * integer key, of any integral Java type including {@link java.math.BigInteger} beyond the
   * column's range, {@link java.time.LocalDate} for a date key) are counted. Non-empty buckets
   * only, ascending by bucket.
   *
   * @throws IllegalArgumentException when {@code width < 1}, or a bound is not one value
   * @throws io.mssqlcdc.errors.CdcConfigException when the table has no column {@code key}
   *     (matched as {@link ColumnNames} says) or it is of another type
   */
  List<KeyBucket> keyBuckets(TableRef table, String key, long width, KeyRange range);

  /**
   * The largest key of the table ({@code TOP (1) ... ORDER BY k1 DESC, k2 DESC, ...}, reference
   * §12.9 and Q26): one value per column of {@code keys}, compared column by column in SQL
   * Server's order (NULL lowest, strings by the column's collation), so a key whose only row has
   * NULL keys is {@code [null]}. Empty for an empty table.
   *
   * @throws io.mssqlcdc.errors.CdcConfigException when a key column does not exist
   */
  Optional<List<Object>> keyMax(TableRef table, List<String> keys);

  /**
   * The key that leaves exactly {@code n} rows of {@code range} before it: the {@code (n+1)}-th
   * smallest key in {@code [lo, hi)}, in key order (NULL first), so that {@code [lo, bound)} holds
   * {@code n} rows (reference §12.9 keyset plans, Q27). {@code n = 0} gives the first key of the
   * range. Empty when the range holds at most {@code n} rows. {@code keys} must be unique in the
   * table (its unique index) for "rows" and "keys" to agree.
   *
   * @throws IllegalArgumentException when {@code n < 0} or a bound has not one value per key
   * @throws io.mssqlcdc.errors.CdcConfigException when a key column does not exist, or a bound of
   *     it cannot be bound ({@code time}, types without a mapping)
   */
  Optional<List<Object>> keyBound(TableRef table, List<String> keys, KeyRange range, long n);

  // ---- clock and diagnostics ----------------------------------------------------------

  /**
   * With {@code sourceTimeZone=auto}, asks the server again which clock it keeps, on the open
   * connection, and converts commit times with the answer from then on (servers before SQL
   * Server 2022 can only tell today's UTC offset, which a daylight-saving change moves: the
   * driver re-reads it before each batch with new commits, reference §9). A configured zone is
   * kept and nothing is asked.
   *
   * @return {@link #sourceTimeZone()} after the refresh
   */
  String refreshSourceTimeZone();

  /**
   * The server clock the client converts commit times with: a Windows or IANA zone name
   * ({@code UTC}, {@code E. South America Standard Time}) or a fixed offset {@code UTC±HH:MM}.
   * The driver ships it to executors (option {@code sourceTimeZone}), so they never detect it.
   */
  String sourceTimeZone();

  /**
   * Probes SQL Server's capture process (issue 30): the newest mapping entry's time, the capture job's
   * state, its latest log scan, recent CDC errors and the cleanup job's retention, on the server
   * clock. What this login cannot read (msdb, the dynamic management views) is named in {@link
   * CaptureHealth#unreadable()}: never an error. {@link CaptureHealthRules} judges the result.
   */
  CaptureHealth captureHealth();

  /** Checks the source is ready to stream (CDC enabled, instance present, capture running). */
  default void preflight(String captureInstance) {}

  /** Round trip of one {@code SELECT 1}, in milliseconds; empty when not measurable. */
  default OptionalDouble pingMillis() {
    return OptionalDouble.empty();
  }

  /** This session's cumulative {@code ASYNC_NETWORK_IO} wait, ms; empty when not exposed. */
  default OptionalLong networkWaitMillis() {
    return OptionalLong.empty();
  }

  @Override
  void close();
}
