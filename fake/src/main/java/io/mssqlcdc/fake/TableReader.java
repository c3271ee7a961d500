package io.mssqlcdc.fake;

import io.mssqlcdc.client.ColumnNames;
import io.mssqlcdc.client.KeyBucket;
import io.mssqlcdc.client.KeyColumns;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.fake.Catalog.ColumnState;
import io.mssqlcdc.fake.Catalog.TableState;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Reads a table's current rows from its rows file: key ranges {@code [lo, hi)} with NULL first
 * and composite keys compared lexicographically ({@link KeyOrder}), key MIN/MAX, NTILE key
 * tiles, key buckets, the largest key and keyset bounds. Rows stream from the file; only
 * {@link #keyTiles} and {@link #keyBound} hold keys in memory.
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
    TableRowsFile.Reader rows = open(t, columns, keys);
    // the range is tested once the row's key columns are decoded: rows outside it are skipped, not decoded
    int lastKey = query.range().isAll() ? -1 : Arrays.stream(keys).max().orElse(-1);
    Predicate<Object[]> inRange = row -> inRange(key(row, keys), query.range());
    return new RowCursor() {
      private Object[] current;

      @Override
      public boolean next() {
        if (rows == null) {
          return false;
        }
        Object[] row = rows.next(lastKey, inRange);
        if (row == null) {
          current = null;
          return false;
        }
        Object[] out = new Object[columns.length];
        for (int i = 0; i < columns.length; i++) {
          out[i] = row[columns[i]];
        }
        current = out;
        return true;
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
    try (TableRowsFile.Reader rows = open(t, keys)) {
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
    try (TableRowsFile.Reader rows = open(t, keys)) {
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

  /** Rows of the table, NULL keys included (the rows file's count). */
  long countRows(TableRef ref) {
    return table(ref).rowCount;
  }

  /**
   * Rows and ordinal sums per bucket {@code floor(ordinal / width)} of a single integer or date
   * key, NULL keys left out, restricted to {@code range} on the key: as SQL Server's
   * {@code GROUP BY} of Q23 counts them, ascending by bucket.
   */
  List<KeyBucket> keyBuckets(TableRef ref, String key, long width, KeyRange range) {
    if (width < 1) {
      throw new IllegalArgumentException("keyBuckets needs width >= 1, not " + width);
    }
    TableState t = table(ref);
    ColumnState c = keyColumn(t, "Key buckets", List.of(key), key);
    KeyColumns.Ordinal kind = KeyColumns.ordinal(c.type).orElseThrow(() ->
        CdcErrors.keyColumnUnusable("Key buckets", t.qualified(), List.of(key), KeyColumns.notBucketable(c.name, c.type)));
    KeyColumns.checkBucketRange(kind, range);
    int k = t.columns.indexOf(c);
    TreeMap<Long, long[]> rows = new TreeMap<>();
    TreeMap<Long, BigInteger> sums = new TreeMap<>();
    try (TableRowsFile.Reader file = open(t, new int[] {k})) {
      if (file != null) {
        for (Object[] row = file.next(); row != null; row = file.next()) {
          Object v = row[k];
          if (v == null || !inRange(java.util.Collections.singletonList(v), range)) {
            continue;
          }
          long o = KeyColumns.ordinalOf(v);
          long b = Math.floorDiv(o, width);
          rows.computeIfAbsent(b, x -> new long[1])[0]++;
          sums.merge(b, BigInteger.valueOf(o), BigInteger::add);
        }
      }
    }
    List<KeyBucket> out = new ArrayList<>();
    rows.forEach((b, n) -> out.add(new KeyBucket(b, n[0], sums.get(b))));
    return out;
  }

  /** The largest key in SQL Server's order (NULL lowest); empty for an empty table. */
  java.util.Optional<List<Object>> keyMax(TableRef ref, List<String> keyColumns) {
    TableState t = table(ref);
    int[] keys = keyIndexes(t, "The key maximum", keyColumns, false);
    List<Object> max = null;
    try (TableRowsFile.Reader rows = open(t, keys)) {
      if (rows != null) {
        for (Object[] row = rows.next(); row != null; row = rows.next()) {
          List<Object> key = key(row, keys);
          if (max == null || KeyOrder.compareKeys(key, max) > 0) {
            max = key;
          }
        }
      }
    }
    return java.util.Optional.ofNullable(max).map(java.util.Collections::unmodifiableList);
  }

  /** The {@code (n+1)}-th smallest key in {@code range} (NULL first), or empty when it holds at most n rows. */
  java.util.Optional<List<Object>> keyBound(TableRef ref, List<String> keyColumns, KeyRange range, long n) {
    if (n < 0 || n == Long.MAX_VALUE) {
      throw new IllegalArgumentException("keyBound needs 0 <= n < " + Long.MAX_VALUE + ", not " + n);
    }
    TableState t = table(ref);
    int[] keys = keyIndexes(t, "A keyset bound", keyColumns, !range.isAll());
    checkArity(keyColumns.size(), range);
    List<List<Object>> in = new ArrayList<>();
    try (TableRowsFile.Reader rows = open(t, keys)) {
      if (rows != null) {
        for (Object[] row = rows.next(); row != null; row = rows.next()) {
          List<Object> key = key(row, keys);
          if (inRange(key, range)) {
            in.add(key);
          }
        }
      }
    }
    if (in.size() <= n) {
      return java.util.Optional.empty();
    }
    in.sort(KeyOrder.KEYS);
    return java.util.Optional.of(java.util.Collections.unmodifiableList(in.get((int) n)));
  }

  /** The column {@code name} of {@code t} (exactly, else ignoring case), or the statement's error naming it. */
  private static ColumnState keyColumn(TableState t, String what, List<String> keys, String name) {
    List<String> live = t.liveColumnNames();
    int i = ColumnNames.indexOf(name, live);
    if (i < 0) {
      throw CdcErrors.keyColumnUnusable(what, t.qualified(), keys, CdcErrors.noSuchColumn(name, live));
    }
    return t.column(live.get(i)).orElseThrow();
  }

  /** Row indexes of key columns; with {@code bounds}, each must be a type a bound can be given for. */
  private static int[] keyIndexes(TableState t, String what, List<String> keys, boolean bounds) {
    int[] idx = new int[keys.size()];
    for (int i = 0; i < idx.length; i++) {
      ColumnState c = keyColumn(t, what, keys, keys.get(i));
      String why = KeyColumns.unbindable(c.name, c.type, i == idx.length - 1);
      if (bounds && why != null) {
        throw CdcErrors.keyColumnUnusable(what, t.qualified(), keys, why);
      }
      idx[i] = t.columns.indexOf(c);
    }
    return idx;
  }

  private static void checkArity(int n, KeyRange range) {
    if ((range.lo() != null && range.lo().size() != n) || (range.hi() != null && range.hi().size() != n)) {
      throw new IllegalArgumentException("A key range needs one bound value per key column (" + n + "), got "
          + (range.lo() == null ? "-" : range.lo().size()) + " and " + (range.hi() == null ? "-" : range.hi().size()));
    }
  }

  /** The table's rows, decoding only the columns {@code needed} (row indexes; the others read as NULL). */
  private TableRowsFile.Reader open(TableState t, int[]... needed) {
    if (t.rowsFile == null) {
      return null;
    }
    boolean[] decode = new boolean[t.columns.size()];
    for (int[] cols : needed) {
      for (int c : cols) {
        decode[c] = true;
      }
    }
    return new TableRowsFile.Reader(store.file(t.rowsFile), t.columns.size(), decode);
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
