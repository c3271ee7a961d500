package io.mssqlcdc.silver;

import static org.apache.spark.sql.functions.col;

import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/** Joins on key columns, null-safe (a unique index admits one NULL key): silver's waves, the history's keys. */
final class KeyJoin {
  private KeyJoin() {}

  /** {@code a}'s rows whose key is ({@code left_semi}) or is not ({@code left_anti}) in {@code b}, null-safe. */
  static Dataset<Row> semi(Dataset<Row> a, Dataset<Row> b, List<String> keys, String how) {
    Dataset<Row> x = a.as("a");
    Dataset<Row> y = b.as("b");
    Column on = null;
    for (String k : keys) {
      Column c = col("a." + MergeRules.quote(k)).eqNullSafe(col("b." + MergeRules.quote(k)));
      on = on == null ? c : on.and(c);
    }
    return x.join(y, on, how);
  }
}
