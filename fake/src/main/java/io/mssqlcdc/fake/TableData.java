package io.mssqlcdc.fake;

import io.mssqlcdc.fake.Catalog.TableState;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;

/** The writer's in-memory copy of a table's current rows: by key when it has one, else a heap. */
final class TableData {
  final TreeMap<List<Object>, Object[]> keyed = new TreeMap<>(KeyOrder.KEYS);
  final List<Object[]> heap = new ArrayList<>();
  private final int[] keyIndex;

  private TableData(TableState table) {
    keyIndex = new int[table.key.size()];
    for (int i = 0; i < keyIndex.length; i++) {
      keyIndex[i] = table.columnIndex(table.key.get(i));
    }
  }

  static TableData load(FakeStore store, TableState table) {
    TableData data = new TableData(table);
    if (table.rowsFile != null) {
      try (TableRowsFile.Reader r = new TableRowsFile.Reader(store.file(table.rowsFile), table.columns.size())) {
        for (Object[] row = r.next(); row != null; row = r.next()) {
          data.add(row);
        }
      }
    }
    return data;
  }

  boolean hasKey() {
    return keyIndex.length > 0;
  }

  List<Object> keyOf(Object[] row) {
    List<Object> key = new ArrayList<>(keyIndex.length);
    for (int i : keyIndex) {
      key.add(i < row.length ? row[i] : null);
    }
    return key;
  }

  void add(Object[] row) {
    if (hasKey()) {
      keyed.put(keyOf(row), row);
    } else {
      heap.add(row);
    }
  }

  Collection<Object[]> rows() {
    return hasKey() ? keyed.values() : heap;
  }

  int size() {
    return hasKey() ? keyed.size() : heap.size();
  }
}
