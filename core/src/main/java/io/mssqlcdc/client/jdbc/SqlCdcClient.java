package io.mssqlcdc.client.jdbc;

import com.microsoft.sqlserver.jdbc.SQLServerDriver;
import io.mssqlcdc.client.CaptureHealth;
import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.ColumnNames;
import io.mssqlcdc.client.DdlEvent;
import io.mssqlcdc.client.KeyBucket;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.client.SourceTable;
import io.mssqlcdc.client.SplitPoint;
import io.mssqlcdc.client.TableColumn;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import io.mssqlcdc.options.Identifiers;
import io.mssqlcdc.types.SqlServerType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * {@link CdcClient} over mssql-jdbc. It executes the statements of {@link CdcSql} (and only
 * those), binds every value as a text parameter, and maps failures: transient ones are retried
 * on a new connection by {@link DriverRetry}; a change-table read the login may not do becomes a
 * {@link io.mssqlcdc.errors.CdcPermissionException} naming the GRANT (probe {@link
 * CdcSql#PERMISSION_PROBE}); a missing {@code __$command_id} says to set
 * {@code includeCommandId=false} (only when the read selected it and {@link CdcSql#COMMAND_ID_PROBE}
 * confirms the column is missing). A probe that fails keeps the read's own error.
 *
 * <p>One connection, opened lazily, autocommit on; used by one thread at a time. Cursors
 * stream ({@code responseBuffering=adaptive}); a cursor must be closed before the next
 * statement runs on this client. Retries cover scalar and metadata statements and the opening
 * of a cursor, never a cursor half read.
 *
 * <p>Commit times: the server clock comes from the {@code sourceTimeZone} option; {@code auto}
 * is detected once ({@link ClockDetector}) and reported by {@link #sourceTimeZone()} so the
 * driver ships it to executors.
 */
public final class SqlCdcClient implements CdcClient {
  /** Opens a new JDBC connection. */
  @FunctionalInterface
  public interface ConnectionFactory {
    Connection open() throws SQLException;
  }

  /** The connection, its session settings and the statement retries. */
  private final JdbcSession session;
  /** What a failed change-table read means (a missing grant, no {@code __$command_id}), probed. */
  private final ChangeTableFailures failures;
  /** The source table's statements (columns, snapshot reads, key planning). */
  private final SourceTableReads tables;
  private final String configuredZone;
  private final long lockTimeoutMs;
  private final TableQuery.Isolation isolation;
  /** Captured column names per instance (fixed for an instance's lifetime: CDC refuses renames). */
  private final Map<String, List<String>> capturedNames = new HashMap<>();
  private ServerClock clock;
  private TableRef resolvedTable;
  /** The login's key for {@link WaitStatsRefusals}; null: this client alone remembers a refusal. */
  private String login;
  private volatile boolean waitStatsRefused;

  public SqlCdcClient(ConnectionFactory factory, String sourceTimeZone, long lockTimeoutMs, DriverRetry retry) {
    this(factory, sourceTimeZone, lockTimeoutMs, TableQuery.Isolation.READ_COMMITTED, retry);
  }

  /**
   * @param isolation the reader's {@code isolationLevel}: snapshot planning ({@link #keyMinMax},
   *     {@link #keyTiles}) reads the source table under it, as {@link #readTable} does under its query's
   */
  public SqlCdcClient(ConnectionFactory factory, String sourceTimeZone, long lockTimeoutMs,
      TableQuery.Isolation isolation, DriverRetry retry) {
    this.session = new JdbcSession(factory, retry);
    this.failures = new ChangeTableFailures(session, this::translate);
    this.isolation = isolation;
    this.configuredZone = sourceTimeZone == null ? "auto" : sourceTimeZone.strip();
    this.lockTimeoutMs = CdcSql.lockTimeout(lockTimeoutMs);
    this.tables = new SourceTableReads(this, session, isolation, this.lockTimeoutMs);
    if (!configuredZone.equalsIgnoreCase("auto")) {
      this.clock = ServerClock.parse(configuredZone);
    }
  }

  /** A client for {@code options}: connection string converted, timeouts and time zone applied. */
  public static SqlCdcClient open(CdcReaderOptions options) {
    String cs = options.connectionString().orElseThrow(() ->
        CdcErrors.missingOption("connectionString", "'jdbc:sqlserver://host:1433;databaseName=db;user=u;password=p;encrypt=true'"));
    ConnectionStrings.Target target = ConnectionStrings.toJdbc(
        cs, options.connectTimeoutSeconds(), options.isSet(CdcReaderOptions.CONNECT_TIMEOUT));
    SQLServerDriver driver = new SQLServerDriver();
    ConnectionFactory factory = () -> {
      Connection c = driver.connect(target.url(), target.properties());
      if (c == null) {
        throw new SQLException("mssql-jdbc did not accept the URL " + target, "08001");
      }
      return c;
    };
    return new SqlCdcClient(factory, options.sourceTimeZone(), options.lockTimeoutMs(), options.isolationLevel(),
        DriverRetry.standard()).login(target.url() + ";user=" + target.properties().getProperty("user", ""));
  }

  // ---- LSNs and commit times --------------------------------------------------------------

  @Override
  public Optional<Lsn> maxLsn() {
    return lsn(scalar("sys.fn_cdc_get_max_lsn()", SqlText.of(CdcSql.MAX_LSN))).filter(l -> !l.isZero());
  }

  @Override
  public Lsn minLsn(String captureInstance) {
    Identifiers.captureInstance(captureInstance);
    Optional<Lsn> min = lsn(scalar("sys.fn_cdc_get_min_lsn", SqlText.of(CdcSql.MIN_LSN, captureInstance)));
    if (min.isEmpty() || min.get().isZero()) {
      throw CdcErrors.captureInstanceNotReady(captureInstance);
    }
    return min.get();
  }

  @Override
  public Lsn incrementLsn(Lsn lsn) {
    return lsn(scalar("sys.fn_cdc_increment_lsn", SqlText.of(CdcSql.INCREMENT_LSN, lsn.hex()))).orElseThrow();
  }

  @Override
  public Lsn decrementLsn(Lsn lsn) {
    return lsn(scalar("sys.fn_cdc_decrement_lsn", SqlText.of(CdcSql.DECREMENT_LSN, lsn.hex()))).orElseThrow();
  }

  @Override
  public Optional<Instant> commitTime(Lsn lsn) {
    SqlText q = CdcSql.commitTime(utcExpression(lsn, lsn), lsn.hex());
    return Optional.ofNullable(scalar("commit time of " + lsn, q)).map(JdbcValues::utc);
  }

  @Override
  public Optional<Instant> commitTimeAtOrBefore(Lsn lsn) {
    Optional<Lsn> entry = lsn(scalar("last commit at or before " + lsn, SqlText.of(CdcSql.ENTRY_AT_OR_BEFORE, lsn.hex())));
    return entry.flatMap(this::commitTime);
  }

  /**
   * Q9. One statement on a UTC or fixed-offset clock. On a named zone, the plain conversion
   * reads the second pass of a fall-back hour up to the zone's shift early, never late, so the
   * last entry it puts at or before {@code utc} is at or after the answer; the answer then lies
   * between it and the last entry the plain conversion puts {@value UtcConversion#WINDOW_HOURS}
   * hours earlier (whose corrected time is at most that shift later), or when there is none the
   * first entry it puts at or before {@code utc} (every answer is one of those), and the
   * fall-back corrected conversion of that short range decides. Starting the range at an entry
   * near the time, not at {@code 0x00..}, also keeps Q14's search for drops near it.
   */
  @Override
  public Optional<Lsn> lsnAtOrBefore(Instant utc) {
    Optional<String> at = UtcConversion.text(utc);
    if (at.isEmpty()) {
      return Optional.empty();
    }
    ServerClock c = clock();
    SqlText plain = SqlText.of(UtcConversion.plain(c, "m.tran_end_time"));
    String what = "last commit at or before " + at.get();
    Optional<Lsn> last = lsn(scalar(what, CdcSql.lastEntryAtOrBefore(plain, Lsn.ZERO.hex(), Lsn.MAX.hex(), at.get())));
    if (c.kind() != ServerClock.Kind.NAMED || last.isEmpty()) {
      return last;
    }
    Lsn hi = last.get();
    Lsn lo = UtcConversion.text(utc.minus(java.time.Duration.ofHours(UtcConversion.WINDOW_HOURS)))
        .flatMap(earlier -> lsn(scalar(what, CdcSql.lastEntryAtOrBefore(plain, Lsn.ZERO.hex(), hi.hex(), earlier))))
        .orElseGet(() -> lsn(scalar(what, CdcSql.firstEntryAtOrBefore(plain, Lsn.ZERO.hex(), hi.hex(), at.get())))
            .orElse(hi));
    return lsn(scalar(what, CdcSql.lastEntryAtOrBefore(utcExpression(lo, hi), lo.hex(), hi.hex(), at.get())));
  }

  @Override
  public Optional<Lsn> nthCommitAfter(Lsn after, int n) {
    if (n < 1) {
      throw new IllegalArgumentException("nthCommitAfter needs n >= 1, not " + n);
    }
    return lsn(scalar("commit " + n + " after " + after, SqlText.of(CdcSql.nthCommitAfter(n), after.hex())));
  }

  @Override
  public long commitsBetween(Lsn after, Lsn upTo, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("commitsBetween needs limit >= 1, not " + limit);
    }
    if (!upTo.isAfter(after)) {
      return 0;
    }
    String n = scalar("entries in (" + after + ", " + upTo + "]", SqlText.of(CdcSql.commitsBetween(limit), after.hex(), upTo.hex()));
    return n == null ? 0 : Long.parseLong(n.strip());
  }

  /**
   * The UTC expression of {@code m.tran_end_time} for commits in {@code [from, to]}: direct for
   * UTC and fixed offsets; for a named zone one offset when the range provably has no
   * daylight-saving change (Q13), else the fall-back corrected form with the range's drops (Q14).
   */
  private SqlText utcExpression(Lsn from, Lsn to) {
    ServerClock c = clock();
    if (c.kind() != ServerClock.Kind.NAMED) {
      return SqlText.of(UtcConversion.plain(c, "m.tran_end_time"));
    }
    String offset = scalar("UTC offset of " + from + ".." + to, SqlText.of(CdcSql.rangeOffset(c), from.hex(), to.hex()));
    if (offset != null) {
      return SqlText.of(UtcConversion.withOffset(Integer.parseInt(offset.strip()), "m.tran_end_time"));
    }
    List<UtcConversion.Drop> drops = new ArrayList<>();
    for (String[] row : rows("fall-back drops of " + from + ".." + to, SqlText.of(CdcSql.drops(c), from.hex(), to.hex()), 2)) {
      drops.add(new UtcConversion.Drop(Lsn.parse(row[0]), row[1]));
    }
    return UtcConversion.corrected(c, "m.tran_end_time", "m.start_lsn", drops);
  }

  // ---- capture instances ----------------------------------------------------------------

  @Override
  public List<CaptureInstance> captureInstances(String captureInstance) {
    Identifiers.captureInstance(captureInstance);
    if (resolvedTable != null) {
      Optional<List<CaptureInstance>> r = helpTable(resolvedTable)
          .flatMap(ofTable -> CaptureInstanceResolver.resolve(captureInstance, ofTable));
      if (r.isPresent() && !r.get().isEmpty()) {
        return r.get();
      }
    }
    List<CaptureInstance> all = help(SqlText.of(CdcSql.HELP_ALL));
    List<CaptureInstance> found = CaptureInstanceResolver.resolve(captureInstance, all)
        .filter(l -> !l.isEmpty())
        .orElseThrow(() -> CdcErrors.captureInstanceNotFound(captureInstance,
            CaptureInstanceResolver.candidates(captureInstance, all)));
    resolvedTable = new TableRef(found.get(0).sourceSchema(), found.get(0).sourceTable());
    return found;
  }

  @Override
  public List<CaptureInstance> allCaptureInstances() {
    return CaptureInstanceResolver.catalogOrder(help(SqlText.of(CdcSql.HELP_ALL)));
  }

  /**
   * The instances of the table resolved before; empty when the procedure refuses the table. With
   * {@code @source_schema}/{@code @source_name} it raises an error (rather than returning no row)
   * when the table no longer exists under that name: renamed with {@code sp_rename} (CDC keeps
   * capturing it) or dropped. The full listing then decides (reference §20 "fall back to the
   * full listing when the name is missing there"). Transient failures are retried as usual.
   */
  private Optional<List<CaptureInstance>> helpTable(TableRef t) {
    SqlText q = SqlText.of(CdcSql.HELP_TABLE, t.schema(), t.table());
    try {
      return Optional.of(session.run("sys.sp_cdc_help_change_data_capture for " + t, () -> helpRows(q)));
    } catch (SQLException e) {
      return Optional.empty();
    }
  }

  private List<CaptureInstance> help(SqlText q) {
    return call("sys.sp_cdc_help_change_data_capture", () -> helpRows(q));
  }

  private List<CaptureInstance> helpRows(SqlText q) throws SQLException {
    try (PreparedStatement ps = session.prepare(q); ResultSet rs = JdbcSession.firstResultSet(ps)) {
      List<CaptureInstance> out = new ArrayList<>();
      while (rs != null && rs.next()) {
        byte[] start = rs.getBytes("start_lsn");
        out.add(new CaptureInstance(rs.getString("capture_instance"), rs.getString("source_schema"),
            rs.getString("source_table"), start == null ? null : Lsn.fromBytes(start),
            CaptureInstanceResolver.indexColumns(rs.getString("index_column_list")),
            rs.getObject("create_date", LocalDateTime.class)));
      }
      return out;
    }
  }

  @Override
  public List<CapturedColumn> capturedColumns(String captureInstance) {
    Identifiers.captureInstance(captureInstance);
    // Not cached: ALTER COLUMN changes a captured column's type, and the driver's type checks need
    // the current one. (changes() caches the names only: an instance's columns never change.)
    // The procedure fails (rather than returning nothing) for an unknown instance or missing rights.
    List<Object[]> raw = callOr("sys.sp_cdc_get_captured_columns", () -> capturedColumnRows(captureInstance),
        e -> CdcErrors.captureInstanceNotFound(captureInstance, List.of()));
    if (raw.isEmpty()) {
      throw CdcErrors.captureInstanceNotFound(captureInstance, List.of());
    }
    TableRef table = new TableRef((String) raw.get(0)[0], (String) raw.get(0)[1]);
    Map<Integer, Boolean> computed = new HashMap<>();
    for (TableColumn c : tableColumns(table)) {
      computed.put(c.columnId(), c.computed());
    }
    List<CapturedColumn> out = new ArrayList<>();
    for (Object[] r : raw) {
      int columnId = (Integer) r[4];
      out.add(new CapturedColumn((String) r[2], (Integer) r[3], columnId, (SqlServerType) r[5],
          computed.getOrDefault(columnId, false)));
    }
    out.sort(java.util.Comparator.comparingInt(CapturedColumn::ordinal));
    return List.copyOf(out);
  }

  private List<Object[]> capturedColumnRows(String captureInstance) throws SQLException {
    try (PreparedStatement ps = session.prepare(SqlText.of(CdcSql.CAPTURED_COLUMNS, captureInstance));
        ResultSet rs = JdbcSession.firstResultSet(ps)) {
      List<Object[]> out = new ArrayList<>();
      while (rs != null && rs.next()) {
        SqlServerType type = new SqlServerType(rs.getString("data_type"),
            intOr(rs, "character_maximum_length", -1, true), intOr(rs, "numeric_precision", -1, false),
            intOr(rs, "numeric_scale", -1, false), intOr(rs, "datetime_precision", -1, false));
        out.add(new Object[] {rs.getString("source_schema"), rs.getString("source_table"), rs.getString("column_name"),
            rs.getInt("column_ordinal"), rs.getInt("column_id"), type});
      }
      return out;
    }
  }

  private static int intOr(ResultSet rs, String column, int dflt, boolean maxIsMinusOne) throws SQLException {
    int v = rs.getInt(column);
    if (rs.wasNull()) {
      return dflt;
    }
    return maxIsMinusOne && v == -1 ? SqlServerType.MAX_LENGTH : v;
  }

  @Override
  public List<DdlEvent> ddlHistory(String captureInstance, Lsn after, Lsn to) {
    Identifiers.captureInstance(captureInstance);
    List<Object[]> raw = call("sys.sp_cdc_get_ddl_history", () -> {
      try (PreparedStatement ps = session.prepare(SqlText.of(CdcSql.DDL_HISTORY, captureInstance)); ResultSet rs = JdbcSession.firstResultSet(ps)) {
        List<Object[]> out = new ArrayList<>();
        while (rs != null && rs.next()) {
          out.add(new Object[] {Lsn.fromBytes(rs.getBytes("ddl_lsn")), rs.getString("ddl_command")});
        }
        return out;
      }
    });
    List<DdlEvent> events = new ArrayList<>();
    for (Object[] r : raw) {
      Lsn lsn = (Lsn) r[0];
      if (lsn.isAfter(after) && !lsn.isAfter(to)) {
        events.add(new DdlEvent(captureInstance, lsn, (String) r[1], commitTimeAtOrBefore(lsn).orElse(null)));
      }
    }
    events.sort(java.util.Comparator.comparing(DdlEvent::lsn));
    return events;
  }

  // ---- change rows ------------------------------------------------------------------------

  @Override
  public List<SplitPoint> splitPoints(String captureInstance, Lsn from, Lsn to, int n) {
    List<String[]> rows = changeTableRows(captureInstance, "split points of " + captureInstance,
        SqlText.of(CdcSql.splitPoints(captureInstance, n), from.hex(), to.hex()), 3);
    List<SplitPoint> out = new ArrayList<>();
    for (String[] r : rows) {
      SplitPoint p = new SplitPoint(Lsn.parse(r[0]), Lsn.parse(r[1]), Long.parseLong(r[2]));
      SplitPoint last = out.isEmpty() ? null : out.get(out.size() - 1);
      if (last != null && last.bound().equals(p.bound())) {
        out.set(out.size() - 1, new SplitPoint(last.bound(), last.next(), last.rows() + p.rows()));
      } else {
        out.add(p);
      }
    }
    return out;
  }

  @Override
  public ChangeCursor changes(ChangeQuery query) {
    String ci = Identifiers.captureInstance(query.captureInstance());
    List<String> captured = capturedNames.computeIfAbsent(ci,
        k -> capturedColumns(k).stream().map(CapturedColumn::name).toList());
    // Requested names match the captured ones ignoring case (ColumnNames); the statement selects
    // SQL Server's spelling, which resolves under any collation. A column requested twice is read once.
    List<String> selected = new ArrayList<>();
    int[] positions = new int[query.columns().size()];
    for (int i = 0; i < positions.length; i++) {
      int k = ColumnNames.indexOf(query.columns().get(i), captured);
      if (k < 0) {
        positions[i] = -1;
        continue;
      }
      String name = captured.get(k);
      int at = selected.indexOf(name);
      if (at < 0) {
        at = selected.size();
        selected.add(name);
      }
      positions[i] = at;
    }
    SqlText utc = query.commitTimes() ? utcExpression(query.from(), query.to()) : null;
    SqlText bound = CdcSql.changes(ci, selected, query.includeCommandId(), utc, query.from().hex(), query.to().hex());
    return changeTableCall(ci, "change rows of " + ci, query.includeCommandId(), () -> {
      session.resetLockTimeout();
      PreparedStatement ps = session.prepare(bound);
      ps.setFetchSize(query.fetchSize());
      try {
        return new JdbcChangeCursor(ps, ps.executeQuery(), positions, e -> translate("reading change rows of " + ci, e));
      } catch (SQLException e) {
        ps.close();
        throw e;
      }
    });
  }

  // ---- the source table -----------------------------------------------------------------

  @Override
  public SourceTable sourceTable(String captureInstance) {
    List<CaptureInstance> instances = captureInstances(captureInstance);
    CaptureInstance named = CaptureInstance.pick(instances, captureInstance);
    return new SourceTable(new TableRef(named.sourceSchema(), named.sourceTable()), named.indexColumns());
  }

  @Override
  public List<TableColumn> tableColumns(TableRef table) {
    return tables.tableColumns(table);
  }

  @Override
  public Optional<List<Object>> keyMinMax(TableRef table, String key, KeyRange range) {
    return tables.keyMinMax(table, key, range);
  }

  @Override
  public List<List<Object>> keyTiles(TableRef table, List<String> keys, int n) {
    return tables.keyTiles(table, keys, n);
  }

  @Override
  public RowCursor readTable(TableQuery query) {
    return tables.readTable(query);
  }

  @Override
  public long countRows(TableRef table) {
    return tables.countRows(table);
  }

  @Override
  public long rowEstimate(TableRef table) {
    return tables.rowEstimate(table);
  }

  @Override
  public List<KeyBucket> keyBuckets(TableRef table, String key, long width, KeyRange range) {
    return tables.keyBuckets(table, key, width, range);
  }

  @Override
  public Optional<List<Object>> keyMax(TableRef table, List<String> keys) {
    return tables.keyMax(table, keys);
  }

  @Override
  public Optional<List<Object>> keyBound(TableRef table, List<String> keys, KeyRange range, long n) {
    return tables.keyBound(table, keys, range, n);
  }

  // ---- clock and diagnostics --------------------------------------------------------------

  @Override
  public String sourceTimeZone() {
    return clock().optionValue();
  }

  @Override
  public String refreshSourceTimeZone() {
    if (configuredZone.equalsIgnoreCase("auto")) {
      // on the open connection (scalar() opens one only when none is open)
      clock = ClockDetector.detect(sql -> scalar("time zone detection", SqlText.of(sql)));
    }
    return sourceTimeZone();
  }

  private ServerClock clock() {
    if (clock == null) {
      clock = ClockDetector.detect(sql -> scalar("time zone detection", SqlText.of(sql)));
    }
    return clock;
  }

  @Override
  public void preflight(String captureInstance) {
    new Preflight(this, sql -> call("preflight", () -> session.row(SqlText.of(sql)))).check(captureInstance);
  }

  @Override
  public CaptureHealth captureHealth() {
    return new CaptureHealthProbe(sql -> session.run("capture health", () -> session.readRows(SqlText.of(sql), -1)),
        e -> translate("capture health", e)).probe();
  }

  @Override
  public OptionalDouble pingMillis() {
    long t0 = System.nanoTime();
    scalar("ping", SqlText.of(CdcSql.PING));
    return OptionalDouble.of((System.nanoTime() - t0) / 1e6);
  }

  /**
   * {@inheritDoc} Empty without a statement once the login was refused
   * {@code sys.dm_exec_session_wait_stats} (VIEW SERVER PERFORMANCE STATE on SQL Server 2022+,
   * VIEW SERVER STATE before): by this client, or by any client of the same login in this JVM
   * ({@link WaitStatsRefusals}), so a reader asks once per executor, not twice per range.
   */
  @Override
  public OptionalLong networkWaitMillis() {
    if (waitStatsRefused || WaitStatsRefusals.refused(login)) {
      return OptionalLong.empty();
    }
    try {
      String v = callOr("network wait", () -> {
        try (PreparedStatement ps = session.prepare(SqlText.of(CdcSql.NETWORK_WAIT)); ResultSet rs = ps.executeQuery()) {
          return rs.next() ? rs.getString(1) : "0";
        }
      }, e -> {
        if (SqlServerErrors.classify(e) == SqlServerErrors.Kind.PERMISSION) {
          waitStatsRefused = true;
          WaitStatsRefusals.refuse(login, e.getMessage());
        }
        return translate("network wait", e);
      });
      return OptionalLong.of(Long.parseLong(v));
    } catch (RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  /**
   * This client's login as {@link WaitStatsRefusals} keys it (URL and user, never the password);
   * null when the client was built from a bare connection factory.
   */
  SqlCdcClient login(String key) {
    this.login = key;
    return this;
  }

  @Override
  public void close() {
    session.close();
  }

  // ---- execution ----------------------------------------------------------------------------

  <T> T call(String what, DriverRetry.SqlCall<T> body) {
    return callOr(what, body, e -> translate(what, e));
  }

  /** Runs {@code body} with retries; a non-transient failure becomes {@code onFailure}'s exception. */
  <T> T callOr(String what, DriverRetry.SqlCall<T> body, java.util.function.Function<SQLException, RuntimeException> onFailure) {
    try {
      return session.run(what, body);
    } catch (SQLException e) {
      throw onFailure.apply(e);
    }
  }

  /**
   * Like {@link #call}, but a failure may be a missing grant on the change table (probe Q28) or,
   * when the statement selects it ({@code selectsCommandId}), a change table without
   * {@code __$command_id} (probe Q29). A probe that fails itself leaves the read's own error,
   * with the probe's failure suppressed in it.
   */
  private <T> T changeTableCall(String captureInstance, String what, boolean selectsCommandId, DriverRetry.SqlCall<T> body) {
    try {
      return session.run(what, body);
    } catch (SQLException e) {
      throw failures.of(captureInstance, what, selectsCommandId, e);
    }
  }

  private List<String[]> changeTableRows(String captureInstance, String what, SqlText q, int width) {
    return changeTableCall(captureInstance, what, false, () -> {
      session.resetLockTimeout();
      return session.readRows(q, width);
    });
  }

  RuntimeException translate(String what, SQLException e) {
    SqlServerErrors.Kind kind = SqlServerErrors.classify(e);
    if (kind == SqlServerErrors.Kind.PERMISSION) {
      return CdcErrors.missingGrant(what, "the SELECT right the message names (" + SqlServerErrors.describe(e) + ")");
    }
    if (kind == SqlServerErrors.Kind.TRANSIENT) {
      return CdcErrors.sourceUnavailable(what, 1, SqlServerErrors.describe(e), e);
    }
    if (kind == SqlServerErrors.Kind.UNKNOWN_TIME_ZONE && clock != null) {
      // AT TIME ZONE takes only the Windows names of sys.time_zone_info, on Linux too: an IANA name
      // passes the option's syntax check and fails here, at the first conversion.
      return CdcErrors.invalidOption("sourceTimeZone", clock.zone(),
          "a time zone this SQL Server knows (SELECT name FROM sys.time_zone_info), UTC±HH:MM or 'auto'",
          "SQL Server refused it in AT TIME ZONE (error 9820); it takes Windows names such as"
              + " 'E. South America Standard Time', not IANA names such as 'America/Sao_Paulo'");
    }
    if (kind == SqlServerErrors.Kind.SNAPSHOT_NOT_ALLOWED) {
      return CdcErrors.invalidOption("isolationLevel", TableQuery.Isolation.SNAPSHOT.optionValue(),
          "readCommitted, or snapshot on a database that allows snapshot isolation",
          "SQL Server refused " + what + " (error 3952): a DBA runs ALTER DATABASE CURRENT SET"
              + " ALLOW_SNAPSHOT_ISOLATION ON; once, or set isolationLevel=readCommitted");
    }
    return CdcErrors.statementFailed(what, SqlServerErrors.describe(e), e);
  }

  private String scalar(String what, SqlText q) {
    return call(what, () -> session.row(q)[0]);
  }

  private List<String[]> rows(String what, SqlText q, int width) {
    return call(what, () -> session.readRows(q, width));
  }

  private static Optional<Lsn> lsn(String hex) {
    return hex == null ? Optional.empty() : Optional.of(Lsn.parse(hex));
  }
}
