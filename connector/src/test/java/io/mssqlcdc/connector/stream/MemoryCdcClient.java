package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.DdlEvent;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.client.SourceTable;
import io.mssqlcdc.client.SplitPoint;
import io.mssqlcdc.client.TableColumn;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** {@link CdcClient} over a {@link MemoryCdc} history; counts calls for the tests. */
final class MemoryCdcClient implements CdcClient {
  static final AtomicInteger OPENED = new AtomicInteger();
  /** {@link #splitPoints} calls (the NTILE over a range's change rows: the costliest planning query). */
  static final AtomicInteger SPLIT_POINTS = new AtomicInteger();

  private final MemoryCdc db;
  private final boolean detects;
  private ZoneId zone;

  MemoryCdcClient(MemoryCdc db, String zoneOption) {
    this.db = db;
    this.detects = zoneOption == null || zoneOption.equalsIgnoreCase("auto");
    this.zone = detects ? db.serverZone : ZoneId.of(zoneOption);
    OPENED.incrementAndGet();
  }

  private Instant utc(LocalDateTime t) {
    return t.atZone(zone).toInstant();
  }

  @Override
  public Optional<Lsn> maxLsn() {
    if (db.transientFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new io.mssqlcdc.errors.CdcSourceUnavailableException(io.mssqlcdc.errors.CdcErrorCode.SOURCE_UNAVAILABLE,
          "Connection reset (SQLState 08S01)");
    }
    synchronized (db) {
      return db.entries.isEmpty() ? Optional.empty() : Optional.of(db.entries.lastKey());
    }
  }

  @Override
  public Lsn minLsn(String captureInstance) {
    synchronized (db) {
      try {
        return db.instance(captureInstance).minLsn;
      } catch (IllegalArgumentException e) {
        throw CdcErrors.captureInstanceNotReady(captureInstance);
      }
    }
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
    synchronized (db) {
      return Optional.ofNullable(db.entries.get(lsn)).map(this::utc);
    }
  }

  @Override
  public Optional<Instant> commitTimeAtOrBefore(Lsn lsn) {
    synchronized (db) {
      Map.Entry<Lsn, LocalDateTime> e = db.entries.floorEntry(lsn);
      return e == null ? Optional.empty() : Optional.of(utc(e.getValue()));
    }
  }

  @Override
  public Optional<Lsn> nthCommitAfter(Lsn after, int n) {
    if (n < 1) {
      throw new IllegalArgumentException("n must be >= 1, not " + n);
    }
    synchronized (db) {
      Lsn last = null;
      int k = 0;
      for (Lsn l : db.entries.tailMap(after, false).keySet()) {
        last = l;
        if (++k == n) {
          break;
        }
      }
      return Optional.ofNullable(last);
    }
  }

  @Override
  public long commitsBetween(Lsn after, Lsn upTo, int limit) {
    if (!upTo.isAfter(after)) {
      return 0;
    }
    synchronized (db) {
      return Math.min(limit, db.entries.subMap(after, false, upTo, true).size());
    }
  }

  @Override
  public String refreshSourceTimeZone() {
    if (detects) {
      zone = db.serverZone;
    }
    return sourceTimeZone();
  }

  @Override
  public List<CaptureInstance> captureInstances(String captureInstance) {
    synchronized (db) {
      String table = null;
      for (MemoryCdc.Instance i : db.instances) {
        if (i.name.equalsIgnoreCase(captureInstance)) {
          table = i.table;
        }
      }
      if (table == null) {
        for (MemoryCdc.Instance i : db.instances) {
          if ((i.schema + "_" + i.table).equalsIgnoreCase(captureInstance)) {
            table = i.table;
          }
        }
      }
      if (table == null) {
        throw CdcErrors.captureInstanceNotFound(captureInstance, List.of());
      }
      List<CaptureInstance> out = new ArrayList<>();
      for (MemoryCdc.Instance i : db.instances) {
        if (i.table.equals(table)) {
          out.add(i.toCaptureInstance());
        }
      }
      return out;
    }
  }

  @Override
  public List<CapturedColumn> capturedColumns(String captureInstance) {
    synchronized (db) {
      return db.instance(captureInstance).columns;
    }
  }

  @Override
  public List<DdlEvent> ddlHistory(String captureInstance, Lsn after, Lsn to) {
    synchronized (db) {
      List<DdlEvent> out = new ArrayList<>();
      for (DdlEvent e : db.instance(captureInstance).ddl) {
        if (e.lsn().isAfter(after) && !e.lsn().isAfter(to)) {
          out.add(e);
        }
      }
      return out;
    }
  }

  /** The commits an instance holds in {@code [from, to]} (purged ones are gone). */
  private List<MemoryCdc.Commit> commits(String captureInstance, Lsn from, Lsn to) {
    synchronized (db) {
      MemoryCdc.Instance i = db.instance(captureInstance);
      Lsn lo = Lsn.max(from, Lsn.max(i.start, i.minLsn));
      List<MemoryCdc.Commit> out = new ArrayList<>();
      if (to.isBefore(lo)) {
        return out;
      }
      for (MemoryCdc.Commit c : db.commits.subMap(lo, true, to, true).values()) {
        if (c.table().equals(i.table)) {
          out.add(c);
        }
      }
      return out;
    }
  }

  @Override
  public List<SplitPoint> splitPoints(String captureInstance, Lsn from, Lsn to, int n) {
    SPLIT_POINTS.incrementAndGet();
    List<MemoryCdc.Commit> cs = commits(captureInstance, from, to);
    long total = cs.stream().mapToLong(MemoryCdc.Commit::size).sum();
    List<SplitPoint> out = new ArrayList<>();
    if (total == 0) {
      return out;
    }
    long base = total / n;
    long extra = total % n;
    long tileEnd = 0;
    int ci = 0;
    long cum = 0;
    long rowsInTile = 0;
    for (int t = 0; t < n && ci < cs.size(); t++) {
      long size = base + (t < extra ? 1 : 0);
      if (size == 0) {
        continue;
      }
      tileEnd += size;
      // the commit holding the tile's last row stays whole in this tile
      while (ci < cs.size() && cum < tileEnd) {
        cum += cs.get(ci).size();
        rowsInTile += cs.get(ci).size();
        ci++;
      }
      if (rowsInTile > 0) {
        Lsn bound = cs.get(ci - 1).lsn();
        out.add(new SplitPoint(bound, bound.increment(), rowsInTile));
        rowsInTile = 0;
      }
      tileEnd = Math.max(tileEnd, cum);
    }
    return out;
  }

  @Override
  public ChangeCursor changes(ChangeQuery query) {
    List<MemoryCdc.Commit> cs = commits(query.captureInstance(), query.from(), query.to());
    List<String> captured;
    synchronized (db) {
      captured = db.instance(query.captureInstance()).columns.stream().map(c -> MemoryCdc.lower(c.name())).toList();
    }
    return new Cursor(cs.iterator(), query.columns().stream().map(MemoryCdc::lower).toList(), captured, db);
  }

  private final class Cursor implements ChangeCursor {
    private final Iterator<MemoryCdc.Commit> commits;
    private final List<String> columns;
    private final List<String> captured;
    private final MemoryCdc db;
    private MemoryCdc.Commit commit;
    private Instant commitTime;
    private int index = -1;
    private MemoryCdc.Row row;

    Cursor(Iterator<MemoryCdc.Commit> commits, List<String> columns, List<String> captured, MemoryCdc db) {
      this.commits = commits;
      this.columns = columns;
      this.captured = captured;
      this.db = db;
    }

    @Override
    public boolean next() {
      while (commit == null || index + 1 >= commit.size()) {
        if (!commits.hasNext()) {
          row = null;
          return false;
        }
        commit = commits.next();
        commitTime = MemoryCdcClient.this.commitTime(commit.lsn()).orElseThrow();
        index = -1;
      }
      index++;
      row = commit.rows().apply(index);
      return true;
    }

    @Override
    public Lsn startLsn() {
      return commit.lsn();
    }

    @Override
    public Lsn seqval() {
      return Lsn.of(1, commit.lsn().low() * 1_000_000L + index);
    }

    @Override
    public int operation() {
      return row.op();
    }

    @Override
    public int commandId() {
      return 1;
    }

    @Override
    public Instant commitTime() {
      return commitTime;
    }

    @Override
    public Object value(int i) {
      String c = columns.get(i);
      return captured.contains(c) ? row.values().get(c) : null;
    }

    @Override
    public void close() {
      db.afterRead.run();
    }
  }

  @Override
  public SourceTable sourceTable(String captureInstance) {
    throw new UnsupportedOperationException("snapshots are not modelled");
  }

  @Override
  public List<TableColumn> tableColumns(TableRef table) {
    throw new UnsupportedOperationException("snapshots are not modelled");
  }

  @Override
  public Optional<List<Object>> keyMinMax(TableRef table, String key, KeyRange range) {
    throw new UnsupportedOperationException("snapshots are not modelled");
  }

  @Override
  public List<List<Object>> keyTiles(TableRef table, List<String> keys, int n) {
    throw new UnsupportedOperationException("snapshots are not modelled");
  }

  @Override
  public RowCursor readTable(TableQuery query) {
    throw new UnsupportedOperationException("snapshots are not modelled");
  }

  @Override
  public String sourceTimeZone() {
    return zone.getId();
  }

  @Override
  public void close() {}
}
