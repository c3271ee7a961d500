package io.mssqlcdc.sink;

import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.fake.FakeCdcDatabase;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Test oracle for bronze: the latest image per key over snapshot and change rows, computed in
 * plain Java (not with the code under test), and the fake's current table read with its own client.
 */
public final class BronzeImages {
  private BronzeImages() {}

  /** key → the other columns' values as strings, of the latest image of each key still present. */
  public static Map<String, List<String>> latest(SparkSession spark, String bronze, String key, List<String> columns) {
    return latest(spark.read().format("delta").load(bronze).collectAsList(), key, columns);
  }

  /** The same over some of bronze's rows (for example those from a re-snapshot on). */
  public static Map<String, List<String>> latest(List<Row> bronzeRows, String key, List<String> columns) {
    List<Row> rows = new ArrayList<>(bronzeRows);
    Comparator<Row> order = Comparator.<Row, String>comparing(r -> r.getAs("_start_lsn"))
        .thenComparing(r -> r.getAs("_command_id") == null ? -1 : (Integer) r.getAs("_command_id"))
        .thenComparing(r -> r.getAs("_seqval") == null ? "" : (String) r.getAs("_seqval"))
        .thenComparing(r -> (Integer) r.getAs("_operation"));
    rows.sort(order);
    Map<String, List<String>> out = new TreeMap<>();
    for (Row r : rows) {
      int op = r.getAs("_operation");
      String k = String.valueOf((Object) r.getAs(key));
      if (op == 3) {
        continue;
      }
      if (op == 1) {
        out.remove(k);
      } else {
        List<String> v = new ArrayList<>();
        for (String c : columns) {
          v.add(String.valueOf((Object) r.getAs(c)));
        }
        out.put(k, v);
      }
    }
    return out;
  }

  /** The fake table's current rows, by key. */
  public static Map<String, List<String>> table(FakeCdcDatabase db, String schema, String table, String key,
      List<String> columns) {
    List<String> all = new ArrayList<>();
    all.add(key);
    all.addAll(columns);
    Map<String, List<String>> out = new TreeMap<>();
    try (var c = db.client().readTable(new TableQuery(new TableRef(schema, table), all, List.of(), KeyRange.ALL,
        TableQuery.Isolation.READ_COMMITTED, -1, 1000))) {
      while (c.next()) {
        List<String> v = new ArrayList<>();
        for (int i = 1; i < all.size(); i++) {
          v.add(String.valueOf(c.value(i)));
        }
        out.put(String.valueOf(c.value(0)), v);
      }
    }
    return out;
  }
}
