package io.mssqlcdc.sink.tables;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.mssqlcdc.sink.SharedDeltaSpark;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KeyedRewrite} ends where Delta's own MERGE with the same clauses ends: the same rows (updates only
 * when newer, deletes, inserts of unmatched keys, a NULL key matched null-safe, every row of a duplicated
 * key updated), the same counts, a MERGE in the table's history; with the source in the driver's memory
 * and read by Spark alike. It declines, writing nothing, where its path does not apply, and commits
 * nothing when a concurrent commit conflicts.
 */
@Tag("spark")
class KeyedRewriteTest {
  private static final KeyedRewrite.Clauses CLAUSES = new KeyedRewrite.Clauses(
      "s.op IN (1, 3) AND s.lsn > t.lsn", "NOT (s.op IN (1, 3)) AND s.lsn > t.lsn", "NOT (s.op IN (1, 3))");
  private static final KeyedRewrite.Limits WIDE = new KeyedRewrite.Limits(10, 1L << 30, 1_000_000);
  private static final String SOURCE = "SELECT * FROM VALUES (1, 'A', '07', 2), (2, CAST(NULL AS STRING), '07', 1),"
      + " (4, 'D', '07', 2), (5, 'E', '07', 2), (7, 'G', '07', 1), (CAST(NULL AS INT), 'N', '07', 4),"
      + " (6, 'F', '07', 4), (8, 'H', '07', 3) AS s(id, v, lsn, op)";

  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();

  @Test
  void endsAsDeltasMergeWithTheSourceInMemory() throws Exception {
    Dataset<Row> source = spark.createDataFrame(spark.sql(SOURCE).collectAsList(), spark.sql(SOURCE).schema());
    sameAsMerge(source, null);
  }

  @Test
  void endsAsDeltasMergeWithTheSourceReadBySpark() throws Exception {
    String p = tmp.resolve("source").toString();
    spark.sql(SOURCE).write().parquet(p);
    sameAsMerge(spark.read().parquet(p), "id >= 1 AND id <= 8 OR id IS NULL");
  }

  private void sameAsMerge(Dataset<Row> source, String predicate) throws Exception {
    String ours = target("ours");
    String theirs = target("theirs");
    KeyedRewrite.Outcome out = KeyedRewrite.run(spark, TableRef.of(ours), source, List.of("id"),
        predicate == null ? null : org.apache.spark.sql.functions.expr(predicate), CLAUSES, 8, WIDE, () -> { });
    assertThat(out.declined()).isNull();

    Row merged = DeltaTable.forPath(spark, theirs).as("t").merge(source.as("s"), "t.id <=> s.id")
        .whenMatched(CLAUSES.delete()).delete()
        .whenMatched(CLAUSES.update()).updateExpr(Map.of("v", "s.v", "lsn", "s.lsn"))
        .whenNotMatched(CLAUSES.insert()).insertExpr(Map.of("id", "s.id", "v", "s.v", "lsn", "s.lsn"))
        .execute().first();
    assertThat(rows(ours)).containsExactlyElementsOf(rows(theirs))
        .contains("1|A|07", "4|d|09", "5|E|07", "6|F|07", "null|N|07").doesNotContain("2|b|05", "8|H|07");
    assertThat(out.metrics().toSeq()).isEqualTo(merged.toSeq());
    Row h = DeltaTable.forPath(spark, ours).history(1).first();
    assertThat(h.<String>getAs("operation")).isEqualTo("MERGE");
    // The key match as its predicate (Delta's own MERGE writes it with attribute ids: "(id#990 <=> id#4)").
    assertThat(h.<scala.collection.Map<String, String>>getAs("operationParameters").apply("predicate"))
        .contains("'t.id <=> 's.id");
    scala.collection.Map<String, String> m = h.getMap(h.fieldIndex("operationMetrics"));
    assertThat(m.apply("numTargetRowsInserted")).isEqualTo("1");
    assertThat(m.apply("numTargetRowsUpdated")).isEqualTo("4");
    assertThat(m.apply("numTargetRowsDeleted")).isEqualTo("1");
    assertThat(m.apply("numSourceRows")).isEqualTo("8");
  }

  @Test
  void declinesWithoutWritingWhereItsPathDoesNotApply() throws Exception {
    String many = target("many");
    long before = DeltaTables.version(spark, TableRef.of(many));
    Dataset<Row> source = spark.sql(SOURCE);
    KeyedRewrite.Outcome tooMany = KeyedRewrite.run(spark, TableRef.of(many), source, List.of("id"), null, CLAUSES,
        8, new KeyedRewrite.Limits(1, 1L << 30, 1_000_000), () -> { });
    assertThat(tooMany.declined()).contains("2 file(s)").contains("at most 1");

    String cdf = target("cdf");
    spark.sql("ALTER TABLE delta.`" + cdf + "` SET TBLPROPERTIES (delta.enableChangeDataFeed = true)");
    KeyedRewrite.Outcome feed = KeyedRewrite.run(spark, TableRef.of(cdf), source, List.of("id"), null, CLAUSES, 8,
        WIDE, () -> { });
    assertThat(feed.declined()).isEqualTo("change data feed");
    assertThat(DeltaTables.version(spark, TableRef.of(many))).isEqualTo(before);
    assertThat(rows(many)).hasSize(7);
  }

  @Test
  void commitsNothingWhenAConcurrentCommitConflicts() throws Exception {
    String t = target("raced");
    Dataset<Row> source = spark.createDataFrame(spark.sql(SOURCE).collectAsList(), spark.sql(SOURCE).schema());
    KeyedRewrite.Outcome out = KeyedRewrite.run(spark, TableRef.of(t), source, List.of("id"), null, CLAUSES, 8,
        WIDE, () -> spark.sql("DELETE FROM delta.`" + t + "` WHERE id = 3"));
    assertThat(out.done()).isFalse();
    assertThat(out.declined()).contains("concurrent commit");
    assertThat(rows(t)).containsExactly("1|a|05", "2|b|05", "4|d|09", "6|f2|05", "6|f|05", "null|n|05");
  }

  @Test
  void aSourceThatChangesNothingCommitsNothing() throws Exception {
    String t = target("idle");
    long before = DeltaTables.version(spark, TableRef.of(t));
    // Key 5 is inside the second file's range but absent; key 4's image is older than the table's.
    String idle = "SELECT * FROM VALUES (5, CAST(NULL AS STRING), '07', 1), (4, 'D', '07', 2) AS s(id, v, lsn, op)";
    Dataset<Row> source = spark.createDataFrame(spark.sql(idle).collectAsList(), spark.sql(idle).schema());
    KeyedRewrite.Outcome out = KeyedRewrite.run(spark, TableRef.of(t), source, List.of("id"),
        org.apache.spark.sql.functions.expr("id IN (4, 5)"), CLAUSES, 2, WIDE, () -> { });
    assertThat(out.done()).isTrue();
    assertThat(out.metrics().<Long>getAs("num_affected_rows")).isZero();
    assertThat(DeltaTables.version(spark, TableRef.of(t))).as("no commit, as Delta's MERGE makes none")
        .isEqualTo(before);
    assertThat(rows(t)).hasSize(7);
  }

  @Test
  void declinesASourceWhoseTypesDifferOrASessionWithIdempotentDml() throws Exception {
    String t = target("typed");
    Dataset<Row> wide = spark.sql(SOURCE).selectExpr("CAST(id AS BIGINT) AS id", "v", "lsn", "op");
    KeyedRewrite.Outcome out = KeyedRewrite.run(spark, TableRef.of(t), wide, List.of("id"), null, CLAUSES, 8, WIDE,
        () -> { });
    assertThat(out.declined()).isEqualTo("column id is int in the table and bigint in the source");
    spark.conf().set("spark.databricks.delta.write.txnAppId", "app");
    spark.conf().set("spark.databricks.delta.write.txnVersion", "1");
    try {
      KeyedRewrite.Outcome dml = KeyedRewrite.run(spark, TableRef.of(t), spark.sql(SOURCE), List.of("id"), null,
          CLAUSES, 8, WIDE, () -> { });
      assertThat(dml.declined()).contains("txnAppId");
    } finally {
      spark.conf().unset("spark.databricks.delta.write.txnAppId");
      spark.conf().unset("spark.databricks.delta.write.txnVersion");
    }
    assertThat(rows(t)).hasSize(7);
  }

  /** Seven rows in two files: a NULL key, a newer row (4), a key held twice (6). */
  private String target(String name) {
    String p = tmp.resolve(name).toString();
    spark.sql("SELECT * FROM VALUES (1, 'a', '05'), (2, 'b', '05'), (3, 'c', '05'), (CAST(NULL AS INT), 'n', '05')"
        + " AS t(id, v, lsn)").coalesce(1).write().format("delta").save(p);
    spark.sql("SELECT * FROM VALUES (4, 'd', '09'), (6, 'f', '05'), (6, 'f2', '05') AS t(id, v, lsn)").coalesce(1)
        .write().format("delta").mode("append").save(p);
    return p;
  }

  private List<String> rows(String p) {
    return spark.read().format("delta").load(p).collectAsList().stream()
        .map(r -> r.get(0) + "|" + r.get(1) + "|" + r.get(2)).sorted().toList();
  }
}
