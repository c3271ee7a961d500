package io.mssqlcdc.sink.tables;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.sink.SharedDeltaSpark;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.delta.OptimisticTransaction;
import org.apache.spark.sql.delta.actions.AddFile;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The one pass's candidates read from the checksum's files on the driver ({@link StatsSkipping}) are never
 * fewer than Delta's data skipping leaves ({@code filterFiles}), and the same for the comparisons a keyed
 * MERGE prunes by, over columns of every type it compares (strings past Delta's 32-character prefix, outside
 * the BMP, with a non-ASCII character where Delta truncates; timestamps with microseconds, before the epoch;
 * negative numbers, small integer types), NULLs, a column NULL in a whole file, a file without statistics,
 * and types it leaves alone.
 */
@Tag("spark")
class StatsSkippingTest {
  /** Per file: the rows of one range (file {@code f} holds {@code i} from {@code 100 f} to {@code 100 f + 49}). */
  private static final String ROWS = "SELECT CAST(i AS INT) AS i, CAST(i AS BIGINT) * 10000000000 AS l,"
      + " CAST(i / 7 AS DECIMAL(18,2)) AS d,"
      + " concat('a-very-long-common-prefix-of-forty-characters-', format_string('%%05d', i), '\u00e9\ud83d\ude00') AS s,"
      + " date_add(DATE '2026-01-01', i) AS dt,"
      + " TIMESTAMP '2026-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, i + 0.000123) AS ts,"
      + " CAST(TIMESTAMP '2026-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, i + 0.000456) AS TIMESTAMP_NTZ) AS ntz,"
      + " TIMESTAMP '1969-12-31 23:55:00' + make_interval(0, 0, 0, 0, 0, 0, i + 0.000789) AS ts0,"
      + " CAST(i - 250 AS SMALLINT) AS sh, CAST(i %% 100 - 50 AS TINYINT) AS by,"
      + " concat(repeat('p', 32), '\u00e9', format_string('%%05d', i)) AS s2,"
      + " CAST(i AS DOUBLE) / 3 AS f, i %% 2 = 0 AS b, CASE WHEN %s THEN NULL ELSE i END AS n"
      + " FROM (SELECT explode(sequence(%d, %d)) AS i)";
  private static final List<String> COLUMNS = List.of("i", "l", "d", "s", "dt", "ts", "ntz", "ts0", "sh", "by", "s2",
      "f", "b", "n");
  /**
   * The columns whose comparisons are read as Delta reads them (the others: every file may match; a timestamp's
   * bounds are widened by a minute more than Delta's).
   */
  private static final Set<String> COMPARED = Set.of("i", "l", "d", "s", "dt", "ntz", "sh", "by", "s2", "n");

  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();

  @Test
  void neverFewerThanDeltasSkippingAndTheSameForItsComparisons() throws Exception {
    String p = tmp.resolve("t").toString();
    String[] nulls = {"false", "i % 10 = 3", "true", "false", "i % 25 = 0"};
    for (int f = 0; f < nulls.length; f++) {
      spark.sql(String.format(ROWS, nulls[f], f * 100, f * 100 + 49)).coalesce(1).write().format("delta")
          .mode("append").save(p);
    }
    // A file without statistics: every predicate may match it.
    spark.conf().set("spark.databricks.delta.stats.collect", "false");
    try {
      spark.sql(String.format(ROWS, "false", 500, 549)).coalesce(1).write().format("delta").mode("append").save(p);
    } finally {
      spark.conf().unset("spark.databricks.delta.stats.collect");
    }
    TableRef ref = TableRef.of(p);
    OptimisticTransaction probe = LogVersion.log(spark, ref).orElseThrow().startTransaction();
    assertThat(ChecksumFiles.of(probe.snapshot())).as("the checksum lists the files").isPresent();
    StructType schema = probe.metadata().schema();
    List<Row> values = spark.sql(String.format(ROWS, "false", 0, 560)).where("i % 5 = 0 OR i % 100 IN (49, 50, 99)")
        .collectAsList();

    Random random = new Random(4242);
    String[] ops = {"=", ">=", "<=", ">", "<"};
    int compared = 0;
    OptimisticTransaction ours = LogVersion.log(spark, ref).orElseThrow().startTransaction();
    OptimisticTransaction theirs = LogVersion.log(spark, ref).orElseThrow().startTransaction();
    for (int n = 0; n < 100; n++) {
      String c = COLUMNS.get(random.nextInt(COLUMNS.size()));
      String op = ops[random.nextInt(ops.length)];
      String text = comparison(c, op, values.get(random.nextInt(values.size())), random.nextBoolean(),
          random.nextBoolean());
      if (random.nextInt(4) == 0) {
        String c2 = COLUMNS.get(random.nextInt(COLUMNS.size()));
        String other = random.nextInt(3) == 0 ? c2 + " IS NULL"
            : comparison(c2, ops[random.nextInt(3)], values.get(random.nextInt(values.size())), false, false);
        text = "(" + text + (random.nextBoolean() ? ") OR (" : ") AND (") + other + ")";
      }
      Expression e = KeyedRewrite.resolved(spark, schema, org.apache.spark.sql.functions.expr(text));
      Set<String> mine = paths(ChecksumFiles.candidates(ours, e));
      Set<String> delta = paths(CollectionConverters.asJava(
          theirs.filterFiles(CollectionConverters.asScala(List.of(e)).toSeq(), true)));
      assertThat(mine).as(text).containsAll(delta);
      if (text.indexOf('(') < 0 && COMPARED.contains(c) && !op.equals(">") && !op.equals("<")) {
        assertThat(mine).as(text).isEqualTo(delta);
        compared++;
      }
    }
    assertThat(compared).as("comparisons checked for equality").isGreaterThan(15);
    assertThat(ChecksumFiles.candidates(ours, KeyedRewrite.resolved(spark, schema,
        org.apache.spark.sql.functions.expr("n IS NULL")))).as("files with a NULL n, and the one without statistics").hasSize(4);
  }

  /**
   * {@code c op v} (or {@code v op' c}) with {@code v} taken from a row (or moved just past it), the literal of the
   * column's type.
   */
  private static String comparison(String c, String op, Row r, boolean nudge, boolean literalFirst) {
    Object v = r.getAs(c.equals("n") ? "i" : c);
    String lit = switch (c) {
      case "i", "n" -> String.valueOf((Integer) v + (nudge ? 1 : 0));
      case "l" -> v + "L";
      case "d" -> "CAST(" + v + " AS DECIMAL(18,2))";
      case "s" -> "'" + (nudge ? ((String) v).substring(0, 44) : v) + "'";
      case "dt" -> "DATE '" + v + "'";
      case "ts", "ts0" -> "TIMESTAMP '" + v + "'" + (nudge ? " + INTERVAL 1 MICROSECOND" : "");
      case "sh" -> "CAST(" + v + " AS SMALLINT)";
      case "by" -> "CAST(" + v + " AS TINYINT)";
      case "s2" -> "'" + (nudge ? ((String) v).substring(0, 33) : v) + "'";
      case "ntz" -> "TIMESTAMP_NTZ '" + v + "'" + (nudge ? " + INTERVAL 600 MICROSECOND" : "");
      case "f" -> "CAST(" + v + " AS DOUBLE)";
      default -> String.valueOf(v);
    };
    return literalFirst ? lit + " " + flip(op) + " " + c : c + " " + op + " " + lit;
  }

  private static String flip(String op) {
    return switch (op) {
      case ">=" -> "<=";
      case "<=" -> ">=";
      case ">" -> "<";
      case "<" -> ">";
      default -> op;
    };
  }

  private static Set<String> paths(List<AddFile> files) {
    Set<String> out = new TreeSet<>();
    for (AddFile f : files) {
      out.add(f.path());
    }
    return out;
  }
}
