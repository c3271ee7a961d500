package io.mssqlcdc.standin;

import static io.mssqlcdc.standin.Answer.col;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.DdlEvent;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.client.SplitPoint;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.fake.FakeCatalogView.DeclaredColumn;
import io.mssqlcdc.fake.FakeCatalogView.MappingRow;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.standin.Answer.RowSource;
import io.mssqlcdc.standin.Answer.Rows;
import io.mssqlcdc.standin.Statement.Recognised;
import io.mssqlcdc.standin.tds.SqlType;
import io.mssqlcdc.standin.tds.Tokens.Column;
import io.mssqlcdc.types.SqlServerType;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;

/**
 * The answer to each {@link Statement}, computed from the session's fake database ({@link
 * FakeBackend}) with SQL Server's semantics for the statement text: the switch below is
 * exhaustive, so a new kind cannot be recognised without being answered.
 */
final class Answers {
  private static final String LSN = "varchar(22)";
  private static final String TIME_126 = "varchar(23)";

  private final FakeBackend db;
  private final Session session;

  Answers(FakeBackend db, Session session) {
    this.db = db;
    this.session = session;
  }

  Answer answer(Recognised r, List<String> params) {
    Matcher m = r.match();
    return switch (r.kind()) {
      case VERSION_PROBE -> Answer.one(col("", "int"), db.options().sqlServer2022() ? 1 : 0);
      case ZONE_NAME -> Answer.one(col("", "nvarchar(max)"), db.windowsZoneName());
      case FIXED_OFFSET -> Answer.one(col("", "int"), ZonedDateTime.now(db.zone()).getOffset().getTotalSeconds() / 60);
      case MAX_LSN -> Answer.one(col("", LSN), db.client().maxLsn().map(Lsn::hex).orElse(null));
      case MIN_LSN -> Answer.one(col("", LSN), minLsn(params.get(0)).hex());
      case INCREMENT_LSN -> Answer.one(col("", LSN), db.client().incrementLsn(lsn(params.get(0))).hex());
      case DECREMENT_LSN -> Answer.one(col("", LSN), db.client().decrementLsn(lsn(params.get(0))).hex());
      case ENTRY_AT_OR_BEFORE -> rows(List.of(col("", LSN)),
          db.entryAtOrBefore(lsn(params.get(0))).map(e -> row(e.lsn().hex())).stream().toList());
      case COMMIT_TIME -> commitTime(m, params);
      case NTH_COMMIT_AFTER -> nthCommitAfter(Integer.parseInt(m.group("n")), lsn(params.get(0)));
      case COMMITS_BETWEEN -> commitsBetween(Integer.parseInt(m.group("n")), lsn(params.get(0)), lsn(params.get(1)));
      case RANGE_OFFSET -> rangeOffset(UtcExpression.zone(m.group("zone")), lsn(params.get(0)), lsn(params.get(1)));
      case DROPS -> drops(UtcExpression.zone(m.group("zone")), lsn(params.get(0)), lsn(params.get(1)));
      case SPLIT_POINTS -> splitPoints(unquote(m.group("ci")), Integer.parseInt(m.group("n")), params);
      case CHANGES -> changes(m, params);
      case PERMISSION_PROBE -> permissionProbe(params.get(0));
      case COMMAND_ID_PROBE -> commandIdProbe(params.get(0));
      case CAPTURED_COLUMNS -> capturedColumns(params.get(0));
      case DDL_HISTORY -> ddlHistory(params.get(0));
      case HELP_ALL -> help(db.view().captureInstances());
      case HELP_TABLE -> helpTable(params.get(0), params.get(1));
      case TABLE_COLUMNS -> tableColumns(params.get(0), params.get(1));
      case PING -> Answer.one(col("", "int"), 1);
      case NETWORK_WAIT -> rows(List.of(col("wait_time_ms", "bigint")),
          db.options().networkWaitMs() < 0 ? List.of() : List.<Object[]>of(row(db.options().networkWaitMs())));
      case CDC_ENABLED -> new Rows(List.of(col("is_cdc_enabled", "bit"), col("", "nvarchar(128)")),
          RowSource.of(List.<Object[]>of(row(true, db.options().database()))));
      case CAPTURE_AGE_SECONDS -> captureAge();
      case HEALTH_CLOCK, CDC_JOBS, LOG_SCAN, CDC_ERRORS -> captureHealth(r.kind());
      case SESSION_PREFIX -> {
        session.isolation(r.variant() == 0 ? TableQuery.Isolation.READ_COMMITTED : TableQuery.Isolation.SNAPSHOT);
        session.lockTimeoutMs(Long.parseLong(m.group("ms")));
        yield new Answer.NoResult();
      }
      case KEY_MIN_MAX -> keyMinMax(m, params);
      case KEY_TILES -> keyTiles(m);
      case READ_TABLE -> readTable(m, params);
      case LAST_ENTRY_AT_OR_BEFORE -> entryAtOrBeforeTime(m, params, true);
      case FIRST_ENTRY_AT_OR_BEFORE -> entryAtOrBeforeTime(m, params, false);
      case KEY_BUCKETS -> keyBuckets(m, params);
      case COUNT_ROWS -> countRows(m);
      case ROW_ESTIMATE -> rowEstimate(params.get(0));
      case KEY_MAX -> keyMax(m);
      case KEY_BOUND -> keyBound(m, params);
    };
  }

  // ---- LSNs and times ----

  private static Object[] row(Object... values) {
    return values;
  }

  private static Rows rows(List<Column> columns, List<Object[]> rows) {
    return new Rows(columns, RowSource.of(rows));
  }

  /** {@code CONVERT(binary(10), ?, 1)} of a parameter. */
  private static Lsn lsn(String hex) {
    try {
      return Lsn.parse(hex);
    } catch (RuntimeException e) {
      throw new SqlError(8114, 5, 16, "Error converting data type nvarchar to binary.");
    }
  }

  /** {@code sys.fn_cdc_get_min_lsn}: 0x00.. for a name no instance has (by the collation's rule). */
  private Lsn minLsn(String ci) {
    Optional<CaptureInstance> instance = db.instance(ci);
    if (instance.isEmpty()) {
      return Lsn.ZERO;
    }
    try {
      return db.client().minLsn(instance.get().name());
    } catch (CdcConfigException e) {
      return Lsn.ZERO;
    }
  }

  /** Q8: the parameters of the UTC expression come first, then the LSN. */
  private Answer commitTime(Matcher m, List<String> params) {
    UtcExpression utc = UtcExpression.parse(m.group("utc"), params.subList(0, params.size() - 1));
    Lsn lsn = lsn(params.get(params.size() - 1));
    List<Object[]> out = new ArrayList<>();
    db.entry(lsn).ifPresent(e -> out.add(row(SqlValues.style126(utc.toUtc(e.tranEndTime(), e.lsn())))));
    return rows(List.of(col("", TIME_126)), out);
  }

  private Answer nthCommitAfter(int n, Lsn after) {
    List<MappingRow> mapping = db.view().lsnTimeMapping();
    int first = db.firstAfter(after);
    Object v = first >= mapping.size() ? null : mapping.get((int) Math.min((long) first + n - 1, mapping.size() - 1)).lsn().hex();
    return Answer.one(col("", LSN), v);
  }

  /** Q10b as written: COUNT_BIG over TOP (n) of the entries in (after, upTo]; 0 for an empty range. */
  private Answer commitsBetween(int n, Lsn after, Lsn upTo) {
    int from = db.firstAfter(after);
    int to = db.firstAfter(upTo);
    return Answer.one(col("", "bigint"), Math.min((long) n, Math.max(0L, (long) to - from)));
  }

  /** Q13 as written: one offset when the range spans under 7 days and the offsets 3 h outside it agree. */
  private Answer rangeOffset(ZoneId zone, Lsn from, Lsn to) {
    List<MappingRow> in = db.between(from, to);
    Integer offset = null;
    if (!in.isEmpty()) {
      LocalDateTime min = in.stream().map(MappingRow::tranEndTime).min(Comparator.naturalOrder()).orElseThrow();
      LocalDateTime max = in.stream().map(MappingRow::tranEndTime).max(Comparator.naturalOrder()).orElseThrow();
      int before = UtcExpression.offsetAt(zone, min.minusHours(3));
      int after = UtcExpression.offsetAt(zone, max.plusHours(3));
      if (ChronoUnit.DAYS.between(min.toLocalDate(), max.toLocalDate()) < 7 && before == after) {
        offset = after;
      }
    }
    return Answer.one(col("", "int"), offset);
  }

  /**
   * Q14 as written: the range's first entry (the derived table {@code a}: none when no entry lies
   * at or after the range start, and then no row at all), then the drops from the last entry 3 h
   * before it (else from 0x00..) to the range end.
   */
  private Answer drops(ZoneId zone, Lsn from, Lsn to) {
    List<MappingRow> mapping = db.view().lsnTimeMapping();
    List<Object[]> out = new ArrayList<>();
    int firstInRange = db.firstAtOrAfter(from);
    if (firstInRange >= mapping.size()) {
      return rows(List.of(col("l", LSN), col("t", TIME_126)), out);
    }
    LocalDateTime limit = mapping.get(firstInRange).tranEndTime().minusHours(3);
    MappingRow best = null;
    for (MappingRow e : mapping) {
      if (!e.tranEndTime().isAfter(limit) && (best == null || e.tranEndTime().isAfter(best.tranEndTime()))) {
        best = e;
      }
    }
    Lsn start = best == null ? Lsn.ZERO : best.lsn();
    LocalDateTime prev = null;
    for (MappingRow e : mapping) {
      if (e.lsn().isBefore(start) || e.lsn().isAfter(to)) {
        continue;
      }
      LocalDateTime t = e.tranEndTime();
      if (prev != null && t.isBefore(prev.minusMinutes(1)) && UtcExpression.repeated(zone, t)) {
        out.add(row(e.lsn().hex(), SqlValues.style126(t)));
      }
      prev = t;
    }
    return rows(List.of(col("l", LSN), col("t", TIME_126)), out);
  }

  /**
   * Q9 / Q9b as written: over the entries in {@code [from, to]}, in LSN order from the end (last)
   * or the start (first), the first whose UTC time by the expression, as {@code datetime2(3)}, is
   * at or before {@code CONVERT(datetime2(3), ?, 126)} of the time.
   */
  private Answer entryAtOrBeforeTime(Matcher m, List<String> params, boolean last) {
    Lsn from = lsn(params.get(0));
    Lsn to = lsn(params.get(1));
    UtcExpression utc = UtcExpression.parse(m.group("utc"), params.subList(2, params.size() - 1));
    LocalDateTime at;
    try {
      at = LocalDateTime.parse(params.get(params.size() - 1));
    } catch (java.time.format.DateTimeParseException e) {
      throw new SqlError(241, 1, 16, "Conversion failed when converting date and/or time from character string.");
    }
    List<MappingRow> in = new ArrayList<>(db.between(from, to));
    if (last) {
      java.util.Collections.reverse(in);
    }
    List<Object[]> out = new ArrayList<>();
    for (MappingRow e : in) {
      if (!utc.toUtc(e.tranEndTime(), e.lsn()).truncatedTo(ChronoUnit.MILLIS).isAfter(at)) {
        out.add(row(e.lsn().hex()));
        break;
      }
    }
    return rows(List.of(col("", LSN)), out);
  }

  private Answer captureAge() {
    Optional<MappingRow> last = db.lastEntry();
    Object v = last.map(e -> (int) ChronoUnit.SECONDS.between(e.tranEndTime(), LocalDateTime.now(db.zone()))).orElse(null);
    return Answer.one(col("", "int"), v);
  }

  /**
   * The capture-health reads from the fake's simulated jobs ({@code FakeCdcDatabase.stopCapture} ...), as
   * ages on one clock; a hidden state answers msdb and the DMVs as SQL Server refuses a least-privilege
   * login (229 on msdb's table, 300 for VIEW DATABASE STATE).
   */
  private Answer captureHealth(Statement kind) {
    io.mssqlcdc.client.CaptureHealth h = db.client().captureHealth();
    java.time.Instant now = h.observedAt();
    boolean hidden = !h.unreadable().isEmpty();
    return switch (kind) {
      case HEALTH_CLOCK -> rows(List.of(col("", "varchar(33)"), col("", "bigint")), List.<Object[]>of(row(
          LocalDateTime.ofInstant(now, java.time.ZoneOffset.UTC).toString(),
          h.maxLsnTime().map(t -> java.time.Duration.between(t, now).toMillis()).orElse(null))));
      case CDC_JOBS -> {
        if (hidden) {
          throw new SqlError(229, 5, 14, "The SELECT permission was denied on the object 'cdc_jobs', database 'msdb',"
              + " schema 'dbo'.");
        }
        List<Object[]> jobs = new ArrayList<>();
        jobs.add(row("capture", h.jobRunning().orElse(false) ? 1 : 0, 0L, true));
        h.cleanupRetention().ifPresent(r -> jobs.add(row("cleanup", 0, r.toMinutes(), false)));
        yield rows(List.of(col("job_type", "nvarchar(20)"), col("", "int"), col("retention", "bigint"),
            col("continuous", "bit")), jobs);
      }
      case LOG_SCAN -> {
        if (hidden) {
          throw viewDatabaseStateDenied();
        }
        yield rows(List.of(col("", "varchar(33)"), col("", "bigint"), col("latency", "int")), h.lastScanEnd().isEmpty()
            ? List.of() : List.<Object[]>of(row(LocalDateTime.ofInstant(now, java.time.ZoneOffset.UTC).toString(),
                java.time.Duration.between(h.lastScanEnd().get(), now).toMillis(),
                (int) Math.round(h.scanLatencySeconds().orElse(0.0)))));
      }
      case CDC_ERRORS -> {
        if (hidden) {
          throw viewDatabaseStateDenied();
        }
        yield rows(List.of(col("", "int"), col("", "nvarchar(4000)")),
            List.<Object[]>of(row(h.recentErrors().orElse(0L).intValue(), h.lastError().orElse(null))));
      }
      default -> throw new IllegalArgumentException(kind.name());
    };
  }

  private SqlError viewDatabaseStateDenied() {
    return new SqlError(300, 1, 14, "VIEW DATABASE STATE permission denied in database '" + db.options().database()
        + "'.");
  }

  // ---- change rows ----

  private static String unquote(String inBrackets) {
    return inBrackets.replace("]]", "]");
  }

  private Answer splitPoints(String ci, int n, List<String> params) {
    requireChangeTable(ci);
    List<SplitPoint> points = db.client().splitPoints(ci, lsn(params.get(0)), lsn(params.get(1)), n);
    List<Object[]> out = new ArrayList<>();
    for (SplitPoint p : points) {
      out.add(row(p.bound().hex(), db.client().incrementLsn(p.bound()).hex(), p.rows()));
    }
    return rows(List.of(col("b", LSN), col("n", LSN), col("r", "bigint")), out);
  }

  /** The instance whose change table {@code cdc.[<ci>_CT]} names (ignoring case), or error 208 / 229. */
  private CaptureInstance requireChangeTable(String ci) {
    CaptureInstance found = db.instance(ci)
        .orElseThrow(() -> SqlError.invalidObject("cdc." + ci + "_CT"));
    if (db.options().deniedChangeTables().contains(found.name())) {
      throw new SqlError(229, 5, 14, "The SELECT permission was denied on the object '" + found.name() + "_CT', database '"
          + db.options().database() + "', schema 'cdc'.");
    }
    return found;
  }

  private Answer changes(Matcher m, List<String> params) {
    String ci = unquote(m.group("ci"));
    boolean commandId = m.group("cmd").startsWith("c.");
    if ((commandId || m.group("order") != null) && !db.options().changeTablesHaveCommandId()) {
      throw SqlError.invalidColumn("__$command_id");
    }
    CaptureInstance instance = requireChangeTable(ci);
    int utcParams = params.size() - 2;
    if ((m.group("utc") == null) != (m.group("join") == null)) {
      throw new IllegalArgumentException("a commit time needs the mapping join, and the join a commit time: " + m.group());
    }
    UtcExpression utc = m.group("utc") == null ? null : UtcExpression.parse(m.group("utc"), params.subList(0, utcParams));
    Lsn from = lsn(params.get(utcParams));
    Lsn to = lsn(params.get(utcParams + 1));
    List<CapturedColumn> captured = db.client().capturedColumns(instance.name());
    List<String> names = new ArrayList<>();
    List<Column> columns = new ArrayList<>(List.of(col("_start_lsn", "binary(10)"), col("_seqval", "binary(10)"), col("_operation", "int"),
        col("_command_id", "int"), col("_commit_ts", TIME_126)));
    for (String quoted : Predicate.tokens(m.group("cols"))) {
      if (!quoted.startsWith("[")) {
        continue;
      }
      String name = unquote(quoted.substring(1, quoted.length() - 1));
      CapturedColumn c = captured.stream().filter(k -> db.sameName(k.name(), name)).findFirst()
          .orElseThrow(() -> SqlError.invalidColumn(name));
      names.add(c.name());
      columns.add(new Column(name, SqlType.of(c.type())));
    }
    ChangeCursor cursor = db.client().changes(new ChangeQuery(instance.name(), from, to, names, commandId, 1000));
    Map<Lsn, String> times = new HashMap<>();
    return new Rows(columns, new RowSource() {
      @Override
      public Object[] next() {
        while (cursor.next()) {
          Lsn start = cursor.startLsn();
          String ts = null;
          if (utc != null) {
            ts = times.computeIfAbsent(start, l -> db.entry(l)
                .map(e -> SqlValues.style126(utc.toUtc(e.tranEndTime(), e.lsn()))).orElse(null));
            if (ts == null) {
              continue; // the inner join with cdc.lsn_time_mapping drops rows without an entry
            }
          }
          Object[] r = new Object[5 + names.size()];
          r[0] = start.toBytes();
          r[1] = cursor.seqval().toBytes();
          r[2] = cursor.operation();
          r[3] = commandId ? cursor.commandId() : 0;
          r[4] = ts;
          for (int i = 0; i < names.size(); i++) {
            r[5 + i] = cursor.value(i);
          }
          return r;
        }
        return null;
      }

      @Override
      public void close() {
        cursor.close();
      }
    });
  }

  // ---- metadata ----

  private Answer permissionProbe(String ci) {
    Lsn min = minLsn(ci);
    Object allowed = min.isZero() ? null
        : db.instance(ci).filter(i -> db.options().deniedChangeTables().contains(i.name())).isPresent() ? 0 : 1;
    return new Rows(List.of(col("", "int"), col("", "nvarchar(128)")),
        RowSource.of(List.<Object[]>of(row(allowed, db.options().databaseUser()))));
  }

  /**
   * Q29: {@code COL_LENGTH(<name>, '__$command_id')}: 4 (an int's bytes) when {@code name} is a
   * change table ({@code cdc.[<ci>_CT]}, resolved ignoring case) that has the column; NULL when it
   * lacks it, when no such table exists, and when the login may not see it (SQL Server's metadata
   * visibility: a denied change table is not visible).
   */
  private Answer commandIdProbe(String name) {
    Object length = changeTableNamed(name)
        .filter(i -> db.options().changeTablesHaveCommandId() && !db.options().deniedChangeTables().contains(i.name()))
        .map(i -> (Object) (short) 4).orElse(null);
    return Answer.one(col("", "smallint"), length);
  }

  /** The instance whose change table the object name {@code cdc.<ci>_CT} (parts bracketed or not) names. */
  private Optional<CaptureInstance> changeTableNamed(String name) {
    List<String> parts = new ArrayList<>();
    for (String tok : Predicate.tokens(name)) {
      if (!tok.equals(".")) {
        parts.add(tok.startsWith("[") ? unquote(tok.substring(1, tok.length() - 1)) : tok);
      }
    }
    if (parts.size() != 2 || !db.sameName("cdc", parts.get(0)) || parts.get(1).length() < 3
        || !db.sameName("_CT", parts.get(1).substring(parts.get(1).length() - 3))) {
      return Optional.empty();
    }
    return db.instance(parts.get(1).substring(0, parts.get(1).length() - 3));
  }

  private CaptureInstance requireInstance(String ci) {
    return db.instance(ci)
        .orElseThrow(() -> new SqlError(22985, 1, 16, "The capture instance '" + ci + "' does not exist in database '"
            + db.options().database() + "' or the caller is not authorized to access it."));
  }

  private Answer capturedColumns(String ci) {
    CaptureInstance instance = requireInstance(ci);
    List<Column> columns = List.of(col("source_schema", "sysname"), col("source_table", "sysname"),
        col("capture_instance", "sysname"), col("column_name", "sysname"), col("column_id", "int"),
        col("column_ordinal", "int"), col("data_type", "sysname"), col("character_maximum_length", "int"),
        col("numeric_precision", "tinyint"), col("numeric_precision_radix", "smallint"), col("numeric_scale", "int"),
        col("datetime_precision", "smallint"));
    List<Object[]> out = new ArrayList<>();
    for (CapturedColumn c : db.client().capturedColumns(instance.name())) {
      SqlServerType t = c.type();
      out.add(row(instance.sourceSchema(), instance.sourceTable(), instance.name(), c.name(), c.columnId(), c.ordinal(),
          CatalogTypes.typeName(t), CatalogTypes.characterMaximumLength(t), CatalogTypes.numericPrecision(t),
          CatalogTypes.numericPrecisionRadix(t), CatalogTypes.numericScale(t), CatalogTypes.datetimePrecision(t)));
    }
    return rows(columns, out);
  }

  private Answer ddlHistory(String ci) {
    CaptureInstance instance = requireInstance(ci);
    List<Column> columns = List.of(col("source_schema", "sysname"), col("source_table", "sysname"),
        col("capture_instance", "sysname"), col("required_column_update", "bit"), col("ddl_command", "nvarchar(max)"),
        col("ddl_lsn", "binary(10)"), col("ddl_time", "datetime"));
    List<Object[]> out = new ArrayList<>();
    for (DdlEvent e : db.client().ddlHistory(instance.name(), Lsn.ZERO, Lsn.MAX)) {
      LocalDateTime local = e.commitTime() == null ? null : LocalDateTime.ofInstant(e.commitTime(), db.zone());
      out.add(row(instance.sourceSchema(), instance.sourceTable(), instance.name(), false, e.command(),
          e.lsn().toBytes(), local));
    }
    return rows(columns, out);
  }

  private Answer helpTable(String schema, String table) {
    Optional<TableRef> t = db.table(new TableRef(schema, table));
    if (t.isEmpty()) {
      throw new SqlError(22981, 1, 16, "Object does not exist or access is denied.");
    }
    return help(db.view().captureInstances().stream()
        .filter(i -> i.sourceSchema().equals(t.get().schema()) && i.sourceTable().equals(t.get().table())).toList());
  }

  private Answer help(List<CaptureInstance> instances) {
    List<Column> columns = List.of(col("source_schema", "sysname"), col("source_table", "sysname"),
        col("capture_instance", "sysname"), col("object_id", "int"), col("source_object_id", "int"),
        col("start_lsn", "binary(10)"), col("end_lsn", "binary(10)"), col("supports_net_changes", "bit"),
        col("has_drop_pending", "bit"), col("role_name", "sysname"), col("index_name", "sysname"),
        col("filegroup_name", "sysname"), col("create_date", "datetime"), col("index_column_list", "nvarchar(max)"),
        col("captured_column_list", "nvarchar(max)"));
    List<Object[]> out = new ArrayList<>();
    int id = 1000;
    for (CaptureInstance i : instances) {
      out.add(row(i.sourceSchema(), i.sourceTable(), i.name(), ++id, 100 + id, i.startLsn().toBytes(), null, false,
          null, null, "PK_" + i.sourceTable(), null, i.createDate(), quotedList(i.indexColumns()),
          quotedList(db.view().capturedColumnNames(i.name()))));
    }
    return rows(columns, out);
  }

  private static String quotedList(List<String> names) {
    return String.join(", ", names.stream().map(n -> "[" + n.replace("]", "]]") + "]").toList());
  }

  private Answer tableColumns(String schema, String table) {
    List<Column> columns = List.of(col("name", "sysname"), col("column_id", "int"), col("is_computed", "bit"),
        col("collation_name", "sysname"), col("type_name", "sysname"), col("max_length", "smallint"),
        col("precision", "tinyint"), col("scale", "tinyint"));
    List<Object[]> out = new ArrayList<>();
    Optional<TableRef> declared = db.table(new TableRef(schema, table));
    for (DeclaredColumn c : declared.flatMap(d -> db.view().columns(d)).orElse(List.of())) {
      SqlServerType t = c.type();
      out.add(row(c.name(), c.columnId(), c.computed(), CatalogTypes.collation(t, db.options().collation()), CatalogTypes.typeName(t),
          CatalogTypes.maxLength(t), CatalogTypes.precision(t), CatalogTypes.scale(t)));
    }
    return rows(columns, out);
  }

  // ---- the source table ----

  /** A source table of a statement: {@code [schema].[table]} resolved ignoring case, with its columns. */
  private final class SourceTable implements Predicate.Columns {
    final TableRef ref;
    final Map<String, DeclaredColumn> columns = new HashMap<>();

    SourceTable(String quoted) {
      List<String> parts = Predicate.tokens(quoted).stream().filter(p -> p.startsWith("[")).toList();
      TableRef asked = new TableRef(unquote(parts.get(0).substring(1, parts.get(0).length() - 1)),
          unquote(parts.get(1).substring(1, parts.get(1).length() - 1)));
      this.ref = db.table(asked).orElseThrow(() -> SqlError.invalidObject(asked.schema() + "." + asked.table()));
      for (DeclaredColumn c : db.view().columns(ref).orElseThrow()) {
        columns.put(c.name().toLowerCase(Locale.ROOT), c);
      }
      if (session.isolation() == TableQuery.Isolation.SNAPSHOT && !db.options().snapshotIsolationAllowed()) {
        throw SqlError.snapshotNotAllowed(db.options().database());
      }
    }

    DeclaredColumn column(String name) {
      DeclaredColumn c = columns.get(name.toLowerCase(Locale.ROOT));
      if (c == null || !db.sameName(c.name(), name)) {
        throw SqlError.invalidColumn(name);
      }
      return c;
    }

    @Override
    public SqlServerType type(String column) {
      return column(column).type();
    }

    @Override
    public boolean caseInsensitive(String column) {
      String collation = CatalogTypes.collation(type(column), db.options().collation());
      return collation != null && collation.toUpperCase(Locale.ROOT).contains("_CI");
    }

    /** The declared names of a quoted column list ("[a], [b]"), as written. */
    List<String> list(String quotedList) {
      List<String> out = new ArrayList<>();
      for (String tok : Predicate.tokens(quotedList)) {
        if (tok.startsWith("[")) {
          String name = unquote(tok.substring(1, tok.length() - 1));
          column(name);
          out.add(name);
        }
      }
      return out;
    }

    /** Every row, as maps of lower-case column name to value (the fake applies queued before-read commits first). */
    RowCursor readAll(List<String> names) {
      List<String> declared = names.stream().map(n -> column(n).name()).distinct().toList();
      return db.client().readTable(new TableQuery(ref, declared, List.of(), KeyRange.ALL, session.isolation(),
          session.lockTimeoutMs(), 1000));
    }
  }

  /** Counts the {@code ?} marks of a predicate text (none occur inside quoted names here: brackets are skipped). */
  private static int marks(String sql) {
    int n = 0;
    boolean inBracket = false;
    for (char c : sql.toCharArray()) {
      if (c == '[') {
        inBracket = true;
      } else if (c == ']') {
        inBracket = false;
      } else if (c == '?' && !inBracket) {
        n++;
      }
    }
    return n;
  }

  private Answer keyMinMax(Matcher m, List<String> params) {
    SourceTable t = new SourceTable(m.group("t"));
    String key = t.list(m.group("k")).get(0);
    String w1 = m.group("w1");
    String w2 = m.group("w2");
    Iterator<String> it = params.iterator();
    Predicate p1 = w1 == null ? null : Predicate.parse(w1.substring(" WHERE ".length()), it, t);
    Predicate p2 = w2 == null ? null : Predicate.parse(w2.substring(" WHERE ".length()), it, t);
    List<String> read = new ArrayList<>(List.of(key));
    if (p1 != null) {
      read.addAll(p1.columns());
    }
    if (p2 != null) {
      read.addAll(p2.columns());
    }
    SqlServerType type = t.type(key);
    boolean ci = t.caseInsensitive(key);
    Object lo = null;
    Object hi = null;
    try (RowCursor rows = t.readAll(read)) {
      List<String> names = read.stream().map(n -> t.column(n).name()).distinct().toList();
      while (rows.next()) {
        Map<String, Object> row = rowMap(names, rows);
        Object v = row.get(t.column(key).name().toLowerCase(Locale.ROOT));
        if (v == null) {
          continue;
        }
        if ((p1 == null || p1.test(c -> row.get(c.toLowerCase(Locale.ROOT)))) && (lo == null || SqlValues.compare(v, lo, type, ci) < 0)) {
          lo = v;
        }
        if ((p2 == null || p2.test(c -> row.get(c.toLowerCase(Locale.ROOT)))) && (hi == null || SqlValues.compare(v, hi, type, ci) > 0)) {
          hi = v;
        }
      }
    }
    SqlType st = SqlType.of(type);
    return new Rows(List.of(new Column("lo", st), new Column("hi", st)), RowSource.of(List.<Object[]>of(row(lo, hi))));
  }

  private static Map<String, Object> rowMap(List<String> names, RowCursor rows) {
    Map<String, Object> row = new HashMap<>();
    for (int i = 0; i < names.size(); i++) {
      row.put(names.get(i).toLowerCase(Locale.ROOT), rows.value(i));
    }
    return row;
  }

  /** Q22 as written: NTILE(n) over the keys in SQL Server's order (NULL first), the first key of each tile after the first. */
  private Answer keyTiles(Matcher m) {
    SourceTable t = new SourceTable(m.group("t"));
    List<String> keys = t.list(m.group("k"));
    int n = Integer.parseInt(m.group("n"));
    List<Object[]> all = new ArrayList<>();
    try (RowCursor rows = t.readAll(keys)) {
      while (rows.next()) {
        Object[] k = new Object[keys.size()];
        for (int i = 0; i < k.length; i++) {
          k[i] = rows.value(i);
        }
        all.add(k);
      }
    }
    Comparator<Object[]> order = (a, b) -> {
      for (int i = 0; i < keys.size(); i++) {
        Object x = a[i];
        Object y = b[i];
        int c = x == null ? (y == null ? 0 : -1) : y == null ? 1 : SqlValues.compare(x, y, t.type(keys.get(i)),
            t.caseInsensitive(keys.get(i)));
        if (c != 0) {
          return c;
        }
      }
      return 0;
    };
    all.sort(order);
    List<Object[]> out = new ArrayList<>();
    int total = all.size();
    int tiles = Math.min(n, total);
    int start = 0;
    for (int g = 0; g < tiles; g++) {
      if (g > 0) {
        out.add(all.get(start));
      }
      start += total / tiles + (g < total % tiles ? 1 : 0);
    }
    List<Column> columns = new ArrayList<>();
    for (String k : keys) {
      columns.add(new Column(k, SqlType.of(t.type(k))));
    }
    return rows(columns, out);
  }

  /** Q24: the pieces joined by UNION ALL, each evaluated over the table's rows, in piece order. */
  private Answer readTable(Matcher m, List<String> params) {
    SourceTable t = new SourceTable(m.group("t"));
    List<String> selected = t.list(m.group("c"));
    String rest = m.group("rest");
    List<Predicate> pieces = new ArrayList<>();
    Iterator<String> it = params.iterator();
    if (!rest.isEmpty()) {
      String separator = " UNION ALL SELECT " + m.group("c") + " FROM " + m.group("t") + " WHERE ";
      for (String piece : rest.substring(" WHERE ".length()).split(java.util.regex.Pattern.quote(separator), -1)) {
        pieces.add(Predicate.parse(piece, it, t));
      }
    }
    if (it.hasNext()) {
      throw new IllegalArgumentException("more parameters than ? marks in " + m.group());
    }
    List<String> read = new ArrayList<>(selected);
    pieces.forEach(p -> read.addAll(p.columns()));
    List<String> names = read.stream().map(n -> t.column(n).name()).distinct().toList();
    List<Column> columns = new ArrayList<>();
    for (String c : selected) {
      columns.add(new Column(c, SqlType.of(t.type(c))));
    }
    List<Predicate> passes = pieces.isEmpty() ? java.util.Collections.singletonList(null) : pieces;
    return new Rows(columns, new RowSource() {
      int pass = -1;
      RowCursor cursor;

      @Override
      public Object[] next() {
        while (true) {
          if (cursor == null) {
            if (++pass >= passes.size()) {
              return null;
            }
            cursor = t.readAll(read);
          }
          while (cursor.next()) {
            Map<String, Object> row = rowMap(names, cursor);
            Predicate p = passes.get(pass);
            if (p == null || p.test(c -> row.get(c.toLowerCase(Locale.ROOT)))) {
              Object[] out = new Object[selected.size()];
              for (int i = 0; i < out.length; i++) {
                out[i] = row.get(t.column(selected.get(i)).name().toLowerCase(Locale.ROOT));
              }
              return out;
            }
          }
          cursor.close();
          cursor = null;
        }
      }

      @Override
      public void close() {
        if (cursor != null) {
          cursor.close();
        }
      }
    });
  }

  /** SQL Server's order of key tuples over {@code keys}: NULL first, values by the column's type and collation. */
  private static Comparator<Object[]> keyOrder(SourceTable t, List<String> keys) {
    return (a, b) -> {
      for (int i = 0; i < keys.size(); i++) {
        Object x = a[i];
        Object y = b[i];
        int c = x == null ? (y == null ? 0 : -1) : y == null ? 1 : SqlValues.compare(x, y, t.type(keys.get(i)),
            t.caseInsensitive(keys.get(i)));
        if (c != 0) {
          return c;
        }
      }
      return 0;
    };
  }

  /** The values of {@code columns} of each row passing {@code where} (null: every row). */
  private static List<Object[]> select(SourceTable t, List<String> columns, Predicate where) {
    List<String> read = new ArrayList<>(columns);
    if (where != null) {
      read.addAll(where.columns());
    }
    List<String> names = read.stream().map(n -> t.column(n).name()).distinct().toList();
    List<Object[]> out = new ArrayList<>();
    try (RowCursor rows = t.readAll(read)) {
      while (rows.next()) {
        Map<String, Object> row = rowMap(names, rows);
        if (where == null || where.test(c -> row.get(c.toLowerCase(Locale.ROOT)))) {
          Object[] v = new Object[columns.size()];
          for (int i = 0; i < v.length; i++) {
            v[i] = row.get(t.column(columns.get(i)).name().toLowerCase(Locale.ROOT));
          }
          out.add(v);
        }
      }
    }
    return out;
  }

  private static void noParametersLeft(Iterator<String> it, String sql) {
    if (it.hasNext()) {
      throw new IllegalArgumentException("more parameters than ? marks in " + sql);
    }
  }

  /**
   * Q23 as written: the ordinal ({@code CAST(k AS bigint)}, or {@code DATEDIFF(day, '19700101', k)})
   * of the rows whose key is not NULL and that pass the range predicate; the bucket by the
   * statement's CASE (T-SQL's truncating division, corrected below zero); COUNT_BIG and the
   * {@code decimal(38,0)} sum per bucket, ordered by bucket.
   */
  private Answer keyBuckets(Matcher m, List<String> params) {
    SourceTable t = new SourceTable(m.group("t"));
    String tested = t.list(m.group("k")).get(0);
    boolean date = m.group("dk") != null;
    String ordinal = t.list(m.group(date ? "dk" : "ik")).get(0);
    long w = Long.parseLong(m.group("w"));
    Iterator<String> it = params.iterator();
    String rest = m.group("rest");
    Predicate range = rest.isEmpty() ? null : Predicate.parse(rest.substring(" AND ".length()), it, t);
    noParametersLeft(it, m.group());
    java.util.TreeMap<Long, long[]> counts = new java.util.TreeMap<>();
    java.util.TreeMap<Long, java.math.BigDecimal> sums = new java.util.TreeMap<>();
    for (Object[] r : select(t, List.of(tested, ordinal), range)) {
      if (r[0] == null) {
        continue;
      }
      long o;
      if (date) {
        o = ChronoUnit.DAYS.between(java.time.LocalDate.of(1970, 1, 1), (java.time.LocalDate) r[1]);
      } else if (r[1] instanceof Long || r[1] instanceof Integer || r[1] instanceof Short || r[1] instanceof Byte) {
        o = ((Number) r[1]).longValue();
      } else {
        throw new SqlError(529, 2, 16, "Explicit conversion from data type " + t.type(ordinal).declaration()
            + " to bigint is not allowed.");
      }
      long b = o >= 0 ? o / w : (o + 1) / w - 1;
      counts.computeIfAbsent(b, x -> new long[1])[0]++;
      sums.merge(b, java.math.BigDecimal.valueOf(o), java.math.BigDecimal::add);
    }
    List<Object[]> out = new ArrayList<>();
    counts.forEach((b, n) -> out.add(row(b, n[0], sums.get(b))));
    return rows(List.of(col("b", "bigint"), col("n", "bigint"), col("s", "decimal(38,0)")), out);
  }

  /** Q23 without a key: every row of the table. */
  private Answer countRows(Matcher m) {
    SourceTable t = new SourceTable(m.group("t"));
    String any = db.view().columns(t.ref).orElseThrow().get(0).name();
    return Answer.one(col("", "bigint"), (long) select(t, List.of(any), null).size());
  }

  /**
   * Q25: {@code sp_spaceused} of the table the name resolves to ({@code OBJECT_ID}: brackets
   * optional), one row whose {@code rows} is {@code char(20)} text padded with blanks; error 15009
   * for a name that finds no table.
   */
  private Answer rowEstimate(String objname) {
    List<String> parts = new ArrayList<>();
    for (String tok : Predicate.tokens(objname)) {
      if (!tok.equals(".")) {
        parts.add(tok.startsWith("[") ? unquote(tok.substring(1, tok.length() - 1)) : tok);
      }
    }
    Optional<TableRef> table = parts.size() == 2 ? db.table(new TableRef(parts.get(0), parts.get(1)))
        : parts.size() == 1 ? db.table(new TableRef("dbo", parts.get(0))) : Optional.empty();
    if (table.isEmpty()) {
      throw new SqlError(15009, 1, 16, "The object '" + objname + "' does not exist in database '"
          + db.options().database() + "' or is invalid for this operation.");
    }
    long n = db.client().countRows(table.get());
    return new Rows(List.of(col("name", "nvarchar(128)"), col("rows", "char(20)"), col("reserved", "varchar(18)"),
        col("data", "varchar(18)"), col("index_size", "varchar(18)"), col("unused", "varchar(18)")),
        RowSource.of(List.<Object[]>of(row(table.get().table(), String.format(Locale.ROOT, "%-20d", n), "72 KB", "8 KB",
            "16 KB", "48 KB"))));
  }

  /** Q26 as written: the rows ordered by the ORDER BY columns, descending (NULL last), the first one's keys. */
  private Answer keyMax(Matcher m) {
    SourceTable t = new SourceTable(m.group("t"));
    List<String> keys = t.list(m.group("k"));
    List<String> order = t.list(m.group("d"));
    List<String> read = new ArrayList<>(keys);
    read.addAll(order);
    List<Object[]> rows = select(t, read, null);
    Comparator<Object[]> byOrder = (a, b) -> keyOrder(t, order).compare(
        java.util.Arrays.copyOfRange(a, keys.size(), a.length), java.util.Arrays.copyOfRange(b, keys.size(), b.length));
    List<Object[]> out = rows.stream().max(byOrder).map(r -> List.<Object[]>of(java.util.Arrays.copyOf(r, keys.size())))
        .orElse(List.of());
    return rows(keyColumns(t, keys), out);
  }

  /**
   * Q27 as written: each part's {@code TOP (m)} rows of its piece in key order, the parts'
   * rows together in key order, {@code OFFSET n} then one row.
   */
  private Answer keyBound(Matcher m, List<String> params) {
    String quotedKeys = m.group("k");
    Iterator<String> it = params.iterator();
    List<Object[]> union = new ArrayList<>();
    SourceTable table = null;
    for (String part : m.group("parts").split(java.util.regex.Pattern.quote(" UNION ALL "), -1)) {
      Matcher pm = Statement.KEY_BOUND_PART.matcher(part);
      if (!pm.matches() || !pm.group("k").equals(quotedKeys)) {
        throw new IllegalArgumentException("not a part of Q27: " + part);
      }
      SourceTable t = new SourceTable(pm.group("t"));
      table = t;
      List<String> keys = t.list(quotedKeys);
      Predicate where = pm.group("w") == null ? null : Predicate.parse(pm.group("w"), it, t);
      List<String> order = t.list(pm.group("o"));
      List<Object[]> rows = select(t, order, where);
      rows.sort(keyOrder(t, order));
      List<Object[]> top = rows.subList(0, (int) Math.min(rows.size(), rowCount(pm, "top", "bareTop", 1060,
          "The number of rows provided for a TOP or FETCH clauses row count parameter must be an integer.")));
      for (Object[] r : top) {
        Object[] k = new Object[keys.size()];
        for (int i = 0; i < k.length; i++) {
          k[i] = r[order.indexOf(keys.get(i))];
        }
        union.add(k);
      }
    }
    noParametersLeft(it, m.group());
    List<String> keys = table.list(quotedKeys);
    union.sort(keyOrder(table, keys));
    long n = rowCount(m, "n", "bareN", 10060, "The number of rows provided for a OFFSET clause must be an integer.");
    List<Object[]> out = n < union.size() ? List.<Object[]>of(union.get((int) n)) : List.of();
    return rows(keyColumns(table, keys), out);
  }

  /**
   * A TOP or OFFSET row count: cast to bigint, or a bare literal, which SQL Server types
   * {@code int} below 2^31 and {@code numeric} from there, and then refuses ({@code number}).
   */
  private static long rowCount(Matcher m, String cast, String bare, int number, String message) {
    if (m.group(cast) != null) {
      return Long.parseLong(m.group(cast));
    }
    long v = Long.parseLong(m.group(bare));
    if (v > Integer.MAX_VALUE) {
      throw new SqlError(number, 1, 16, message);
    }
    return v;
  }

  private static List<Column> keyColumns(SourceTable t, List<String> keys) {
    List<Column> columns = new ArrayList<>();
    for (String k : keys) {
      columns.add(new Column(k, SqlType.of(t.type(k))));
    }
    return columns;
  }
}
