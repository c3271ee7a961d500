package io.mssqlcdc.examples;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;

import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.finalization.Finalization;
import io.mssqlcdc.finalization.TrackingAttachment;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.pipeline.CdcStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;

/**
 * The demo pipeline on the embedded default: a simulated SQL Server CDC database on local files
 * (the fake) with a live writer, streamed by {@code CdcStream} into local Delta bronze + facts.
 *
 * <ol>
 *   <li>creates {@code dbo.orders} with 200 rows and enables CDC;
 *   <li>starts a writer thread: inserts, updates, deletes, one 2,000-row transaction and a schema
 *       change (a column added mid-way);
 *   <li>starts {@code CdcStream...bootstrap(true).toDelta()} (a 1-second processing-time trigger):
 *       the table is snapshotted into bronze once, then the changes stream in;
 *   <li>stops the query half-way through the writer's script and starts it again on the same
 *       checkpoint;
 *   <li>follows the stream with {@code Finalization.tracking}: {@code finalized_until} (minute
 *       granularity) moves as batches commit, and is printed after each run;
 *   <li>when the writer is done, prints the facts rows and checks bronze against the fake: every
 *       change row after the snapshot exactly once, and the latest image per key equals the table.
 * </ol>
 * It ends with {@code DEMO OK}, or prints what differs and exits with code 1.
 *
 * <p>Run: {@code mvn -B -ntp -Pdemo -DskipTests verify} (from the repository root).
 */
public final class Demo {
  private static final String CI = "dbo_orders";

  private Demo() {}

  public static void main(String[] args) throws Exception {
    Path work = Path.of(args.length > 0 ? args[0] : "target/demo").toAbsolutePath();
    deleteRecursively(work);
    String bronze = work.resolve("lake/bronze_orders").toString();
    String facts = work.resolve("lake/cdc_facts").toString();
    String checkpoint = work.resolve("checkpoints/orders").toString();
    String control = work.resolve("lake/table_finalization").toString();

    FakeCdcDatabase db = FakeCdcDatabase.create(work.resolve("source")).serverTimeZone("America/Sao_Paulo");
    db.createTable("dbo", "orders", "order_id int", "customer varchar(40)", "status varchar(20)",
        "amount decimal(18,2)").key("order_id");
    db.enableCdc("dbo", "orders");
    db.commit(tx -> {
      for (int i = 1; i <= 200; i++) {
        tx.insert("dbo.orders", order(i, "new"));
      }
    });

    SparkSession spark = SparkSession.builder()
        .master("local[2]")
        .appName("mssql-cdc-demo")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .config("spark.databricks.delta.snapshotPartitions", "1")
        .getOrCreate();
    Writer writer = new Writer(db);
    try {
      CdcStream.Builder stream = CdcStream.builder(spark)
          .option("backend", "fake").option("fakePath", db.path().toString()).option("captureInstance", CI)
          .option("maxCommitsPerBatch", "20")
          .target(bronze).appId("demo-orders").checkpoint(checkpoint).factsTable(facts)
          .bootstrap(true).onDataLoss("resnapshot")
          .trigger("processingTime=1 second");
      TrackingAttachment tracking = Finalization.tracking(control, "minute");
      stream.attach(tracking);

      System.out.println("\n== Run 1: bootstrap snapshot, then the live changes ==");
      StreamingQuery q = stream.toDelta();
      writer.start();
      writer.halfway.await();
      q.processAllAvailable();
      q.stop();
      tracking.joinAll(java.time.Duration.ofMinutes(2));
      System.out.println("== finalized_until of " + bronze + ": " + Finalization.finalizedUntil(spark, control, bronze)
          .map(Object::toString).orElse("(none yet)") + " UTC (every minute up to it is complete in bronze)");
      System.out.println("== Stopped half-way through the writer's script; restarting on the same checkpoint ==");
      q = stream.toDelta();
      writer.join();
      if (writer.failure.get() != null) {
        throw new IllegalStateException("the writer failed", writer.failure.get());
      }
      q.processAllAvailable();
      q.stop();
      tracking.joinAll(java.time.Duration.ofMinutes(2));
      System.out.println("== finalized_until of " + bronze + " after the restart: " + Finalization.finalizedUntil(spark,
          control, bronze).map(Object::toString).orElse("(none yet)") + " UTC");

      System.out.println("\n== Facts: one row per micro-batch, plus events ==");
      spark.read().format("delta").load(facts)
          .selectExpr("app_id", "batch_id", "event", "rows", "inserts", "updates", "deletes", "end_lsn",
              "cast(end_commit_ts as string) end_commit_ts", "duration_ms")
          .orderBy("written_at", "batch_id").show(200, false);

      List<String> problems = check(spark, db, bronze);
      if (!problems.isEmpty()) {
        problems.forEach(p -> System.out.println("DEMO FAILED: " + p));
        System.exit(1);
      }
      long changes = spark.read().format("delta").load(bronze).where("_operation <> 0").count();
      long batches = spark.read().format("delta").load(facts).where("event IS NULL").count();
      System.out.println("DEMO OK: snapshot of 200 rows + " + changes + " change rows in bronze exactly once over "
          + batches + " micro-batches and a restart; the latest image per key equals the source table");
    } finally {
      spark.stop();
      db.close();
    }
  }

  private static Map<String, Object> order(int id, String status) {
    return row("order_id", id, "customer", "customer-" + (id % 7), "status", status,
        "amount", new BigDecimal(id * 10 + ".50"));
  }

  /** The live writer: a fixed script with short pauses, so it runs while the stream reads. */
  private static final class Writer extends Thread {
    final FakeCdcDatabase db;
    final CountDownLatch halfway = new CountDownLatch(1);
    final AtomicReference<Throwable> failure = new AtomicReference<>();

    Writer(FakeCdcDatabase db) {
      super("demo-writer");
      this.db = db;
    }

    @Override
    public void run() {
      try {
        Random rnd = new Random(42);
        List<Integer> live = new ArrayList<>();
        for (int i = 1; i <= 200; i++) {
          live.add(i);
        }
        int next = 201;
        for (int step = 0; step < 60; step++) {
          int id = live.get(rnd.nextInt(live.size()));
          switch (step % 4) {
            case 0 -> {
              int newId = next++;
              db.commit(tx -> tx.insert("dbo.orders", order(newId, "new")));
              live.add(newId);
            }
            case 1 -> db.commit(tx -> tx.update("dbo.orders", order(id, "paid")));
            case 2 -> {
              db.commit(tx -> tx.delete("dbo.orders", key(id)));
              live.remove(Integer.valueOf(id));
            }
            default -> {
              int newId = next++;
              db.commit(tx -> tx.update("dbo.orders", order(id, "shipped")).insert("dbo.orders", order(newId, "new")));
              live.add(newId);
            }
          }
          if (step == 20) {
            int from = next;
            db.commit(tx -> {
              for (int i = from; i < from + 2_000; i++) {
                tx.insert("dbo.orders", order(i, "bulk"));
              }
            });
            for (int i = from; i < from + 2_000; i++) {
              live.add(i);
            }
            next += 2_000;
          }
          if (step == 30) {
            db.addColumn("dbo.orders", "note varchar(40)");
            halfway.countDown();
          }
          Thread.sleep(50); // a live workload, not synchronisation
        }
        db.idle();
      } catch (Throwable t) {
        failure.set(t);
      } finally {
        halfway.countDown();
      }
    }
  }

  /** Bronze against the fake: each change row after the snapshot once; latest image per key = the table. */
  private static List<String> check(SparkSession spark, FakeCdcDatabase db, String bronze) {
    List<String> problems = new ArrayList<>();
    List<Row> rows = spark.read().format("delta").load(bronze).collectAsList();
    String stamp = rows.stream().filter(r -> (Integer) r.getAs("_operation") == 0).map(r -> (String) r.getAs("_snapshot"))
        .findFirst().orElse(null);
    if (stamp == null) {
      problems.add("bronze holds no snapshot");
      return problems;
    }
    Lsn s = Lsn.parse(stamp);
    Set<String> expected = new HashSet<>();
    try (var c = db.client().changes(new ChangeQuery(CI, s.increment(), Lsn.MAX, List.of(), true, 1000))) {
      while (c.next()) {
        expected.add(c.startLsn().hex() + "/" + c.seqval().hex() + "/" + c.operation());
      }
    }
    List<String> got = rows.stream().filter(r -> (Integer) r.getAs("_operation") != 0)
        .map(r -> r.getAs("_start_lsn") + "/" + r.getAs("_seqval") + "/" + r.getAs("_operation")).toList();
    if (got.size() != new HashSet<>(got).size()) {
      problems.add("bronze holds " + (got.size() - new HashSet<>(got).size()) + " duplicate change rows");
    }
    if (!new HashSet<>(got).equals(expected)) {
      Set<String> missing = new HashSet<>(expected);
      missing.removeAll(got);
      Set<String> extra = new HashSet<>(got);
      extra.removeAll(expected);
      problems.add("bronze misses " + missing.size() + " change rows and has " + extra.size() + " the source lacks");
    }
    List<Row> sorted = new ArrayList<>(rows);
    sorted.sort(Comparator.<Row, String>comparing(r -> r.getAs("_start_lsn"))
        .thenComparing(r -> r.getAs("_command_id") == null ? -1 : (Integer) r.getAs("_command_id"))
        .thenComparing(r -> r.getAs("_seqval") == null ? "" : (String) r.getAs("_seqval"))
        .thenComparing(r -> (Integer) r.getAs("_operation")));
    Map<Integer, String> latest = new TreeMap<>();
    for (Row r : sorted) {
      int op = r.getAs("_operation");
      Integer k = r.getAs("order_id");
      if (op == 1) {
        latest.remove(k);
      } else if (op != 3) {
        latest.put(k, r.getAs("status") + "/" + r.getAs("amount"));
      }
    }
    Map<Integer, String> table = new TreeMap<>();
    try (var c = db.client().readTable(new TableQuery(new TableRef("dbo", "orders"),
        List.of("order_id", "status", "amount"), List.of(), KeyRange.ALL, TableQuery.Isolation.READ_COMMITTED, -1,
        1000))) {
      while (c.next()) {
        table.put((Integer) c.value(0), c.value(1) + "/" + c.value(2));
      }
    }
    if (!latest.equals(table)) {
      problems.add("the latest image per key in bronze differs from the table (" + latest.size() + " keys vs "
          + table.size() + ")");
    }
    return problems;
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
