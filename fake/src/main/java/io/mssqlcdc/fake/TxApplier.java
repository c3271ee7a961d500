package io.mssqlcdc.fake;

import io.mssqlcdc.fake.Catalog.Captured;
import io.mssqlcdc.fake.Catalog.ColumnState;
import io.mssqlcdc.fake.Catalog.HeldCommit;
import io.mssqlcdc.fake.Catalog.HeldSegment;
import io.mssqlcdc.fake.Catalog.InstanceState;
import io.mssqlcdc.fake.Catalog.MappingEntry;
import io.mssqlcdc.fake.Catalog.SegmentRef;
import io.mssqlcdc.fake.Catalog.TableState;
import io.mssqlcdc.fake.SegmentWriter.ChangeRow;
import io.mssqlcdc.lsn.Lsn;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Applies one transaction to a catalog: updates the tables' rows, allocates the seqvals and the
 * commit LSN, and writes one change segment per capture instance that captured something.
 * Touched tables are remembered for {@link FakeCdcDatabase} to persist.
 */
final class TxApplier {
  /** One row change: operation 1 (delete), 2 (insert) or 3 (update: before and after). */
  private record Effect(TableState table, int operation, Object[] before, Object[] after) {}

  private final FakeStore store;
  private final Catalog catalog;
  private final Function<TableState, TableData> data;
  private final Set<TableState> touched = new LinkedHashSet<>();

  TxApplier(FakeStore store, Catalog catalog, Function<TableState, TableData> data) {
    this.store = store;
    this.catalog = catalog;
    this.data = data;
  }

  Set<TableState> touched() {
    return touched;
  }

  Lsn apply(Tx tx, LocalDateTime tranEndTime) {
    List<Effect> effects = new ArrayList<>();
    for (Tx.Op op : tx.ops()) {
      TableState t = catalog.table(op.table())
          .orElseThrow(() -> FakeErrors.unknownTable(op.table(), catalog.tableNames()));
      effects.add(effect(t, op));
      touched.add(t);
    }
    long seqBase = catalog.nextFree;
    long commitOffset = align(seqBase + effects.size());
    Lsn commitLsn = catalog.lsnAt(commitOffset);
    List<HeldSegment> segments = new ArrayList<>();
    for (TableState t : touched) {
      List<InstanceState> instances = catalog.instancesOf(t.uid);
      for (int idx = 0; idx < instances.size(); idx++) {
        writeChanges(instances.get(idx), idx, t, effects, seqBase, commitLsn, segments);
      }
    }
    MappingEntry entry = new MappingEntry(commitLsn, tranEndTime, false);
    if (catalog.capture.holding()) {
      // in the log, not yet in the change tables: capture publishes it when it catches up
      catalog.capture.held.add(new HeldCommit(entry, segments));
    } else {
      publish(catalog, entry, segments);
    }
    catalog.nextFree = commitOffset + 1;
    return commitLsn;
  }

  /** Makes a captured commit visible: its change rows in their instances, its mapping entry. */
  static void publish(Catalog catalog, MappingEntry entry, List<HeldSegment> segments) {
    for (HeldSegment g : segments) {
      catalog.instances.stream().filter(i -> i.uid == g.instanceUid()).findFirst()
          .ifPresent(i -> i.segments.add(g.segment())); // an instance disabled meanwhile loses them
    }
    catalog.mapping.add(entry);
  }

  static long align(long offset) {
    return ((offset + Catalog.STEP - 1) / Catalog.STEP) * Catalog.STEP;
  }

  private void writeChanges(InstanceState instance, int instanceIndex, TableState t, List<Effect> effects, long seqBase,
      Lsn commitLsn, List<HeldSegment> segments) {
    int[] source = new int[instance.columns.size()];
    boolean[] nullAlways = new boolean[source.length];
    List<String> names = new ArrayList<>();
    for (int j = 0; j < source.length; j++) {
      Captured col = instance.columns.get(j);
      names.add(col.name());
      source[j] = indexById(t, col.columnId());
      nullAlways[j] = col.computed() || source[j] < 0 || t.columns.get(source[j]).dropped;
    }
    List<ChangeRow> rows = new ArrayList<>();
    for (int i = 0; i < effects.size(); i++) {
      Effect e = effects.get(i);
      if (e.table() != t) {
        continue;
      }
      Lsn seqval = catalog.lsnAt(seqBase + i);
      int commandId = i + 1 + instanceIndex;
      switch (e.operation()) {
        case 1 -> rows.add(new ChangeRow(seqval, 1, commandId, project(e.before(), source, nullAlways)));
        case 2 -> rows.add(new ChangeRow(seqval, 2, commandId, project(e.after(), source, nullAlways)));
        default -> {
          Object[] before = project(e.before(), source, nullAlways);
          Object[] after = project(e.after(), source, nullAlways);
          if (!Arrays.deepEquals(before, after)) {
            rows.add(new ChangeRow(seqval, 3, commandId, before));
            rows.add(new ChangeRow(seqval, 4, commandId, after));
          }
        }
      }
    }
    if (rows.isEmpty()) {
      return;
    }
    String file = FakeStore.CHANGES + "/" + instance.uid + "/" + commitLsn.hex().substring(2) + ".seg";
    SegmentWriter.write(store, file, names, rows);
    segments.add(new HeldSegment(instance.uid, new SegmentRef(commitLsn, file, rows.size())));
  }

  private static int indexById(TableState t, int columnId) {
    for (int i = 0; i < t.columns.size(); i++) {
      if (t.columns.get(i).columnId == columnId) {
        return i;
      }
    }
    return -1;
  }

  private static Object[] project(Object[] row, int[] source, boolean[] nullAlways) {
    Object[] out = new Object[source.length];
    for (int j = 0; j < source.length; j++) {
      out[j] = nullAlways[j] || source[j] >= row.length ? null : row[source[j]];
    }
    return out;
  }

  private Effect effect(TableState t, Tx.Op op) {
    TableData d = data.apply(t);
    switch (op.kind()) {
      case INSERT -> {
        Object[] row = new Object[t.columns.size()];
        assign(t, row, op.row());
        if (d.hasKey() && d.keyed.containsKey(d.keyOf(row))) {
          throw FakeErrors.duplicateKey(t.qualified(), d.keyOf(row));
        }
        d.add(row);
        return new Effect(t, 2, null, row);
      }
      case UPDATE -> {
        if (!d.hasKey()) {
          throw FakeErrors.keyRequired(t.qualified(), "update");
        }
        List<Object> key = keyFromRow(t, op.row());
        Object[] before = d.keyed.get(key);
        if (before == null) {
          throw FakeErrors.noSuchRow(t.qualified(), key, "update");
        }
        Object[] after = Arrays.copyOf(before, t.columns.size());
        assign(t, after, op.row());
        d.keyed.put(key, after);
        return new Effect(t, 3, Arrays.copyOf(before, t.columns.size()), after);
      }
      case DELETE_KEY -> {
        if (!d.hasKey()) {
          throw FakeErrors.keyRequired(t.qualified(), "delete");
        }
        List<Object> key = coerceKey(t, op.key());
        Object[] before = d.keyed.remove(key);
        if (before == null) {
          throw FakeErrors.noSuchRow(t.qualified(), key, "delete");
        }
        return new Effect(t, 1, Arrays.copyOf(before, t.columns.size()), null);
      }
      default -> {
        Object[] match = new Object[t.columns.size()];
        assign(t, match, op.row());
        Iterator<Object[]> it = d.rows().iterator();
        while (it.hasNext()) {
          Object[] row = Arrays.copyOf(it.next(), t.columns.size());
          if (matches(t, row, match, op.row())) {
            it.remove();
            return new Effect(t, 1, row, null);
          }
        }
        throw FakeErrors.noSuchRow(t.qualified(), op.row(), "delete");
      }
    }
  }

  private static boolean matches(TableState t, Object[] row, Object[] match, Map<String, Object> given) {
    for (String name : given.keySet()) {
      int i = t.columnIndex(name);
      if (!Arrays.deepEquals(new Object[] {row[i]}, new Object[] {match[i]})) {
        return false;
      }
    }
    return true;
  }

  /** Sets the named columns of {@code row}, coerced to their types; computed columns stay NULL. */
  private static void assign(TableState t, Object[] row, Map<String, Object> values) {
    for (Map.Entry<String, Object> e : values.entrySet()) {
      int i = t.columnIndex(e.getKey());
      if (i < 0) {
        throw FakeErrors.unknownColumn(t.qualified(), e.getKey(), t.liveColumnNames());
      }
      ColumnState c = t.columns.get(i);
      Object v = ValueCoercion.coerce(t.qualified(), c.name, c.type, e.getValue());
      row[i] = c.computed ? null : v;
    }
  }

  private static List<Object> keyFromRow(TableState t, Map<String, Object> row) {
    List<Object> key = new ArrayList<>();
    for (String k : t.key) {
      Object v = null;
      boolean found = false;
      for (Map.Entry<String, Object> e : row.entrySet()) {
        if (e.getKey().equalsIgnoreCase(k)) {
          v = e.getValue();
          found = true;
        }
      }
      if (!found) {
        throw FakeErrors.badKey(t.qualified(), row, t.key.size());
      }
      ColumnState c = t.column(k).orElseThrow();
      key.add(ValueCoercion.coerce(t.qualified(), c.name, c.type, v));
    }
    return key;
  }

  static List<Object> coerceKey(TableState t, List<Object> key) {
    if (key.size() != t.key.size()) {
      throw FakeErrors.badKey(t.qualified(), key, t.key.size());
    }
    List<Object> out = new ArrayList<>();
    for (int i = 0; i < key.size(); i++) {
      ColumnState c = t.column(t.key.get(i)).orElseThrow();
      out.add(ValueCoercion.coerce(t.qualified(), c.name, c.type, key.get(i)));
    }
    return out;
  }
}
