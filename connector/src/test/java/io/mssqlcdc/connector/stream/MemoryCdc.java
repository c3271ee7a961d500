package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.client.DdlEvent;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.types.SqlServerType;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;

/**
 * A scripted, in-memory CDC history for the stream's tests, read through {@link MemoryCdcClient}
 * ({@code backend=fake}, {@code fakePath=mem:<id>}; local Spark runs executors in this JVM).
 * Written while the file-backed fake (branch {@code fake}) was not available yet; it models
 * exactly what the stream relies on: {@code lsn_time_mapping} (commits and idle entries, server
 * clock), capture instances with start LSNs, cleanup ({@code min_lsn} first, then rows), DDL
 * history, disabled instances and lazily generated transactions (for the memory test).
 */
final class MemoryCdc {
  static final Map<String, MemoryCdc> REGISTRY = new ConcurrentHashMap<>();
  static final LocalDateTime BASE = LocalDateTime.of(2026, 9, 28, 14, 0, 0);

  /** One change row: operation and values by lower-case column name. */
  record Row(int op, Map<String, Object> values) {}

  /** A commit: its rows, stored or generated on demand. */
  record Commit(Lsn lsn, String table, int size, IntFunction<Row> rows) {}

  static final class Instance {
    final String name;
    final String schema;
    final String table;
    final Lsn start;
    volatile List<CapturedColumn> columns;
    volatile Lsn minLsn;
    final List<DdlEvent> ddl = new ArrayList<>();

    Instance(String name, String schema, String table, Lsn start, List<CapturedColumn> columns) {
      this.name = name;
      this.schema = schema;
      this.table = table;
      this.start = start;
      this.columns = columns;
      this.minLsn = start;
    }

    CaptureInstance toCaptureInstance() {
      return new CaptureInstance(name, schema, table, start, List.of(), null);
    }
  }

  final String path = "mem:" + UUID.randomUUID();
  /** The server clock; a test may move it (a pre-2022 server's fixed offset across a DST change). */
  volatile ZoneId serverZone;
  final NavigableMap<Lsn, LocalDateTime> entries = new TreeMap<>();
  final NavigableMap<Lsn, Commit> commits = new TreeMap<>();
  final List<Instance> instances = new ArrayList<>();
  /** Runs when a change cursor is closed (e.g. a cleanup "during" the read). */
  volatile Runnable afterRead = () -> {};
  /** The next this-many {@code maxLsn} calls fail as a transient error (a dropped connection). */
  final java.util.concurrent.atomic.AtomicInteger transientFailures = new java.util.concurrent.atomic.AtomicInteger();
  private long next = 0x1000;

  private MemoryCdc(ZoneId serverZone) {
    this.serverZone = serverZone;
  }

  static MemoryCdc create() {
    return create(ZoneId.of("UTC"));
  }

  static MemoryCdc create(ZoneId serverZone) {
    MemoryCdc m = new MemoryCdc(serverZone);
    REGISTRY.put(m.path, m);
    return m;
  }

  static MemoryCdc get(String path) {
    MemoryCdc m = REGISTRY.get(path);
    if (m == null) {
      throw new IllegalArgumentException("no memory CDC history at " + path);
    }
    return m;
  }

  static CapturedColumn col(String name, int ordinal, String type) {
    return new CapturedColumn(name, ordinal, ordinal, SqlServerType.parse(type), false);
  }

  /** Enables a capture instance of {@code dbo.<table>}: a commit (no rows) whose LSN is its start. */
  synchronized Instance enable(String name, String table, CapturedColumn... columns) {
    Lsn s = entry();
    Instance i = new Instance(name, "dbo", table, s, List.of(columns));
    instances.add(i);
    return i;
  }

  /** Commits {@code rows} to {@code dbo.<table>}; returns the commit LSN. */
  synchronized Lsn commit(String table, Row... rows) {
    List<Row> list = Arrays.asList(rows);
    return commit(table, list.size(), list::get);
  }

  synchronized Lsn commit(String table, int size, IntFunction<Row> rows) {
    Lsn lsn = entry();
    commits.put(lsn, new Commit(lsn, table, size, rows));
    return lsn;
  }

  /** Commits {@code n} inserts of {@code (id, name)} numbered from {@code firstId}. */
  synchronized Lsn inserts(String table, int firstId, int n) {
    return commit(table, n, k -> insert(firstId + k));
  }

  static Row insert(int id) {
    return new Row(2, Map.of("id", id, "name", "n" + id));
  }

  /** An idle entry (capture's heartbeat: an LSN with no change rows). */
  synchronized Lsn idle() {
    return entry();
  }

  /** DDL recorded at an LSN between the last entry and the next one. */
  synchronized Lsn ddl(String instance, String command, List<CapturedColumn> newColumns) {
    Lsn at = entries.lastKey().plus(1);
    next = at.low() + 0x10;
    Instance i = instance(instance);
    i.ddl.add(new DdlEvent(i.name, at, command, toUtc(entries.lastEntry().getValue())));
    if (newColumns != null) {
      i.columns = newColumns;
    }
    return at;
  }

  /** CDC cleanup: moves {@code min_lsn} to the first entry at or after {@code lowWatermark}. */
  synchronized void cleanup(String instance, Lsn lowWatermark) {
    Instance i = instance(instance);
    Lsn m = entries.ceilingKey(lowWatermark);
    i.minLsn = m == null ? lowWatermark : m;
  }

  synchronized void disable(String instance) {
    instances.remove(instance(instance));
  }

  synchronized Instance instance(String name) {
    for (Instance i : instances) {
      if (i.name.equalsIgnoreCase(name)) {
        return i;
      }
    }
    throw new IllegalArgumentException("no instance " + name);
  }

  Instant toUtc(LocalDateTime serverTime) {
    return serverTime.atZone(serverZone).toInstant();
  }

  private Lsn entry() {
    Lsn lsn = Lsn.of(0, next);
    next += 0x10;
    entries.put(lsn, BASE.plusSeconds(entries.size()));
    return lsn;
  }

  static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }
}
