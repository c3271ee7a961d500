package io.mssqlcdc.options;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.TableQuery.Isolation;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.errors.CdcErrorCode;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.errors.Secrets;
import io.mssqlcdc.lsn.Lsn;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The options of {@code format("mssql_cdc")} and {@code format("mssql_cdc_snapshot")}, each
 * declared once ({@link #ALL}) with type, default and doc, parsed and validated eagerly when the
 * DataFrame is created. Names are matched ignoring case; an unknown name is rejected with a
 * did-you-mean suggestion. docs/OPTIONS.md is generated from these declarations
 * ({@link OptionsDoc}) and a test keeps it in step.
 *
 * <p>Serializable: input partitions carry it to executors, which open their own client with it.
 * {@link #toString()} masks the password of the connection string.
 */
public final class CdcReaderOptions implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Which reader parses the options. */
  public enum Reader { STREAM, SNAPSHOT }

  /** {@code schemaChangePolicy}. */
  public enum SchemaChangePolicy { CLASSIFY, FAIL }

  private static final Pattern TIME_ZONE = Pattern.compile("^[A-Za-z0-9 ._+:\\-/()]+$");

  public static final OptionSpec<String> CAPTURE_INSTANCE = spec(
      "captureInstance", "string", "required",
      "CDC capture instance to read (SQL Server's default name is `<schema>_<table>`, e.g. `dbo_orders`). "
          + "Matched exactly first, then ignoring case. The stream follows the table's newer capture instance on its own.",
      OptionSpec.Scope.BOTH, (n, v) -> Identifiers.captureInstance(v));
  public static final OptionSpec<String> CONNECTION_STRING = spec(
      "connectionString", "string", "required (except `backend=fake`)",
      "SQL Server connection: a JDBC URL (`jdbc:sqlserver://host:1433;databaseName=db;user=u;password=p;encrypt=true`) "
          + "or the ODBC-style keyword string of the Python reference (`Server=host,1433;Database=db;UID=u;PWD=p;Encrypt=yes`). "
          + "The password is masked in every log line, message and plan description.",
      OptionSpec.Scope.BOTH, (n, v) -> OptionParsers.nonBlank(n, v, "a JDBC URL or an ODBC-style connection string", null));
  public static final OptionSpec<String> BACKEND = spec(
      "backend", "string", "`jdbc`",
      "`jdbc` (SQL Server through mssql-jdbc) or `fake` (the file-backed simulator at `fakePath`, for tests and the demo).",
      OptionSpec.Scope.BOTH, (n, v) -> {
        String b = v.strip().toLowerCase(Locale.ROOT);
        if (b.equals("mssql-python") || b.equals("arrow-odbc")) {
          throw CdcErrors.invalidOption(n, v, "'jdbc' or 'fake'",
              "'" + b + "' is a driver of the Python reference; this connector reads SQL Server through mssql-jdbc: use backend=jdbc or omit the option");
        }
        return OptionParsers.oneOf(n, v, null, "jdbc", "fake");
      });
  public static final OptionSpec<String> FAKE_PATH = spec(
      "fakePath", "string", "none",
      "Directory of the fake CDC database (`backend=fake`).",
      OptionSpec.Scope.BOTH, (n, v) -> OptionParsers.nonBlank(n, v, "a directory path", null));
  public static final OptionSpec<Long> CONNECT_TIMEOUT = spec(
      "connectTimeout", "integer (seconds)", "`30`",
      "Login timeout in seconds (0 = the driver's default).",
      OptionSpec.Scope.BOTH, (n, v) -> OptionParsers.nonNegativeLong(n, v, "seconds"));
  public static final OptionSpec<Long> LOCK_TIMEOUT_MS = spec(
      "lockTimeoutMs", "integer (ms)", "wait forever",
      "`SET LOCK_TIMEOUT` before every read of the source table (snapshot reads, key ranges); a blocked read fails "
          + "with error 1222 and Spark retries the task. Change-table reads are not affected.",
      OptionSpec.Scope.BOTH, (n, v) -> OptionParsers.nonNegativeLong(n, v, "milliseconds"));
  public static final OptionSpec<String> SOURCE_TIME_ZONE = spec(
      "sourceTimeZone", "string", "`auto`",
      "Time zone of the SQL Server clock, to convert `tran_end_time` to UTC for `_commit_ts` and offsets (captured "
          + "datetime columns are never converted). A Windows zone name as listed in `sys.time_zone_info` "
          + "(`E. South America Standard Time`; SQL Server's `AT TIME ZONE` takes no IANA names), `UTC`, or a fixed "
          + "offset `UTC-03:00`. `auto`: `CURRENT_TIMEZONE_ID()` on SQL Server 2022 and Azure SQL; on older servers "
          + "the current offset, with a warning, re-read before every batch. The fake takes IANA names.",
      OptionSpec.Scope.BOTH, (n, v) -> {
        String z = v.strip();
        if (!TIME_ZONE.matcher(z).matches()) {
          throw CdcErrors.invalidOption(n, v, "a time zone name, UTC±HH:MM or 'auto'",
              "letters, digits, blanks and . _ + : - / ( ) only");
        }
        return z;
      });
  public static final OptionSpec<String> COLUMNS = spec(
      "columns", "Spark DDL", "inferred",
      "Captured columns to read, with Spark types (`order_id INT, status STRING, amount DECIMAL(18,2)`); values are "
          + "cast to them. Without it the schema is inferred from CDC metadata at `load()`: the union of the table's "
          + "capture instances, computed columns left out.",
      OptionSpec.Scope.BOTH, (n, v) -> OptionParsers.nonBlank(n, v,
          "a Spark DDL column list such as 'order_id INT, status STRING'", "omit it to infer the columns"));
  public static final OptionSpec<Boolean> ALLOW_PRECISION_LOSS = spec(
      "allowPrecisionLoss", "boolean", "`false`",
      "A value that its type in `columns` holds only rounded (`2.5` into `INT`, `1.2345` into `DECIMAL(18,2)`) fails "
          + "the read with `MSSQL_CDC-116` naming the column and the value, as the Python reference's safe cast does. "
          + "`true` rounds such values instead (toward zero into integer types, half up into decimals). A value too "
          + "large for the type fails either way.",
      OptionSpec.Scope.BOTH, OptionParsers::bool);
  public static final OptionSpec<Boolean> INCLUDE_COMMAND_ID = spec(
      "includeCommandId", "boolean", "`true`",
      "Read `__$command_id` into `_command_id`; `false` drops the column (change tables of servers before the "
          + "column existed, e.g. some SQL Server 2016 builds).",
      OptionSpec.Scope.BOTH, OptionParsers::bool);
  public static final OptionSpec<StartingPosition> STARTING_LSN = spec(
      "startingLsn", "`earliest` \\| `latest` \\| LSN", "`earliest`",
      "Where a new checkpoint starts (ignored once the checkpoint has offsets): `earliest` (the oldest change CDC "
          + "holds), `latest` (the newest commit), or an LSN treated as already processed (`0x` optional, any case, "
          + "left-padded to 20 hex digits).",
      OptionSpec.Scope.STREAM, (n, v) -> {
        String s = v.strip().toLowerCase(Locale.ROOT);
        if (s.equals("earliest")) {
          return StartingPosition.EARLIEST;
        }
        if (s.equals("latest")) {
          return StartingPosition.LATEST;
        }
        try {
          return StartingPosition.after(Lsn.parse(v));
        } catch (CdcConfigException e) {
          throw CdcErrors.invalidOption(n, v, "'earliest', 'latest' or an LSN such as 0x0000002A000001F00003", null);
        }
      });
  public static final OptionSpec<Integer> MAX_COMMITS_PER_BATCH = spec(
      "maxCommitsPerBatch", "integer", "unlimited",
      "At most this many commits per micro-batch, counted in `cdc.lsn_time_mapping` (database-wide; idle entries "
          + "count). A commit is never split; at least one is always admitted.",
      OptionSpec.Scope.STREAM, (n, v) -> OptionParsers.positiveInt(n, v, "omit it to read up to max_lsn"));
  public static final OptionSpec<OptionalInt> NUM_PARTITIONS = spec(
      "numPartitions", "`auto` \\| integer", "`auto`",
      "Most partitions per read, one connection each. Stream: commit-aligned LSN ranges of about equal change rows, "
          + "none under ~50,000 rows (up to 5 captured columns; as many values for wider rows, 5,000 rows at least). "
          + "Snapshot: key ranges. `auto` = the session's default parallelism.",
      OptionSpec.Scope.BOTH, (n, v) -> {
        if (v.strip().equalsIgnoreCase("auto")) {
          return OptionalInt.empty();
        }
        try {
          int p = Integer.parseInt(v.strip());
          if (p >= 1) {
            return OptionalInt.of(p);
          }
        } catch (NumberFormatException e) {
          // message below
        }
        throw CdcErrors.invalidOption(n, v, "'auto' or a positive integer", null);
      });
  public static final OptionSpec<Integer> FETCH_SIZE = new OptionSpec<>(
      "fetchSize", List.of("arrowBatchSize"), "integer", "`10000`",
      "Rows per round trip from SQL Server (JDBC fetch size). `arrowBatchSize`, the Python reference's name, is "
          + "accepted as an alias.",
      OptionSpec.Scope.BOTH, (n, v) -> OptionParsers.positiveInt(n, v, null));
  public static final OptionSpec<Boolean> FAIL_ON_DATA_LOSS = spec(
      "failOnDataLoss", "boolean", "`true`",
      "Fail when changes the next batch needs are gone (CDC cleanup, or a capture instance disabled too early). "
          + "`false` skips ahead to the low watermark, logs a warning and records a `data_skipped` event (loses changes).",
      OptionSpec.Scope.STREAM, OptionParsers::bool);
  public static final OptionSpec<SchemaChangePolicy> SCHEMA_CHANGE_POLICY = spec(
      "schemaChangePolicy", "`classify` \\| `fail`", "`classify`",
      "`classify`: a captured column whose new type the query's type cannot hold fails the batch before it reads; "
          + "other DDL goes on and is recorded as a `schema_change` event. `fail`: any DDL inside a batch fails it.",
      OptionSpec.Scope.STREAM,
      (n, v) -> SchemaChangePolicy.valueOf(OptionParsers.oneOf(n, v, null, "classify", "fail").toUpperCase(Locale.ROOT)));
  public static final OptionSpec<Isolation> ISOLATION_LEVEL = spec(
      "isolationLevel", "`readCommitted` \\| `snapshot`", "`readCommitted`",
      "Isolation of snapshot reads. `snapshot` needs `ALLOW_SNAPSHOT_ISOLATION ON`. There is no uncommitted (NOLOCK) read.",
      OptionSpec.Scope.SNAPSHOT, (n, v) -> {
        String s = v.strip();
        if (s.equalsIgnoreCase("readCommitted")) {
          return Isolation.READ_COMMITTED;
        }
        if (s.equalsIgnoreCase("snapshot")) {
          return Isolation.SNAPSHOT;
        }
        throw CdcErrors.invalidOption(n, v, "'readCommitted' or 'snapshot'",
            "a snapshot never reads uncommitted rows (NOLOCK)");
      });
  public static final OptionSpec<Lsn> SNAPSHOT_LSN = spec(
      "snapshotLsn", "LSN", "`max_lsn` before the read",
      "LSN stamped on snapshot rows; must have been recorded before the read started.",
      OptionSpec.Scope.SNAPSHOT, (n, v) -> {
        try {
          return Lsn.parse(v);
        } catch (CdcConfigException e) {
          throw CdcErrors.invalidOption(n, v, "an LSN such as 0x0000002A000001F00003", null);
        }
      });
  public static final OptionSpec<String> SNAPSHOT_CHUNKS = spec(
      "snapshotChunks", "JSON", "whole table",
      "Read only these key ranges, one partition each: `[[chunk, lo, hi], ...]`, `lo` inclusive, `hi` exclusive, "
          + "`null` open; a value per key column (a list for composite keys); bounds that JSON cannot type are text as "
          + "SQL Server casts it back (ISO-8601 times, `0x` hex for binary). Adds the column `_chunk INT`.",
      OptionSpec.Scope.SNAPSHOT, (n, v) -> v);
  public static final OptionSpec<String> SNAPSHOT_KEYS = spec(
      "snapshotKeys", "JSON list", "the unique index",
      "Key columns, e.g. `[\"order_id\"]`, that `snapshotChunks` bounds and the `numPartitions` key ranges apply to.",
      OptionSpec.Scope.SNAPSHOT, (n, v) -> v);

  public static final OptionSpec<String> READ_ID = spec(
      "readId", "string", "none",
      "A name for this snapshot read, unique among the driver's reads (e.g. `orders-wave-3`): after the read, "
          + "`SnapshotReports.forRead(readId)` on the driver holds its figures per partition (rows, seconds, bytes; "
          + "with `snapshotChunks`, per chunk with `high_lsn`, the `max_lsn` read after the chunk). Without it, "
          + "`SnapshotReports.forStamp(lsn)` finds the latest read of a stamp.",
      OptionSpec.Scope.SNAPSHOT, (n, v) -> {
        String id = OptionParsers.nonBlank(n, v, "a non-blank name of at most 200 characters", null).strip();
        if (id.length() > 200) {
          throw CdcErrors.invalidOption(n, CdcErrors.shorten(v, 60), "a non-blank name of at most 200 characters",
              null);
        }
        return id;
      });

  public static final OptionSpec<Long> CAPTURE_HEALTH_INTERVAL_SECONDS = spec(
      "captureHealthIntervalSeconds", "integer (s)", "`300`",
      "How often the driver probes SQL Server's capture process (`CdcClient.captureHealth`: the capture job's state, "
          + "its last log scan, recent CDC errors, the cleanup retention); the first probe runs at the stream's first "
          + "trigger. Its verdict is in the source's progress metrics, a change of it is logged once and recorded as "
          + "a warning of the next batch. `0` turns the probe off.",
      OptionSpec.Scope.STREAM, (n, v) -> OptionParsers.nonNegativeLong(n, v, "seconds; 0 turns the probe off"));
  public static final OptionSpec<Long> CAPTURE_STOPPED_AFTER_SECONDS = spec(
      "captureStoppedAfterSeconds", "integer (s)", "`900`",
      "Capture counts as stopped when its job is not running, its last log scan is older than this, or (a login that "
          + "cannot read the job or the scans) the newest `cdc.lsn_time_mapping` entry is older than this: a running "
          + "capture writes an idle entry every few minutes on a quiet database.",
      OptionSpec.Scope.STREAM, (n, v) -> (long) OptionParsers.positiveInt(n, v, "seconds"));
  public static final OptionSpec<Long> CAPTURE_LAG_WARN_SECONDS = spec(
      "captureLagWarnSeconds", "integer (s)", "`300`",
      "A running capture job whose last log scan was further behind the log than this is `capture_lagging`.",
      OptionSpec.Scope.STREAM, (n, v) -> (long) OptionParsers.positiveInt(n, v, "seconds"));
  public static final OptionSpec<Long> RETENTION_HEADROOM_WARN_HOURS = spec(
      "retentionHeadroomWarnHours", "integer (h)", "`24`",
      "`retention_at_risk` when cleanup (its job's retention, read from msdb) would remove the stream's position "
          + "within this many hours.",
      OptionSpec.Scope.STREAM, (n, v) -> (long) OptionParsers.positiveInt(n, v, "hours"));
  public static final OptionSpec<Long> FAIL_WHEN_CAPTURE_STOPPED_SECONDS = spec(
      "failWhenCaptureStoppedSeconds", "integer (s)", "never",
      "Fail the query (`MSSQL_CDC-402`, capture not running) once capture has been stopped for longer than this, so a "
          + "scheduler's alert fires instead of a quiet stream. Needs the probe (`captureHealthIntervalSeconds` > 0).",
      OptionSpec.Scope.STREAM, (n, v) -> (long) OptionParsers.positiveInt(n, v, "seconds; omit it never to fail"));

  /** Every option, in documentation order. */
  public static final List<OptionSpec<?>> ALL = List.of(
      CAPTURE_INSTANCE, CONNECTION_STRING, BACKEND, FAKE_PATH, CONNECT_TIMEOUT, LOCK_TIMEOUT_MS, SOURCE_TIME_ZONE,
      COLUMNS, ALLOW_PRECISION_LOSS, INCLUDE_COMMAND_ID, STARTING_LSN, MAX_COMMITS_PER_BATCH, NUM_PARTITIONS, FETCH_SIZE,
      FAIL_ON_DATA_LOSS, SCHEMA_CHANGE_POLICY, ISOLATION_LEVEL, SNAPSHOT_LSN, SNAPSHOT_CHUNKS, SNAPSHOT_KEYS,
      READ_ID, CAPTURE_HEALTH_INTERVAL_SECONDS, CAPTURE_STOPPED_AFTER_SECONDS, CAPTURE_LAG_WARN_SECONDS,
      RETENTION_HEADROOM_WARN_HOURS, FAIL_WHEN_CAPTURE_STOPPED_SECONDS);

  /** Options of the Python reference this connector replaces with a JVM mechanism. */
  private static final Map<String, String> REMOVED = Map.of(
      "metricspath",
      "Option 'metricsPath' is not needed here: partitions report their metrics through Spark (custom metrics and"
          + " the query progress), and the sink receives them on the driver. Remove the option.");

  /** The declared name of each option, by lower-case name and alias. */
  private static final Map<String, OptionSpec<?>> BY_KEY = byKey();

  private final Reader reader;
  /** Declared name → raw value, for the options given. */
  private final Map<String, String> given;

  private CdcReaderOptions(Reader reader, Map<String, String> given) {
    this.reader = reader;
    this.given = given;
  }

  /**
   * Parses and validates {@code raw} (keys in any case, as Spark passes them) for
   * {@code reader}: unknown options, bad values and missing required options all fail here.
   */
  public static CdcReaderOptions parse(Map<String, String> raw, Reader reader) {
    Map<String, String> given = new TreeMap<>();
    for (Map.Entry<String, String> e : raw.entrySet()) {
      String key = e.getKey().toLowerCase(Locale.ROOT);
      if (REMOVED.containsKey(key)) {
        throw new CdcConfigException(CdcErrorCode.UNKNOWN_OPTION, REMOVED.get(key));
      }
      OptionSpec<?> spec = BY_KEY.get(key);
      if (spec == null) {
        throw CdcErrors.unknownOption(e.getKey(), suggest(key), names());
      }
      if (spec.scope() == OptionSpec.Scope.SNAPSHOT && reader == Reader.STREAM) {
        throw CdcErrors.invalidOption(spec.name(), e.getValue(), "set only on format(\"mssql_cdc_snapshot\")",
            "format(\"mssql_cdc\") does not read it: remove it from the stream's options");
      }
      String value = e.getValue() == null ? "" : e.getValue();
      if (given.put(spec.name(), value) != null) {
        throw CdcErrors.invalidOption(spec.name(), value, "given once",
            "it was given twice (an alias or another spelling of the same name)");
      }
    }
    CdcReaderOptions options = new CdcReaderOptions(reader, Collections.unmodifiableMap(given));
    options.validate();
    return options;
  }

  private void validate() {
    for (OptionSpec<?> spec : ALL) {
      String v = given.get(spec.name());
      if (v != null) {
        spec.parse(v);
      }
    }
    if (!given.containsKey(CAPTURE_INSTANCE.name())) {
      throw CdcErrors.missingOption(CAPTURE_INSTANCE.name(), "'dbo_orders'");
    }
    if (backend().equals("fake")) {
      if (!given.containsKey(FAKE_PATH.name())) {
        throw CdcErrors.missingOption(FAKE_PATH.name(), "the directory of a FakeCdcDatabase, with backend=fake");
      }
    } else if (!given.containsKey(CONNECTION_STRING.name())) {
      throw CdcErrors.missingOption(CONNECTION_STRING.name(),
          "'jdbc:sqlserver://host:1433;databaseName=db;user=u;password=p;encrypt=true'");
    }
  }

  private <T> T get(OptionSpec<T> spec, T defaultValue) {
    String v = given.get(spec.name());
    return v == null ? defaultValue : spec.parse(v);
  }

  private <T> Optional<T> find(OptionSpec<T> spec) {
    String v = given.get(spec.name());
    return v == null ? Optional.empty() : Optional.of(spec.parse(v));
  }

  public Reader reader() {
    return reader;
  }

  public String captureInstance() {
    return get(CAPTURE_INSTANCE, null);
  }

  public Optional<String> connectionString() {
    return find(CONNECTION_STRING);
  }

  public String backend() {
    return get(BACKEND, "jdbc");
  }

  public Optional<String> fakePath() {
    return find(FAKE_PATH);
  }

  public long connectTimeoutSeconds() {
    return get(CONNECT_TIMEOUT, 30L);
  }

  /** {@code lockTimeoutMs}, or -1 (wait forever) when not set. */
  public long lockTimeoutMs() {
    return get(LOCK_TIMEOUT_MS, -1L);
  }

  public String sourceTimeZone() {
    return get(SOURCE_TIME_ZONE, "auto");
  }

  public Optional<String> columns() {
    return find(COLUMNS);
  }

  public boolean allowPrecisionLoss() {
    return get(ALLOW_PRECISION_LOSS, false);
  }

  public boolean includeCommandId() {
    return get(INCLUDE_COMMAND_ID, true);
  }

  public StartingPosition startingLsn() {
    return get(STARTING_LSN, StartingPosition.EARLIEST);
  }

  public OptionalInt maxCommitsPerBatch() {
    Optional<Integer> v = find(MAX_COMMITS_PER_BATCH);
    return v.map(OptionalInt::of).orElse(OptionalInt.empty());
  }

  /** {@code numPartitions}; empty for {@code auto}. */
  public OptionalInt numPartitions() {
    return get(NUM_PARTITIONS, OptionalInt.empty());
  }

  public int fetchSize() {
    return get(FETCH_SIZE, 10_000);
  }

  /** {@code captureHealthIntervalSeconds}; zero: no probe. */
  public java.time.Duration captureHealthInterval() {
    return java.time.Duration.ofSeconds(get(CAPTURE_HEALTH_INTERVAL_SECONDS, 300L));
  }

  /** The rules of the capture-health verdict, from the three threshold options. */
  public io.mssqlcdc.client.CaptureHealthRules captureHealthRules() {
    return new io.mssqlcdc.client.CaptureHealthRules(java.time.Duration.ofSeconds(get(CAPTURE_STOPPED_AFTER_SECONDS, 900L)),
        java.time.Duration.ofSeconds(get(CAPTURE_LAG_WARN_SECONDS, 300L)),
        java.time.Duration.ofHours(get(RETENTION_HEADROOM_WARN_HOURS, 24L)));
  }

  /** {@code failWhenCaptureStoppedSeconds}; empty: never fail for it. */
  public Optional<java.time.Duration> failWhenCaptureStopped() {
    return find(FAIL_WHEN_CAPTURE_STOPPED_SECONDS).map(java.time.Duration::ofSeconds);
  }

  public boolean failOnDataLoss() {
    return get(FAIL_ON_DATA_LOSS, true);
  }

  public SchemaChangePolicy schemaChangePolicy() {
    return get(SCHEMA_CHANGE_POLICY, SchemaChangePolicy.CLASSIFY);
  }

  public Isolation isolationLevel() {
    return get(ISOLATION_LEVEL, Isolation.READ_COMMITTED);
  }

  public Optional<Lsn> snapshotLsn() {
    return find(SNAPSHOT_LSN);
  }

  public Optional<String> snapshotChunks() {
    return find(SNAPSHOT_CHUNKS);
  }

  public Optional<String> snapshotKeys() {
    return find(SNAPSHOT_KEYS);
  }

  /** {@code readId}: the name a snapshot read's figures are registered under. */
  public Optional<String> readId() {
    return find(READ_ID);
  }

  /** Whether {@code sourceTimeZone} is {@code auto}: the driver's client detects the server clock. */
  public boolean detectsTimeZone() {
    return sourceTimeZone().equalsIgnoreCase("auto");
  }

  /**
   * The options executors open their clients with: with {@code sourceTimeZone=auto}, the zone the
   * driver's client detected is pinned, so executors never detect it and convert commit times
   * exactly as the driver did; otherwise these options.
   */
  public CdcReaderOptions forExecutors(CdcClient driverClient) {
    return detectsTimeZone() ? with(SOURCE_TIME_ZONE, driverClient.sourceTimeZone()) : this;
  }

  /** Whether the option was given (by its declared name or an alias). */
  public boolean isSet(OptionSpec<?> spec) {
    return given.containsKey(spec.name());
  }

  /** A copy with {@code spec} set to {@code value} (validated), e.g. the detected time zone. */
  public CdcReaderOptions with(OptionSpec<?> spec, String value) {
    Map<String, String> copy = new TreeMap<>(given);
    copy.put(spec.name(), value);
    CdcReaderOptions o = new CdcReaderOptions(reader, Collections.unmodifiableMap(copy));
    o.validate();
    return o;
  }

  /** The options given, by declared name (the connection string unmasked: never log this). */
  public Map<String, String> asMap() {
    return given;
  }

  /** The declared option names, in documentation order. */
  public static List<String> names() {
    List<String> names = new ArrayList<>();
    for (OptionSpec<?> s : ALL) {
      names.add(s.name());
    }
    return names;
  }

  static Optional<String> suggest(String key) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (Map.Entry<String, OptionSpec<?>> e : BY_KEY.entrySet()) {
      int d = OptionParsers.distance(key, e.getKey());
      if (d < bestDistance) {
        bestDistance = d;
        best = e.getValue().name();
      }
    }
    boolean close = bestDistance <= Math.max(2, key.length() / 3);
    return close ? Optional.of(best) : Optional.empty();
  }

  private static Map<String, OptionSpec<?>> byKey() {
    Map<String, OptionSpec<?>> m = new LinkedHashMap<>();
    for (OptionSpec<?> s : ALL) {
      m.put(s.name().toLowerCase(Locale.ROOT), s);
      for (String a : s.aliases()) {
        m.put(a.toLowerCase(Locale.ROOT), s);
      }
    }
    return Collections.unmodifiableMap(m);
  }

  private static <T> OptionSpec<T> spec(
      String name, String type, String dflt, String doc, OptionSpec.Scope scope,
      java.util.function.BiFunction<String, String, T> parser) {
    return new OptionSpec<>(name, List.of(), type, dflt, doc, scope, parser);
  }

  /** The options with the connection string's password masked. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("CdcReaderOptions{");
    boolean first = true;
    for (Map.Entry<String, String> e : given.entrySet()) {
      if (!first) {
        sb.append(", ");
      }
      first = false;
      sb.append(e.getKey()).append('=').append(Secrets.redact(e.getValue()));
    }
    return sb.append('}').toString();
  }
}
