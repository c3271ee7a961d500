package io.mssqlcdc.examples;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;

import io.mssqlcdc.fake.FakeCdcDatabase;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;

/**
 * The demo pipeline on the embedded default: a simulated SQL Server CDC database on local files
 * (the fake), read with {@code spark.readStream.format("mssql_cdc")} on a local Spark.
 *
 * <ol>
 *   <li>scripts a history on {@code dbo.orders}: inserts, updates, deletes, idle entries;
 *   <li>reads the table's current rows with {@code format("mssql_cdc_snapshot")};
 *   <li>streams the changes with {@code Trigger.AvailableNow} and {@code maxCommitsPerBatch=4},
 *       printing each micro-batch;
 *   <li>commits more changes and restarts on the same checkpoint: only the new commits are read.
 * </ol>
 *
 * It fails (exit code 1) if a change is read twice or missed.
 *
 * <p>Run: {@code mvn -B -ntp -Pdemo -DskipTests verify} (from the repository root).
 */
public final class Demo {
  private Demo() {}

  public static void main(String[] args) throws Exception {
    Path work = Path.of(args.length > 0 ? args[0] : "target/demo").toAbsolutePath();
    deleteRecursively(work);
    Path source = work.resolve("source");
    Path checkpoint = work.resolve("checkpoint");

    FakeCdcDatabase db = FakeCdcDatabase.create(source).serverTimeZone("America/Sao_Paulo");
    db.createTable("dbo", "orders", "order_id int", "customer varchar(40)", "status varchar(20)",
        "amount decimal(18,2)").key("order_id");
    String ci = db.enableCdc("dbo", "orders");
    int commits = script(db, 1, 10);

    SparkSession spark = SparkSession.builder()
        .master("local[2]")
        .appName("mssql-cdc-demo")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate();
    try {
      System.out.println("\n== The table now, from format(\"mssql_cdc_snapshot\") ==");
      spark.read().format("mssql_cdc_snapshot")
          .option("backend", "fake").option("fakePath", source.toString()).option("captureInstance", ci)
          .load().orderBy("order_id").show(false);

      List<String> seen = new ArrayList<>();
      System.out.println("== First run: " + commits + " commits, Trigger.AvailableNow, maxCommitsPerBatch=4 ==");
      run(spark, source, ci, checkpoint, seen);

      int more = script(db, 11, 5);
      System.out.println("== " + more + " more commits; restart on the same checkpoint ==");
      run(spark, source, ci, checkpoint, seen);

      Set<String> distinct = new HashSet<>(seen);
      long expected = countAll(db, ci);
      if (distinct.size() != seen.size() || seen.size() != expected) {
        System.out.println("DEMO FAILED: read " + seen.size() + " change rows (" + distinct.size()
            + " distinct), the source holds " + expected);
        System.exit(1);
      }
      System.out.println("DEMO OK: " + seen.size() + " change rows read exactly once over two runs");
    } finally {
      spark.stop();
      db.close();
    }
  }

  private static long countAll(FakeCdcDatabase db, String ci) {
    long n = 0;
    try (var cursor = db.client().changes(new io.mssqlcdc.client.ChangeQuery(ci, io.mssqlcdc.lsn.Lsn.ZERO,
        io.mssqlcdc.lsn.Lsn.MAX, List.of(), true, 1000))) {
      while (cursor.next()) {
        n++;
      }
    }
    return n;
  }

  /** Commits {@code n} transactions starting at order {@code first}; returns how many commits. */
  private static int script(FakeCdcDatabase db, int first, int n) {
    int commits = 0;
    for (int i = first; i < first + n; i++) {
      int id = i;
      db.commit(tx -> tx.insert("dbo.orders", row("order_id", id, "customer", "customer-" + (id % 4),
          "status", "new", "amount", new BigDecimal(id * 10 + ".50"))));
      commits++;
      if (id % 3 == 0) {
        db.commit(tx -> tx.update("dbo.orders", row("order_id", id, "customer", "customer-" + (id % 4),
            "status", "paid", "amount", new BigDecimal(id * 10 + ".50"))));
        commits++;
      }
      if (id % 5 == 0) {
        db.commit(tx -> tx.delete("dbo.orders", key(id)));
        commits++;
      }
    }
    db.idle();
    return commits;
  }

  private static void run(SparkSession spark, Path source, String ci, Path checkpoint, List<String> seen)
      throws TimeoutException, StreamingQueryException {
    VoidFunction2<Dataset<Row>, Long> print = (batch, batchId) -> {
      List<Row> rows = batch.orderBy("_start_lsn", "_command_id", "_seqval", "_operation").collectAsList();
      System.out.println("-- micro-batch " + batchId + ": " + rows.size() + " change rows");
      batch.orderBy("_start_lsn", "_command_id", "_seqval", "_operation")
          .select("_start_lsn", "_operation", "_commit_ts", "order_id", "status", "amount").show(50, false);
      for (Row r : rows) {
        seen.add(r.getAs("_start_lsn") + "/" + r.getAs("_seqval") + "/" + r.getAs("_operation"));
      }
    };
    StreamingQuery q = spark.readStream().format("mssql_cdc")
        .option("backend", "fake")
        .option("fakePath", source.toString())
        .option("captureInstance", ci)
        .option("maxCommitsPerBatch", "4")
        .load()
        .writeStream()
        .foreachBatch(print)
        .option("checkpointLocation", checkpoint.toString())
        .trigger(Trigger.AvailableNow())
        .start();
    q.awaitTermination();
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
