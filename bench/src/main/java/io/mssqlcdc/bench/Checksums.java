package io.mssqlcdc.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.pmod;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.xxhash64;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * What a path read, in three numbers computed by Spark over its rows (untimed, once per
 * comparison): {@code rows}, {@code idSum} (the fixtures' {@code id} is the row number, so a
 * test knows it: n(n-1)/2), and {@code hash}, the sum of a 31-bit hash of each row's values of
 * {@code columns}: equal when both paths hold the same values in the same rows.
 */
public final class Checksums {
  private Checksums() {}

  public static Map<String, Object> of(Dataset<Row> rows, List<String> columns) {
    Column[] cols = columns.stream().map(c -> col("`" + c + "`")).toArray(Column[]::new);
    Row r = rows.agg(count(lit(1)), sum(col("id").cast("long")), sum(pmod(xxhash64(cols), lit(1L << 31)))).first();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("rows", r.getLong(0));
    m.put("idSum", r.isNullAt(1) ? 0L : r.getLong(1));
    m.put("hash", r.isNullAt(2) ? 0L : r.getLong(2));
    return m;
  }

  /** Adds up the checksums of several batches of the same read. */
  public static Map<String, Object> plus(Map<String, Object> a, Map<String, Object> b) {
    if (a == null) {
      return b;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    for (String k : a.keySet()) {
      m.put(k, (Long) a.get(k) + (Long) b.get(k));
    }
    return m;
  }
}
