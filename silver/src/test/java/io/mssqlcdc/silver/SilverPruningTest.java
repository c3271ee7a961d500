package io.mssqlcdc.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.sink.tables.KeyedRewrite;
import io.mssqlcdc.sink.tables.TableRef;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Silver's pruning predicates compare key columns with literals of the column's type, which Delta's data
 * skipping takes in a predicate that is analyzed but not optimized (a MERGE's condition, the one pass's read
 * predicate): with a cast of a literal every file was a candidate. For each key type with an order, by range
 * and by point: the predicate holds no cast, and only the file that holds the key is left, so the one pass
 * limited to one file commits.
 */
@Tag("spark")
class SilverPruningTest {
  private static final String ROWS = "SELECT CAST(i AS INT) AS id, CAST(i / 100 AS DECIMAL(18,2)) AS amount,"
      + " format_string('n%%05d', i) AS name, TIMESTAMP '2026-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, i) AS ts,"
      + " CAST(i AS BIGINT) AS qty, '0x01' AS _start_lsn, TIMESTAMP '2026-01-01 00:00:00' AS _commit_ts"
      + " FROM (SELECT explode(sequence(%d, %d)) AS i)";

  @TempDir Path tmp;
  SparkSession spark = SilverFixture.SPARK;

  @Test
  void everyKeyTypeWithAnOrderLeavesOnlyItsFile() throws Exception {
    // One table for every run: each run rewrites the one file holding row 3500, which keeps its range.
    String p = tmp.resolve("t").toString();
    for (int f = 0; f < 4; f++) {
      spark.sql(String.format(ROWS, f * 1000, f * 1000 + 999)).coalesce(1).write().format("delta").mode("append")
          .save(p);
    }
    int run = 2;
    for (String key : List.of("id", "amount", "name", "ts")) {
      for (boolean byPoint : List.of(false, true)) {
        // Each run's change newer than the last.
        Dataset<Row> one = spark.sql(String.format(ROWS, 3500, 3500)).drop("_start_lsn")
            .selectExpr("*", String.format("'0x%02d' AS _start_lsn", run++), "2 AS " + CdcColumns.OPERATION);
        Row row = one.first();
        Object v = row.getAs(key);
        KeyPruning.Plan plan = byPoint ? new KeyPruning.Points(List.of(key), List.of(List.of(v)))
            : new KeyPruning.Ranges(List.of(new KeyPruning.Range(key, v, v, false)));
        Column predicate = SilverMerge.pruning(plan, bronze(key), "");
        // Delta's MERGE hands its condition to data skipping unfolded: no cast may stand between key and value.
        assertThat(org.apache.spark.sql.classic.ExpressionUtils.expression(predicate).find(
            e -> e instanceof org.apache.spark.sql.catalyst.expressions.Cast).isDefined()).as("%s: %s", key, predicate)
            .isFalse();
        Dataset<Row> source = spark.createDataFrame(one.collectAsList(), one.schema());
        KeyedRewrite.Outcome out = KeyedRewrite.run(spark, TableRef.of(p), source, List.of(key), predicate,
            SilverMerge.CLAUSES, 1, new KeyedRewrite.Limits(1, 1L << 30, 1_000_000), () -> { });
        assertThat(out.declined()).as("%s by %s", key, byPoint ? "point" : "range").isNull();
        assertThat(out.metrics().<Long>getAs("num_updated_rows")).isEqualTo(1L);
      }
    }
  }

  /** A bronze schema with the table's columns and {@code key} as the key. */
  private BronzeColumns bronze(String key) {
    StructType s = spark.sql(String.format(ROWS, 0, 0)).schema();
    StructType b = new StructType();
    List<String> library = new ArrayList<>(List.of(CdcColumns.START_LSN, CdcColumns.COMMIT_TS));
    for (var f : s.fields()) {
      if (!library.contains(f.name())) {
        b = b.add(f);
      }
    }
    b = b.add(CdcColumns.CAPTURE_INSTANCE, "string").add(CdcColumns.START_LSN, "string")
        .add(CdcColumns.SEQVAL, "string").add(CdcColumns.OPERATION, "int").add(CdcColumns.COMMIT_TS, "timestamp");
    return BronzeColumns.of(b, "bronze", List.of(key));
  }
}
