package io.mssqlcdc.connector.snapshot;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;

/**
 * Issue 25 item 4: the snapshot's columnar reader against its row reader by the executor CPU time
 * of the read's tasks (Spark's {@code executorCpuTime}), which a machine shared with other builds
 * disturbs far less than wall time. Same session, same fake database, the two paths alternating,
 * each read {@code format("mssql_cdc_snapshot")} into {@code noop} with whole-stage code generation
 * on (Spark's defaults). It also prints each read's wall time and the part of it inside the Spark
 * job (the rest is the driver's: planning, the stamp, the key ranges).
 *
 * <p>Args: {@code fakePath captureInstance [rounds=7] [partitions=2]}, e.g. the bench's fixture
 * {@code bench/target/bench-data/narrow-2000000/fake dbo_narrow}. Run with the connector's test
 * classpath.
 */
public final class SnapshotReaderCpuBench {
  private SnapshotReaderCpuBench() {}

  public static void main(String[] args) throws java.util.concurrent.TimeoutException {
    String path = args[0];
    String ci = args[1];
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 7;
    String partitions = args.length > 3 ? args[3] : "2";
    SparkSession spark = SparkSession.builder().master("local[2]").appName("snapshot-reader-cpu")
        .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.session.timeZone", "UTC").getOrCreate();
    AtomicLong cpu = new AtomicLong();
    AtomicLong jobMs = new AtomicLong();
    spark.sparkContext().addSparkListener(new SparkListener() {
      private long started;

      @Override
      public void onJobStart(org.apache.spark.scheduler.SparkListenerJobStart start) {
        started = start.time();
      }

      @Override
      public void onJobEnd(org.apache.spark.scheduler.SparkListenerJobEnd end) {
        jobMs.addAndGet(end.time() - started);
      }

      @Override
      public void onTaskEnd(SparkListenerTaskEnd end) {
        if (end.taskMetrics() != null) {
          cpu.addAndGet(end.taskMetrics().executorCpuTime());
        }
      }
    });
    List<Double> columnar = new ArrayList<>();
    List<Double> rows = new ArrayList<>();
    long count = 0;
    for (int r = 0; r <= rounds; r++) { // round 0 warms up
      for (int k = 0; k < 2; k++) {
        boolean col = (r + k) % 2 == 0;
        cpu.set(0);
        jobMs.set(0);
        long t0 = System.nanoTime();
        spark.read().format("mssql_cdc_snapshot").option("backend", "fake").option("fakePath", path)
            .option("captureInstance", ci).option("numPartitions", partitions)
            .option("columnarReads", Boolean.toString(col)).load()
            .write().format("noop").mode("overwrite").save();
        long wall = System.nanoTime() - t0;
        spark.sparkContext().listenerBus().waitUntilEmpty(60_000L);
        double cpuS = cpu.get() / 1e9;
        System.out.printf(Locale.ROOT, "round %d %s: task CPU %.2f s, wall %.2f s, of it in the job %.2f s%n", r,
            col ? "columnar" : "rows", cpuS, wall / 1e9, jobMs.get() / 1e3);
        if (r > 0) {
          (col ? columnar : rows).add(cpuS);
        }
      }
    }
    Collections.sort(columnar);
    Collections.sort(rows);
    double c = columnar.get(columnar.size() / 2);
    double w = rows.get(rows.size() / 2);
    System.out.printf(Locale.ROOT,
        "SnapshotReaderCpuBench %s: task CPU median columnar %.2f s, rows %.2f s, rows/columnar %.2f (CPU %s / %s)%n",
        path, c, w, w / c, columnar, rows);
    spark.stop();
  }
}
