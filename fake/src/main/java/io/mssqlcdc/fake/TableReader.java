package io.mssqlcdc.fake;

import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.fake.Catalog.TableState;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a table's current rows from its rows file: key ranges {@code [lo, hi)} with NULL first
 * and composite keys compared lexicographically ({@link KeyOrder}), key MIN/MAX and NTILE key
 * tiles. Rows stream from the file; only {@link #keyTiles} holds the keys in memory.
 */
final class TableReader {
  private final FakeStore store;
  private final Catalog catalog;

  TableReader(FakeStore store, Catalog catalog) {
    this.store = store;
    this.catalog = catalog;
  }

  TableState table(TableRef ref) {
    return catalog.table(ref.schema() + "." + ref.table())
        .orElseThrow(() -> FakeErrors.unknownTable(ref.toString(), catalog.tableNames()));
  }

  private int[] indexes(TableState t, List<String> columns) {
    int[] idx = new int[columns.size()];
    for (int i = 0; i < idx.length; i++) {
      idx[i] = t.columnIndex(columns.get(i));
      if (idx[i] < 0) {
        throw FakeErrors.columnNotInTable(t.qualified(), columns.get(i), t.liveColumnNames());
      }
    }
    return idx;
  }

  RowCursor read(TableQuery query) {
    TableState t = table(query.table());
    int[] columns = indexes(t, query.columns());
    int[] keys = indexes(t, query.keys());
    if (keys.length == 0 && !query.range().isAll()) {
      throw FakeErrors.invalidArgument("A key range on " + t.qualified(), query.range(), "KeyRange.ALL when no keys are given");
    }
    TableRowsFile.Reader rows = open(t);
    return new RowCursor() {
      private Object[] current;

      @Override
      public boolean next() {
        if (rows == null) {
          return false;
        }
        for (Object[] row = rows.next(); row != null; row = rows.next()) {
          if (inRange(key(row, keys), query.range())) {
            Object[] out = new Object[columns.length];
            for (int i = 0; i < columns.length; i++) {
              out[i] = row[columns[i]];
            }
            current = out;
            return true;
          }
        }
        current = null;
        return false;
      }

      @Override
      public Object value(int i) {
        return current[i];
      }

      @Override
      public void close() {
        if (rows != null) {
          rows.close();
        }
      }
    };
  }

  java.util.Optional<List<Object>> keyMinMax(TableRef ref, String key, KeyRange range) {
    TableState t = table(ref);
    int[] keys = indexes(t, List.of(key));
    Object min = null;
    Object max = null;
    try (TableRowsFile.Reader rows = open(t)) {
      if (rows != null) {
        for (Object[] row = rows.next(); row != null; row = rows.next()) {
          Object v = row[keys[0]];
          if (v == null || !inRange(key(row, keys), range)) {
            continue;
          }
          if (min == null || KeyOrder.compare(v, min) < 0) {
            min = v;
          }
          if (max == null || KeyOrder.compare(v, max) > 0) {
            max = v;
          }
        }
      }
    }
    if (min == null) {
      return java.util.Optional.empty();
    }
    List<Object> out = new ArrayList<>(2);
    out.add(min);
    out.add(max);
    return java.util.Optional.of(out);
  }

  List<List<Object>> keyTiles(TableRef ref, List<String> keyColumns, int n) {
    if (n < 1) {
      throw FakeErrors.invalidArgument("The number of key tiles n", n, "at least 1");
    }
    TableState t = table(ref);
    int[] keys = indexes(t, keyColumns);
    List<List<Object>> all = new ArrayList<>();
    try (TableRowsFile.Reader rows = open(t)) {
      if (rows != null) {
        for (Object[] row = rows.next(); row != null; row = rows.next()) {
          all.add(key(row, keys));
        }
      }
    }
    all.sort(KeyOrder.KEYS);
    List<List<Object>> bounds = new ArrayList<>();
    long total = all.size();
    long tiles = Math.min(n, total);
    long start = 0;
    for (long g = 0; g < tiles; g++) {
      if (g > 0) {
        List<Object> first = all.get((int) start);
        if (bounds.isEmpty() || KeyOrder.compareKeys(bounds.get(bounds.size() - 1), first) != 0) {
          bounds.add(first);
        }
      }
      start += total / tiles + (g < total % tiles ? 1 : 0);
    }
    return bounds;
  }

  private TableRowsFile.Reader open(TableState t) {
    return t.rowsFile == null ? null : new TableRowsFile.Reader(store.file(t.rowsFile), t.columns.size());
  }

  private static List<Object> key(Object[] row, int[] keys) {
    List<Object> key = new ArrayList<>(keys.length);
    for (int k : keys) {
      key.add(row[k]);
    }
    return key;
  }

  static boolean inRange(List<Object> key, KeyRange range) {
    if (range.lo() != null && KeyOrder.compareKeys(key, range.lo()) < 0) {
      return false;
    }
    return range.hi() == null || KeyOrder.compareKeys(key, range.hi()) < 0;
  }
}
