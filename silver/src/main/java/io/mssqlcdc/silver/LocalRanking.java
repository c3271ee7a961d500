package io.mssqlcdc.silver;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.GenericRow;

/**
 * The statistics of a ranking collected to the driver (a call whose bronze rows are few,
 * {@link RankedChanges}): the values {@link RankedChanges}' Spark aggregation computes over the per-key
 * rows, in its layout, computed here from the same rows without another Spark job. Plain logic over
 * {@link Row}s: the per-key rows have the key columns, then the ranking's columns by name.
 */
final class LocalRanking {
  private LocalRanking() {}

  /**
   * The statistics row of {@code perKey} (in the order of {@code RankedChanges}' Spark statistics).
   *
   * @param keys the key columns, in order
   * @param keyStats with each key column's smallest and largest applied value and whether one is NULL
   *     ({@code rangeable}: whether that column's type has an order; others get NULLs)
   */
  static Row statistics(List<Row> perKey, List<String> keys, List<Boolean> rangeable, boolean keyStats) {
    String other = null;
    String top = null;
    String whole = null;
    long applied = 0;
    Long chunks = null;
    int n = keys.size();
    Object[] min = new Object[n];
    Object[] max = new Object[n];
    Boolean[] nulls = new Boolean[n];
    for (Row r : perKey) {
      other = greater(other, r.getAs(RankedChanges.OTHER));
      top = greater(top, r.getAs(RankedChanges.TOP));
      whole = greater(whole, r.getAs(RankedChanges.WHOLE));
      Long c = r.getAs(RankedChanges.CHUNKS);
      if (c != null) {
        chunks = chunks == null ? c : chunks + c;
      }
      Row latest = r.getAs(RankedChanges.LATEST);
      if (latest == null) {
        continue;
      }
      applied++;
      if (!keyStats) {
        continue;
      }
      for (int i = 0; i < n; i++) {
        Object v = r.get(i);
        if (v == null) {
          nulls[i] = Boolean.TRUE;
        } else if (rangeable.get(i)) {
          min[i] = min[i] == null || SparkOrder.compare(v, min[i]) < 0 ? v : min[i];
          max[i] = max[i] == null || SparkOrder.compare(v, max[i]) > 0 ? v : max[i];
        }
      }
    }
    List<Object> values = new ArrayList<>(java.util.Arrays.asList(other, top, applied, whole, chunks));
    if (keyStats) {
      for (int i = 0; i < n; i++) {
        values.add(min[i]);
        values.add(max[i]);
        values.add(nulls[i]);
      }
    }
    return new GenericRow(values.toArray());
  }

  /** The keys applied, one tuple each (values in key order), from the per-key rows. */
  static List<List<Object>> keys(List<Row> perKey, int keyCount) {
    List<List<Object>> out = new ArrayList<>();
    for (Row r : perKey) {
      if (r.getAs(RankedChanges.LATEST) == null) {
        continue;
      }
      List<Object> tuple = new ArrayList<>();
      for (int i = 0; i < keyCount; i++) {
        tuple.add(r.get(i));
      }
      out.add(tuple);
    }
    return out;
  }

  private static String greater(String a, String b) {
    if (a == null) {
      return b;
    }
    return b == null || SparkOrder.compare(a, b) >= 0 ? a : b;
  }
}
