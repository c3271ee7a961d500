package io.mssqlcdc.fake;

import io.mssqlcdc.client.CaptureHealth;
import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
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
import io.mssqlcdc.errors.CdcStateException;
import io.mssqlcdc.fake.Catalog.Captured;
import io.mssqlcdc.fake.Catalog.ColumnState;
import io.mssqlcdc.fake.Catalog.InstanceState;
import io.mssqlcdc.fake.Catalog.MappingEntry;
import io.mssqlcdc.fake.Catalog.SegmentRef;
import io.mssqlcdc.fake.Catalog.TableState;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * {@link CdcClient} over a fake database directory. Opening reads one small manifest; every
 * call first checks {@code CURRENT} (one tiny file) and reloads the manifest when a writer
 * published since, so a long-lived driver client sees new commits. Lock-free: a commit is
 * visible whole or not at all (see {@link FakeStore}).
 */
public final class FakeCdcClient implements CdcClient {
  private static final String BINARY_COLLATION = "Latin1_General_100_BIN2";
  private static final int RETRIES = 20;

  private final FakeStore store;
  /** The zone the reader was told to convert with (option sourceTimeZone), or null: the database's. */
  private final ZoneId zoneOverride;
  private Catalog catalog;
  private ZoneId zone;
  private CommitTimes times;
  private Catalog timesCatalog;
  private ZoneId timesZone;
  private java.time.Clock clock = java.time.Clock.systemUTC();

  private FakeCdcClient(FakeStore store, ZoneId zoneOverride) {
    this.store = store;
    this.zoneOverride = zoneOverride;
    this.catalog = store.load();
    this.zone = zoneOverride != null ? zoneOverride : ZoneId.of(catalog.zone);
  }

  /** Opens a client on the database in {@code dir}, converting commit times with its server zone. */
  public static FakeCdcClient open(Path dir) {
    return open(dir, null);
  }

  /**
   * Opens a client that converts commit times with {@code zone} (a java.time zone id) instead of
   * the database's server zone, as the SQL client does with a {@code sourceTimeZone} option the
   * driver shipped; null or {@code auto}: the database's zone.
   */
  public static FakeCdcClient open(Path dir, String zone) {
    ZoneId override = null;
    if (zone != null && !zone.strip().equalsIgnoreCase("auto")) {
      try {
        override = ZoneId.of(zone.strip());
      } catch (java.time.DateTimeException e) {
        throw FakeErrors.invalidTimeZone(zone);
      }
    }
    FakeStore store = new FakeStore(dir);
    FakeFormat.check(store.dir());
    return new FakeCdcClient(store, override);
  }

  /** The current catalog (reloaded when a writer published); package access for {@link FakeCatalogView}. */
  Catalog catalog() {
    long version = store.currentVersion();
    if (version != catalog.version) {
      catalog = store.load();
      zone = zoneOverride != null ? zoneOverride : ZoneId.of(catalog.zone);
    }
    return catalog;
  }

  /** The commit times of {@code c} in the current zone, built once per catalog version and zone. */
  private CommitTimes times(Catalog c) {
    if (times == null || timesCatalog != c || !timesZone.equals(zone)) {
      times = new CommitTimes(c.mapping, zone);
      timesCatalog = c;
      timesZone = zone;
    }
    return times;
  }

  /** UTC commit time of mapping entry {@code index} of {@code c}, as SqlCdcClient converts it (fall-back corrected). */
  private Instant utc(Catalog c, int index) {
    return times(c).utc(index);
  }

  // ---- LSNs and commit times ------------------------------------------------------------------

  @Override
  public Optional<Lsn> maxLsn() {
    return catalog().lastEntry().map(MappingEntry::lsn);
  }

  @Override
  public Lsn minLsn(String captureInstance) {
    InstanceState i = InstanceResolver.find(catalog(), captureInstance);
    if (i == null) {
      throw CdcErrors.captureInstanceNotReady(captureInstance);
    }
    return i.lowWatermark;
  }

  @Override
  public Lsn incrementLsn(Lsn lsn) {
    return lsn.increment();
  }

  @Override
  public Lsn decrementLsn(Lsn lsn) {
    return lsn.decrement();
  }

  @Override
  public Optional<Instant> commitTime(Lsn lsn) {
    Catalog c = catalog();
    int i = c.firstAtOrAfter(lsn);
    if (i < c.mapping.size() && c.mapping.get(i).lsn().equals(lsn)) {
      return Optional.of(utc(c, i));
    }
    return Optional.empty();
  }

  @Override
  public Optional<Instant> commitTimeAtOrBefore(Lsn lsn) {
    Catalog c = catalog();
    int i = entryAtOrBefore(c, lsn);
    return i < 0 ? Optional.empty() : Optional.of(utc(c, i));
  }

  /**
   * The last mapping entry, in LSN order, whose UTC commit time (fall-back corrected, as
   * {@link #commitTime} reports it) is at or before {@code utc}, to the millisecond.
   */
  @Override
  public Optional<Lsn> lsnAtOrBefore(Instant utc) {
    Catalog c = catalog();
    Instant at = utc.truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    for (int i = c.mapping.size() - 1; i >= 0; i--) {
      if (!utc(c, i).isAfter(at)) {
        return Optional.of(c.mapping.get(i).lsn());
      }
    }
    return Optional.empty();
  }

  /** Index of the last mapping entry at or before {@code lsn}, or -1. */
  private static int entryAtOrBefore(Catalog c, Lsn lsn) {
    int i = c.firstAtOrAfter(lsn);
    if (i < c.mapping.size() && c.mapping.get(i).lsn().equals(lsn)) {
      return i;
    }
    return i - 1;
  }

  @Override
  public Optional<Lsn> nthCommitAfter(Lsn after, int n) {
    if (n < 1) {
      throw new IllegalArgumentException("nthCommitAfter: n must be at least 1, not " + n + ".");
    }
    Catalog c = catalog();
    int first = c.firstAtOrAfter(after.increment());
    if (first >= c.mapping.size()) {
      return Optional.empty();
    }
    int index = (int) Math.min((long) first + n - 1, c.mapping.size() - 1);
    return Optional.of(c.mapping.get(index).lsn());
  }

  @Override
  public long commitsBetween(Lsn after, Lsn upTo, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("commitsBetween: limit must be at least 1, not " + limit + ".");
    }
    if (!upTo.isAfter(after)) {
      return 0;
    }
    Catalog c = catalog();
    int first = c.firstAtOrAfter(after.increment());
    int end = c.firstAtOrAfter(upTo); // then past upTo itself when it is an entry
    if (end < c.mapping.size() && c.mapping.get(end).lsn().equals(upTo)) {
      end++;
    }
    return Math.min(limit, Math.max(0, end - first));
  }

  // ---- capture instances ----------------------------------------------------------------------

  @Override
  public List<CaptureInstance> captureInstances(String captureInstance) {
    Catalog c = catalog();
    List<CaptureInstance> out = new ArrayList<>();
    for (InstanceState i : InstanceResolver.resolve(c, captureInstance)) {
      TableState t = c.table(i.tableUid).orElseThrow();
      out.add(new CaptureInstance(i.name, t.schema, t.name, i.startLsn, t.key, i.createDate));
    }
    return out;
  }

  @Override
  public List<CaptureInstance> allCaptureInstances() {
    // As sys.sp_cdc_help_change_data_capture without arguments, in the order the interface states.
    Catalog c = catalog();
    List<TableState> tables = new ArrayList<>(c.tables);
    tables.sort(java.util.Comparator.comparing((TableState t) -> Catalog.lower(t.schema))
        .thenComparing(t -> Catalog.lower(t.name)));
    List<CaptureInstance> out = new ArrayList<>();
    for (TableState t : tables) {
      for (InstanceState i : c.instancesOf(t.uid)) {
        out.add(new CaptureInstance(i.name, t.schema, t.name, i.startLsn, t.key, i.createDate));
      }
    }
    return out;
  }

  @Override
  public List<CapturedColumn> capturedColumns(String captureInstance) {
    Catalog c = catalog();
    // Like sys.sp_cdc_get_captured_columns: the instance's exact name (the fake's identifiers are
    // case-sensitive); no case-insensitive or default-name resolution.
    InstanceState i = InstanceResolver.requireExact(c, captureInstance);
    List<CapturedColumn> out = new ArrayList<>();
    for (Captured col : i.columns) {
      out.add(new CapturedColumn(col.name(), col.ordinal(), col.columnId(), col.type(), col.computed()));
    }
    return out;
  }

  @Override
  public List<DdlEvent> ddlHistory(String captureInstance, Lsn after, Lsn to) {
    Catalog c = catalog();
    InstanceState i = InstanceResolver.require(c, captureInstance);
    List<DdlEvent> out = new ArrayList<>();
    i.ddl.stream()
        .filter(d -> d.lsn().isAfter(after) && !d.lsn().isAfter(to))
        .sorted((a, b) -> a.lsn().compareTo(b.lsn()))
        .forEach(d -> out.add(new DdlEvent(i.name, d.lsn(), d.command(),
            timeAtOrBefore(c, d.lsn()))));
    return out;
  }

  private Instant timeAtOrBefore(Catalog c, Lsn lsn) {
    int i = entryAtOrBefore(c, lsn);
    return i < 0 ? null : utc(c, i);
  }

  // ---- change rows ----------------------------------------------------------------------------

  private static List<SegmentRef> segments(InstanceState i, Lsn from, Lsn to) {
    List<SegmentRef> out = new ArrayList<>();
    for (SegmentRef s : i.segments) {
      if (!s.commitLsn().isBefore(from) && !s.commitLsn().isAfter(to)) {
        out.add(s);
      }
    }
    return out;
  }

  @Override
  public List<SplitPoint> splitPoints(String captureInstance, Lsn from, Lsn to, int n) {
    InstanceState i = InstanceResolver.require(catalog(), captureInstance);
    return SplitPlanner.plan(segments(i, from, to), n);
  }

  @Override
  public ChangeCursor changes(ChangeQuery query) {
    Catalog c = catalog();
    InstanceState i = InstanceResolver.require(c, query.captureInstance());
    List<SegmentRef> segs = segments(i, query.from(), query.to());
    List<Instant> commitTimes = new ArrayList<>(segs.size());
    for (SegmentRef s : segs) {
      int k = c.firstAtOrAfter(s.commitLsn());
      commitTimes.add(query.commitTimes() && k < c.mapping.size() && c.mapping.get(k).lsn().equals(s.commitLsn())
          ? utc(c, k) : null);
    }
    return new FakeChangeCursor(store, segs, commitTimes, query.columns(), query.includeCommandId());
  }

  // ---- the source table -----------------------------------------------------------------------

  @Override
  public SourceTable sourceTable(String captureInstance) {
    Catalog c = catalog();
    // As SqlCdcClient: resolved like captureInstances (a disabled default name finds its table's instances).
    List<InstanceState> instances = InstanceResolver.resolve(c, captureInstance);
    InstanceState i = instances.get(instances.size() - 1);
    TableState t = c.table(i.tableUid).orElseThrow();
    return new SourceTable(new TableRef(t.schema, t.name), t.key);
  }

  @Override
  public List<TableColumn> tableColumns(TableRef table) {
    TableState t = new TableReader(store, catalog()).table(table);
    List<TableColumn> out = new ArrayList<>();
    for (ColumnState col : t.columns) {
      if (!col.dropped) {
        boolean text = switch (col.type.name()) {
          case "char", "varchar", "nchar", "nvarchar", "text", "ntext" -> true;
          default -> false;
        };
        out.add(new TableColumn(col.name, col.columnId, col.computed, text ? BINARY_COLLATION : null));
      }
    }
    return out;
  }

  @Override
  public Optional<List<Object>> keyMinMax(TableRef table, String key, KeyRange range) {
    return withRetry(c -> new TableReader(store, c).keyMinMax(table, key, range));
  }

  @Override
  public List<List<Object>> keyTiles(TableRef table, List<String> keys, int n) {
    return withRetry(c -> new TableReader(store, c).keyTiles(table, keys, n));
  }

  @Override
  public long countRows(TableRef table) {
    return withRetry(c -> new TableReader(store, c).countRows(table));
  }

  /** The exact row count: the fake's metadata is never stale. */
  @Override
  public long rowEstimate(TableRef table) {
    return withRetry(c -> new TableReader(store, c).countRows(table));
  }

  @Override
  public List<KeyBucket> keyBuckets(TableRef table, String key, long width, KeyRange range) {
    return withRetry(c -> new TableReader(store, c).keyBuckets(table, key, width, range));
  }

  @Override
  public Optional<List<Object>> keyMax(TableRef table, List<String> keys) {
    return withRetry(c -> new TableReader(store, c).keyMax(table, keys));
  }

  @Override
  public Optional<List<Object>> keyBound(TableRef table, List<String> keys, KeyRange range, long n) {
    return withRetry(c -> new TableReader(store, c).keyBound(table, keys, range, n));
  }

  /** Commits the queued {@code commitBeforeRead} transactions first, then reads. */
  @Override
  public RowCursor readTable(TableQuery query) {
    if (!catalog().pending.isEmpty()) {
      try (FakeCdcDatabase writer = FakeCdcDatabase.open(store.dir())) {
        writer.applyPending();
      }
    }
    return withRetry(c -> new TableReader(store, c).read(query));
  }

  /** Retries when a writer deleted a superseded table file between loading the catalog and opening it. */
  private <T> T withRetry(Function<Catalog, T> read) {
    for (int attempt = 0; ; attempt++) {
      try {
        return read.apply(catalog());
      } catch (CdcStateException e) {
        if (!(e.getCause() instanceof NoSuchFileException) || attempt >= RETRIES) {
          throw e;
        }
        catalog = store.load();
      }
    }
  }

  // ---- clock ----------------------------------------------------------------------------------

  /** Re-reads the database's server zone (unless a zone was given); the fake's clock never needs asking. */
  @Override
  public String refreshSourceTimeZone() {
    Catalog c = store.load();
    catalog = c;
    zone = zoneOverride != null ? zoneOverride : ZoneId.of(c.zone);
    return sourceTimeZone();
  }

  @Override
  public String sourceTimeZone() {
    return zoneOverride != null ? zoneOverride.getId() : catalog().zone;
  }

  /**
   * The simulated capture job ({@link FakeCdcDatabase#stopCapture}, {@link FakeCdcDatabase#lagCapture}):
   * a running job's last scan ended now, a stopped one's when it stopped; its latency is how long the
   * oldest held commit has waited (0 when none); hidden state reads as a least-privilege login's.
   */
  @Override
  public CaptureHealth captureHealth() {
    Catalog c = catalog();
    Catalog.CaptureState k = c.capture;
    Instant now = clock.instant();
    Optional<Instant> maxLsnTime = c.mapping.isEmpty() ? Optional.empty() : Optional.of(utc(c, c.mapping.size() - 1));
    if (k.stateHidden) {
      return new CaptureHealth(now, maxLsnTime, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
          Optional.empty(), Optional.empty(), HIDDEN);
    }
    Instant scanEnd = k.running ? now : local(k.stoppedAt);
    double latency = k.held.isEmpty() ? 0.0
        : Math.max(0, java.time.Duration.between(local(k.held.get(0).entry().tranEndTime()), scanEnd).toMillis() / 1000.0);
    boolean recent = k.errorAt != null && !local(k.errorAt).isBefore(now.minus(java.time.Duration.ofHours(1)));
    return new CaptureHealth(now, maxLsnTime, Optional.of(k.running), Optional.of(scanEnd), Optional.of(latency),
        Optional.of(recent ? 1L : 0L), recent ? Optional.of(k.errorMessage) : Optional.empty(),
        k.retentionMinutes < 0 ? Optional.empty() : Optional.of(java.time.Duration.ofMinutes(k.retentionMinutes)),
        List.of());
  }

  /**
   * What a login without msdb and VIEW DATABASE STATE cannot read, as SqlCdcClient names SQL Server's refusals
   * (229 on msdb's table, 300 on the DMVs).
   */
  static final List<String> HIDDEN = List.of(
      CaptureHealth.Source.CDC_JOBS.unreadable(CaptureHealth.Source.permissionDenied(229)),
      CaptureHealth.Source.LOG_SCAN.unreadable(CaptureHealth.Source.permissionDenied(300)),
      CaptureHealth.Source.CDC_ERRORS.unreadable(CaptureHealth.Source.permissionDenied(300)));

  private Instant local(java.time.LocalDateTime t) {
    return t.atZone(zone).toInstant();
  }

  /** The clock {@link #captureHealth} observes with (the database's, for a client it opened). */
  FakeCdcClient clock(java.time.Clock clock) {
    this.clock = clock;
    return this;
  }

  /**
   * Fails like SQL Server's preflight when the instance is unknown; a stopped capture job
   * ({@link FakeCdcDatabase#stopCapture}) is the health probe's to report, as on SQL Server once capture ran.
   */
  @Override
  public void preflight(String captureInstance) {
    minLsn(captureInstance);
  }

  /**
   * The fake's {@code SELECT 1}: one round trip to the store (the read of its {@code CURRENT}
   * file every call makes first), timed.
   */
  @Override
  public OptionalDouble pingMillis() {
    long t0 = System.nanoTime();
    store.currentVersion();
    return OptionalDouble.of((System.nanoTime() - t0) / 1e6);
  }

  /**
   * Always 0: the fake has no network, so its sessions never wait on {@code ASYNC_NETWORK_IO}
   * (SQL Server returns no row, read as 0, for a session that never waited).
   */
  @Override
  public OptionalLong networkWaitMillis() {
    return OptionalLong.of(0);
  }

  @Override
  public void close() {
    // nothing held between calls
  }
}
