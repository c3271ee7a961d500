package io.mssqlcdc.fake;

import io.mssqlcdc.fake.Catalog.Captured;
import io.mssqlcdc.fake.Catalog.ColumnState;
import io.mssqlcdc.fake.Catalog.InstanceState;
import io.mssqlcdc.fake.Catalog.MappingEntry;
import io.mssqlcdc.fake.Catalog.SegmentRef;
import io.mssqlcdc.fake.Catalog.TableState;
import io.mssqlcdc.fake.Catalog.Trash;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.Identifiers;
import io.mssqlcdc.types.SqlServerType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The writer of a fake SQL Server CDC database: scripts tables, capture instances, commits,
 * idle entries, cleanup and DDL into a directory that {@link FakeCdcClient}s (driver,
 * executors, other processes) read. Every call is one atomic commit of the directory (see
 * docs/FAKE.md): it takes the writer lock, re-reads the current version, applies the change and
 * publishes the next version. Several writers (threads or processes) serialise on the lock.
 *
 * <pre>{@code
 * FakeCdcDatabase db = FakeCdcDatabase.create(dir);
 * db.createTable("dbo", "orders", "order_id int", "status varchar(20)", "amount decimal(18,2)").key("order_id");
 * String ci = db.enableCdc("dbo", "orders");
 * Lsn l1 = db.commit(tx -> tx.insert("dbo.orders", row("order_id", 1, "status", "new", "amount", "9.90")));
 * }</pre>
 *
 * <p>Not thread-safe per instance: use one per thread (they share the lock).
 */
public final class FakeCdcDatabase implements AutoCloseable {
  private final FakeStore store;
  private Clock clock = Clock.systemUTC();
  private Catalog cached;
  private final Map<Integer, TableData> tableCache = new HashMap<>();
  private final List<String> deleteAfterPublish = new ArrayList<>();

  private FakeCdcDatabase(FakeStore store) {
    this.store = store;
  }

  /** Creates an empty database in {@code dir} (created if missing; must not hold one already). */
  public static FakeCdcDatabase create(Path dir) {
    FakeStore store = new FakeStore(dir);
    try {
      Files.createDirectories(store.dir());
      try (WriterLock.Held lock = WriterLock.acquire(store.dir())) {
        if (Files.exists(store.file(FakeFormat.FORMAT_FILE))) {
          throw FakeErrors.alreadyExists(store.dir());
        }
        Files.createDirectories(store.file(FakeStore.TMP));
        FakeFormat.write(store.dir());
        store.publish(new Catalog());
      }
    } catch (IOException e) {
      throw FakeErrors.io(store.dir(), e);
    }
    return new FakeCdcDatabase(store);
  }

  /** Opens the database in {@code dir} for writing. */
  public static FakeCdcDatabase open(Path dir) {
    FakeStore store = new FakeStore(dir);
    FakeFormat.check(store.dir());
    store.load();
    return new FakeCdcDatabase(store);
  }

  public Path path() {
    return store.dir();
  }

  /** A reader of this database (the caller closes it). */
  public FakeCdcClient client() {
    return FakeCdcClient.open(store.dir()).clock(clock);
  }

  // ---- clock ---------------------------------------------------------------------------------

  /**
   * The server clock's zone: {@code tran_end_time} and {@code create_date} are stored in it and
   * clients convert them to UTC with it. An IANA id, {@code UTC}, or {@code UTC±HH:MM}.
   */
  public FakeCdcDatabase serverTimeZone(String zone) {
    ZoneId id;
    try {
      id = ZoneId.of(zone);
    } catch (DateTimeException | NullPointerException e) {
      throw FakeErrors.invalidTimeZone(zone);
    }
    write(c -> {
      c.zone = id.getId();
      return null;
    });
    return this;
  }

  public String serverTimeZone() {
    return fresh().zone;
  }

  /** The clock default commit times come from (read in the server zone, truncated to ms). */
  public FakeCdcDatabase clock(Clock clock) {
    this.clock = clock;
    return this;
  }

  // ---- tables --------------------------------------------------------------------------------

  /** Creates {@code schema.table} with columns {@code "<name> <type>[ computed]"}. */
  public TableHandle createTable(String schema, String table, String... columns) {
    Identifiers.name("schema", schema);
    Identifiers.name("table", table);
    List<ColumnDeclaration> decls = Arrays.stream(columns).map(ColumnDeclaration::parse).toList();
    write(c -> {
      if (c.table(schema + "." + table).isPresent()) {
        throw FakeErrors.tableExists(schema + "." + table);
      }
      TableState t = new TableState();
      t.uid = c.nextUid++;
      t.schema = schema;
      t.name = table;
      for (ColumnDeclaration d : decls) {
        if (t.column(d.name()).isPresent()) {
          throw FakeErrors.duplicateColumn(t.qualified(), d.name());
        }
        t.columns.add(new ColumnState(d.name(), t.nextColumnId++, d.type(), d.computed(), false));
      }
      c.tables.add(t);
      return null;
    });
    return new TableHandle(schema + "." + table);
  }

  /**
   * {@code sp_rename} or {@code ALTER SCHEMA <newSchema> TRANSFER}: the table keeps its rows,
   * columns and capture instances (under their names, still capturing), which report the new
   * name from now on, as SQL Server's metadata does (it follows the object id). Like SQL Server,
   * no DDL history is recorded for it.
   */
  public void renameTable(String table, String newSchema, String newName) {
    Identifiers.name("schema", newSchema);
    Identifiers.name("table", newName);
    write(c -> {
      TableState t = table(c, table);
      Optional<TableState> clash = c.table(newSchema + "." + newName);
      if (clash.isPresent() && clash.get() != t) {
        throw FakeErrors.tableExists(newSchema + "." + newName);
      }
      t.schema = newSchema;
      t.name = newName;
      return null;
    });
  }

  /** A created table, to declare its unique key. */
  public final class TableHandle {
    private final String table;

    private TableHandle(String table) {
      this.table = table;
    }

    /** Declares the unique index CDC uses (single or composite); rows must be unique by it. */
    public TableHandle key(String... columns) {
      write(c -> {
        TableState t = table(c, table);
        List<String> key = new ArrayList<>();
        for (String k : columns) {
          key.add(t.column(k).orElseThrow(() -> FakeErrors.unknownColumn(t.qualified(), k, t.liveColumnNames())).name);
        }
        if (t.rowCount > 0) {
          throw FakeErrors.invalidArgument("The key of " + t.qualified(), key, "declared before rows are inserted");
        }
        t.key.clear();
        t.key.addAll(key);
        tableCache.remove(t.uid);
        return null;
      });
      return this;
    }
  }

  // ---- capture instances ---------------------------------------------------------------------

  /** Enables CDC on the whole table as capture instance {@code <schema>_<table>}. */
  public String enableCdc(String schema, String table) {
    return enableCdc(schema, table, schema + "_" + table);
  }

  /**
   * Enables capture instance {@code name} on the table, capturing {@code columns} (all columns
   * when none are given). Its start LSN is the LSN of the next commit. A table has at most two.
   */
  public String enableCdc(String schema, String table, String name, String... columns) {
    Identifiers.captureInstance(name);
    return write(c -> {
      TableState t = table(c, schema + "." + table);
      if (c.instanceExact(name).isPresent()) {
        throw FakeErrors.instanceExists(name);
      }
      if (c.instancesOf(t.uid).size() >= 2) {
        throw FakeErrors.twoInstancesAlready(t.qualified());
      }
      List<ColumnState> captured = new ArrayList<>();
      if (columns.length == 0) {
        t.columns.stream().filter(col -> !col.dropped).forEach(captured::add);
      } else {
        for (String col : columns) {
          captured.add(t.column(col).orElseThrow(() -> FakeErrors.unknownColumn(t.qualified(), col, t.liveColumnNames())));
        }
        captured.sort((a, b) -> Integer.compare(a.columnId, b.columnId));
      }
      InstanceState i = new InstanceState();
      i.name = name;
      i.uid = c.nextUid++;
      i.tableUid = t.uid;
      i.startLsn = c.lsnAt(c.alignedNext());
      i.lowWatermark = i.startLsn;
      i.createDate = now(c);
      i.enableSeq = c.nextEnableSeq++;
      int ordinal = 1;
      for (ColumnState col : captured) {
        i.columns.add(new Captured(col.name, ordinal++, col.columnId, col.type, col.computed));
      }
      c.instances.add(i);
      return name;
    });
  }

  /** {@code sys.sp_cdc_disable_table}: the instance, its change rows and DDL history are gone. */
  public void disableCdc(String captureInstance) {
    write(c -> {
      InstanceState i = instance(c, captureInstance);
      c.instances.remove(i);
      i.segments.forEach(s -> deleteAfterPublish.add(s.file()));
      deleteAfterPublish.add(FakeStore.CHANGES + "/" + i.uid);
      return null;
    });
  }

  /**
   * {@code sys.sp_cdc_cleanup_change_table}: moves the instance's low watermark to
   * {@code lowWatermark} first, then deletes its change rows below it, and mapping entries below
   * the lowest watermark of all instances.
   */
  public void cleanup(String captureInstance, Lsn lowWatermark) {
    write(c -> {
      InstanceState i = instance(c, captureInstance);
      if (lowWatermark.isBefore(i.lowWatermark)) {
        throw FakeErrors.cleanupBackwards(i.name, lowWatermark.hex(), i.lowWatermark.hex());
      }
      if (!c.capture.held.isEmpty() && lowWatermark.isAfter(c.capture.held.get(0).entry().lsn())) {
        throw FakeErrors.cleanupPastCapture(i.name, lowWatermark.hex(), c.capture.held.get(0).entry().lsn().hex());
      }
      i.lowWatermark = lowWatermark;
      List<SegmentRef> gone = i.segments.stream().filter(s -> s.commitLsn().isBefore(lowWatermark)).toList();
      i.segments.removeAll(gone);
      gone.forEach(s -> deleteAfterPublish.add(s.file()));
      Lsn lowest = c.instances.stream().map(x -> x.lowWatermark).min(Lsn::compareTo).orElse(lowWatermark);
      c.mapping.removeIf(e -> e.lsn().isBefore(lowest));
      return null;
    });
  }

  // ---- transactions --------------------------------------------------------------------------

  /** Commits one transaction now (server clock); returns its commit LSN. */
  public Lsn commit(Consumer<Tx> script) {
    return commitAt(null, script);
  }

  /** Commits one transaction with {@code tran_end_time} {@code at} (server-local time). */
  public Lsn commitAt(LocalDateTime at, Consumer<Tx> script) {
    Tx tx = new Tx();
    script.accept(tx);
    return write(c -> applyTx(c, tx, at == null ? now(c) : at));
  }

  /** An idle ("dummy") mapping entry without change rows, as capture writes when idle. */
  public Lsn idle() {
    return idleAt(null);
  }

  public Lsn idleAt(LocalDateTime at) {
    return write(c -> {
      if (c.capture.holding()) {
        throw FakeErrors.captureHeld("write an idle mapping entry (capture writes them only when it runs and is idle)");
      }
      long offset = c.alignedNext();
      Lsn lsn = c.lsnAt(offset);
      c.mapping.add(new MappingEntry(lsn, at == null ? now(c) : at, true));
      c.nextFree = offset + 1;
      return lsn;
    });
  }

  /**
   * Queues a transaction that the next {@link FakeCdcClient#readTable} commits before reading:
   * a writer between a snapshot's stamp and its SELECT.
   */
  public void commitBeforeRead(Consumer<Tx> script) {
    Tx tx = new Tx();
    script.accept(tx);
    byte[] encoded = tx.encode();
    write(c -> {
      c.pending.add(encoded);
      return null;
    });
  }

  /** Commits the queued before-read transactions; returns how many. */
  int applyPending() {
    if (fresh().pending.isEmpty()) {
      return 0;
    }
    return write(c -> {
      int n = c.pending.size();
      for (byte[] p : c.pending) {
        applyTx(c, Tx.decode(p), now(c));
      }
      c.pending.clear();
      return n;
    });
  }

  private Lsn applyTx(Catalog c, Tx tx, LocalDateTime at) {
    TxApplier applier = new TxApplier(store, c, t -> data(t));
    Lsn lsn = applier.apply(tx, at);
    for (TableState t : applier.touched()) {
      persistRows(c, t);
    }
    return lsn;
  }

  // ---- the capture and cleanup jobs (issue 30) -------------------------------------------------

  /**
   * The capture job stops (SQL Server Agent stopped, a failover, a restore): from now on commits change
   * the tables, but {@code fn_cdc_get_max_lsn}, the mapping and the change tables show nothing of them,
   * and no idle entry is written, until {@link #startCapture}. Its last log scan ended now.
   */
  public void stopCapture() {
    write(c -> {
      if (c.capture.running) {
        c.capture.running = false;
        c.capture.stoppedAt = now(c);
      }
      return null;
    });
  }

  /**
   * The capture job starts again and catches up: every held commit becomes visible, in commit order,
   * with its own commit time (as SQL Server's capture reads them from the log).
   */
  public void startCapture() {
    write(c -> {
      c.capture.running = true;
      c.capture.stoppedAt = null;
      release(c);
      return null;
    });
  }

  /** The capture job runs but falls behind the log: commits are held until {@link #catchUpCapture}. */
  public void lagCapture() {
    write(c -> {
      c.capture.behind = true;
      return null;
    });
  }

  /** A capture job that fell behind ({@link #lagCapture}) catches up; a stopped one stays stopped. */
  public void catchUpCapture() {
    write(c -> {
      c.capture.behind = false;
      if (c.capture.running) {
        release(c);
      }
      return null;
    });
  }

  private static void release(Catalog c) {
    c.capture.behind = false;
    for (Catalog.HeldCommit h : c.capture.held) {
      TxApplier.publish(c, h.entry(), h.segments());
    }
    c.capture.held.clear();
  }

  /**
   * The cleanup job's {@code retention} ({@code msdb.dbo.cdc_jobs}); null (a new fake's): the database has no
   * cleanup job. The job only reports a retention: changes go only when a history calls {@link #cleanup}.
   */
  public void cleanupRetention(Duration retention) {
    if (retention != null && (retention.isNegative() || retention.isZero())) {
      throw FakeErrors.invalidArgument("The cleanup retention", retention, "a positive duration, or null for none");
    }
    write(c -> {
      c.capture.retentionMinutes = retention == null ? -1 : retention.toMinutes();
      return null;
    });
  }

  /** A {@code sys.dm_cdc_errors} entry now, with {@code message}. */
  public void captureError(String message) {
    write(c -> {
      c.capture.errorAt = now(c);
      c.capture.errorMessage = message;
      return null;
    });
  }

  /**
   * {@code true}: readers probe capture's health as a least-privilege login does, which cannot read
   * {@code msdb} or the CDC dynamic management views.
   */
  public void hideCaptureState(boolean hidden) {
    write(c -> {
      c.capture.stateHidden = hidden;
      return null;
    });
  }

  // ---- DDL -----------------------------------------------------------------------------------

  /** {@code ALTER TABLE ... ADD <declaration>}: a new column of the table, not captured by existing instances. */
  public Lsn addColumn(String table, String declaration) {
    ColumnDeclaration d = ColumnDeclaration.parse(declaration);
    return write(c -> ddl(c).addColumn(table(c, table), d));
  }

  /** {@code ALTER TABLE ... DROP COLUMN}: gone from the table; instances keep it, NULL from now on. */
  public Lsn dropColumn(String table, String column) {
    return write(c -> ddl(c).dropColumn(table(c, table), column));
  }

  /** {@code ALTER TABLE ... ALTER COLUMN}: the column's (and its captured) type becomes {@code newType}. */
  public Lsn alterColumn(String table, String column, String newType) {
    SqlServerType type = ColumnDeclaration.type(column + " " + newType, newType);
    return write(c -> ddl(c).alterColumn(table(c, table), column, type));
  }

  private DdlApplier ddl(Catalog c) {
    if (c.capture.holding()) {
      throw FakeErrors.captureHeld("apply DDL");
    }
    return new DdlApplier(c, this::data, t -> persistRows(c, t), t -> tableCache.remove(t.uid));
  }

  // ---- plumbing ------------------------------------------------------------------------------

  private <T> T write(Function<Catalog, T> change) {
    try (WriterLock.Held lock = WriterLock.acquire(store.dir())) {
      Catalog c = fresh();
      T result;
      try {
        result = change.apply(c);
        c.version++;
        store.publish(c);
      } catch (RuntimeException e) {
        cached = null;
        tableCache.clear();
        deleteAfterPublish.clear();
        throw e;
      }
      deleteAfterPublish.forEach(store::deleteQuietly);
      deleteAfterPublish.clear();
      purgeTrash(c);
      return result;
    }
  }

  /** The catalog of the current version (re-read when another writer published since). */
  private Catalog fresh() {
    long version = store.currentVersion();
    if (cached == null || cached.version != version) {
      cached = store.load();
      tableCache.clear();
    }
    return cached;
  }

  private TableData data(TableState t) {
    return tableCache.computeIfAbsent(t.uid, uid -> TableData.load(store, t));
  }

  /** Writes the table's rows as a new file for the version being built. */
  private void persistRows(Catalog c, TableState t) {
    TableData d = data(t);
    String file = FakeStore.TABLES + "/" + t.uid + "-" + (c.version + 1) + ".rows";
    TableRowsFile.write(store, file, t.columns.size(), d.rows());
    if (t.rowsFile != null && !t.rowsFile.equals(file)) {
      c.trash.add(new Trash(c.version + 1, t.rowsFile));
    }
    t.rowsFile = file;
    t.rowCount = d.size();
  }

  private void purgeTrash(Catalog c) {
    List<Trash> old = c.trash.stream().filter(t -> t.version() <= c.version - FakeStore.KEEP_VERSIONS).toList();
    if (!old.isEmpty()) {
      old.forEach(t -> store.deleteQuietly(t.file()));
      // forgotten at the next write; deleting twice is harmless
    }
    c.trash.removeAll(old);
  }

  /**
   * The writer clock's time on the server clock, truncated to ms. Never before the last entry in
   * UTC: a clock that went back keeps the last entry's time. A fall-back does set the server-local
   * time back, as SQL Server's {@code tran_end_time} goes back then.
   */
  private LocalDateTime now(Catalog c) {
    ZoneId zone = ZoneId.of(c.zone);
    java.time.Instant instant = clock.instant();
    LocalDateTime t = LocalDateTime.ofInstant(instant, zone).truncatedTo(ChronoUnit.MILLIS);
    Optional<MappingEntry> last = c.lastEntry();
    if (last.isPresent() && last.get().tranEndTime().isAfter(t)
        && new CommitTimes(c.mapping, zone).utc(c.mapping.size() - 1).isAfter(instant)) {
      return last.get().tranEndTime();
    }
    return t;
  }

  private static TableState table(Catalog c, String table) {
    return c.table(table).orElseThrow(() -> FakeErrors.unknownTable(table, c.tableNames()));
  }

  private static InstanceState instance(Catalog c, String name) {
    return c.instance(name).orElseThrow(() -> FakeErrors.unknownInstance(name, c.instanceNames()));
  }

  @Override
  public void close() {
    cached = null;
    tableCache.clear();
  }
}
