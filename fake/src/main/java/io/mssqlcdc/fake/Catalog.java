package io.mssqlcdc.fake;

import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.types.SqlServerType;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The metadata of one version of the fake database (one manifest file): the LSN/time mapping,
 * tables, capture instances with their segments and DDL, and queued before-read transactions.
 * Readers treat a loaded catalog as immutable; the writer mutates its own copy and publishes it
 * as the next version.
 */
final class Catalog {
  /** First LSN the fake hands out; entries advance by 16 (gaps like real LSNs). */
  static final Lsn START = Lsn.parse("0x0000002A000001000001");
  static final int STEP = 16;

  long version;
  String zone = "UTC";
  /** Next free LSN, as an offset from {@link #START}. */
  long nextFree;
  int nextUid = 1;
  long nextEnableSeq = 1;
  final List<MappingEntry> mapping = new ArrayList<>();
  final List<TableState> tables = new ArrayList<>();
  final List<InstanceState> instances = new ArrayList<>();
  /** Queued transactions ({@link Tx#encode}) the next table read commits first. */
  final List<byte[]> pending = new ArrayList<>();
  /** Files superseded at a version; deleted a few versions later (readers may still hold them). */
  final List<Trash> trash = new ArrayList<>();
  /** The capture job's simulated state (issue 30); {@link CaptureState#RUNNING} in a new database. */
  final CaptureState capture = new CaptureState();

  record MappingEntry(Lsn lsn, LocalDateTime tranEndTime, boolean idle) {}

  record DdlRecord(Lsn lsn, String command) {}

  record SegmentRef(Lsn commitLsn, String file, int rows) {}

  record Trash(long version, String file) {}

  /** A commit capture has not processed yet: its mapping entry and change segments, by instance uid. */
  record HeldCommit(MappingEntry entry, List<HeldSegment> segments) {}

  record HeldSegment(int instanceUid, SegmentRef segment) {}

  /**
   * The capture job as the fake simulates it. While it is stopped or behind, commits change the tables
   * but their mapping entries and change rows are held (SQL Server's change tables and {@code
   * fn_cdc_get_max_lsn} show nothing of them) until capture catches up, with their own commit times.
   */
  static final class CaptureState {
    /** False: the capture job is stopped (SQL Server Agent down, a failover, a restore). */
    boolean running = true;
    /** True while running: the job is behind the log (commits held until it catches up). */
    boolean behind;
    /** Server-local end of the last log scan while stopped (the moment it stopped); null while running. */
    LocalDateTime stoppedAt;
    final List<HeldCommit> held = new ArrayList<>();
    /**
     * The cleanup job's retention in minutes; -1 (the default): no cleanup job, as the fake cleans up only when a
     * history calls {@code cleanup} (SQL Server's own default job keeps 4320: 3 days).
     */
    long retentionMinutes = -1;
    /** A login that cannot read msdb or the CDC dynamic management views. */
    boolean stateHidden;
    /** The newest {@code sys.dm_cdc_errors} entry (server-local time and message), or null. */
    LocalDateTime errorAt;
    String errorMessage;

    boolean holding() {
      return !running || behind;
    }

    /** A running job, nothing held, the default retention, readable, no error: FCM1 has no capture state. */
    boolean isDefault() {
      return running && !behind && held.isEmpty() && stoppedAt == null && retentionMinutes == -1 && !stateHidden
          && errorAt == null;
    }
  }

  record Captured(String name, int ordinal, int columnId, SqlServerType type, boolean computed) {}

  static final class ColumnState {
    String name;
    int columnId;
    SqlServerType type;
    boolean computed;
    boolean dropped;

    ColumnState(String name, int columnId, SqlServerType type, boolean computed, boolean dropped) {
      this.name = name;
      this.columnId = columnId;
      this.type = type;
      this.computed = computed;
      this.dropped = dropped;
    }
  }

  static final class TableState {
    int uid;
    String schema;
    String name;
    final List<ColumnState> columns = new ArrayList<>();
    int nextColumnId = 1;
    final List<String> key = new ArrayList<>();
    /** File under tables/ holding the current rows; null while the table is empty and new. */
    String rowsFile;
    long rowCount;

    String qualified() {
      return schema + "." + name;
    }

    Optional<ColumnState> column(String column) {
      for (ColumnState c : columns) {
        if (!c.dropped && c.name.equalsIgnoreCase(column)) {
          return Optional.of(c);
        }
      }
      return Optional.empty();
    }

    int columnIndex(String column) {
      for (int i = 0; i < columns.size(); i++) {
        if (!columns.get(i).dropped && columns.get(i).name.equalsIgnoreCase(column)) {
          return i;
        }
      }
      return -1;
    }

    List<String> liveColumnNames() {
      List<String> names = new ArrayList<>();
      for (ColumnState c : columns) {
        if (!c.dropped) {
          names.add(c.name);
        }
      }
      return names;
    }
  }

  static final class InstanceState {
    String name;
    int uid;
    int tableUid;
    Lsn startLsn;
    Lsn lowWatermark;
    LocalDateTime createDate;
    long enableSeq;
    final List<Captured> columns = new ArrayList<>();
    final List<DdlRecord> ddl = new ArrayList<>();
    final List<SegmentRef> segments = new ArrayList<>();
  }

  /** Oldest first: create date, then start LSN, then enable order. */
  static final Comparator<InstanceState> OLDEST_FIRST = Comparator
      .comparing((InstanceState i) -> i.createDate)
      .thenComparing(i -> i.startLsn)
      .thenComparingLong(i -> i.enableSeq);

  Lsn lsnAt(long offset) {
    return START.plus(offset);
  }

  /** The smallest entry LSN the next mapping entry can take (16-aligned from START). */
  long alignedNext() {
    return ((nextFree + STEP - 1) / STEP) * STEP;
  }

  Optional<MappingEntry> lastEntry() {
    return mapping.isEmpty() ? Optional.empty() : Optional.of(mapping.get(mapping.size() - 1));
  }

  /** Index of the first mapping entry with LSN &gt;= lsn (size when none). */
  int firstAtOrAfter(Lsn lsn) {
    int lo = 0;
    int hi = mapping.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (mapping.get(mid).lsn().compareTo(lsn) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  Optional<TableState> table(int uid) {
    return tables.stream().filter(t -> t.uid == uid).findFirst();
  }

  /** {@code schema.table} or {@code table} (schema dbo), ignoring case. */
  Optional<TableState> table(String qualified) {
    String s = qualified.strip();
    int dot = s.indexOf('.');
    String schema = dot < 0 ? "dbo" : strip(s.substring(0, dot));
    String name = dot < 0 ? strip(s) : strip(s.substring(dot + 1));
    return tables.stream()
        .filter(t -> t.schema.equalsIgnoreCase(schema) && t.name.equalsIgnoreCase(name))
        .findFirst();
  }

  private static String strip(String part) {
    String p = part.strip();
    return p.startsWith("[") && p.endsWith("]") ? p.substring(1, p.length() - 1) : p;
  }

  List<String> tableNames() {
    return tables.stream().map(TableState::qualified).toList();
  }

  Optional<InstanceState> instanceExact(String name) {
    return instances.stream().filter(i -> i.name.equals(name)).findFirst();
  }

  /** Exact name first, then a unique case-insensitive match. */
  Optional<InstanceState> instance(String name) {
    Optional<InstanceState> exact = instanceExact(name);
    if (exact.isPresent()) {
      return exact;
    }
    List<InstanceState> ci = instances.stream().filter(i -> i.name.equalsIgnoreCase(name)).toList();
    return ci.size() == 1 ? Optional.of(ci.get(0)) : Optional.empty();
  }

  List<InstanceState> instancesOf(int tableUid) {
    return instances.stream().filter(i -> i.tableUid == tableUid).sorted(OLDEST_FIRST).toList();
  }

  List<String> instanceNames() {
    return instances.stream().map(i -> i.name).toList();
  }

  static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }
}
