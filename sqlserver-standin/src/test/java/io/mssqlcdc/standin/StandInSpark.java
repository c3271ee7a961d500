package io.mssqlcdc.standin;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;

/**
 * One local SparkSession per test JVM, as the connector's tests configure it, except that a
 * failed task is tried twice ({@code local[2,2]}): the fault tests cut a cursor mid-read and
 * check that Spark's task retry yields each row exactly once.
 */
final class StandInSpark {
  private StandInSpark() {}

  private static final class Holder {
    static final SparkSession SPARK = create();

    private static SparkSession create() {
      SparkSession s = SparkSession.builder()
          .master("local[2,2]")
          .appName("mssql-cdc-standin-tests")
          .config("spark.ui.enabled", "false")
          .config("spark.ui.showConsoleProgress", "false")
          .config("spark.sql.shuffle.partitions", "1")
          .config("spark.default.parallelism", "2")
          .config("spark.driver.host", "127.0.0.1")
          .config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.sql.session.timeZone", "UTC")
          .config("spark.sql.codegen.wholeStage", "false")
          .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
          .getOrCreate();
      Runtime.getRuntime().addShutdownHook(new Thread(s::stop));
      return s;
    }
  }

  static SparkSession spark() {
    return Holder.SPARK;
  }

  /** A snapshot read. */
  static Dataset<Row> snapshot(Map<String, String> options) {
    return spark().read().format("mssql_cdc_snapshot").options(options).load();
  }

  /** One micro-batch as the sink saw it. */
  record Batch(long id, List<Row> rows) {}

  /** Runs {@code format("mssql_cdc")} with Trigger.AvailableNow into a recording foreachBatch sink. */
  static List<Batch> availableNow(Map<String, String> options, Path checkpoint) {
    List<Batch> batches = Collections.synchronizedList(new ArrayList<>());
    Dataset<Row> df = spark().readStream().format("mssql_cdc").options(options).load();
    try {
      StreamingQuery q = df.writeStream()
          .foreachBatch((Dataset<Row> batch, Long id) -> {
            batches.add(new Batch(id, batch.collectAsList()));
          })
          .trigger(Trigger.AvailableNow())
          .option("checkpointLocation", checkpoint.toString())
          .start();
      q.awaitTermination();
    } catch (TimeoutException | StreamingQueryException e) {
      throw new RuntimeException(e.getMessage(), e);
    }
    return List.copyOf(batches);
  }

  static List<Row> rows(List<Batch> batches) {
    List<Row> all = new ArrayList<>();
    batches.forEach(b -> all.addAll(b.rows()));
    return all;
  }

  static List<Integer> sizes(List<Batch> batches) {
    return batches.stream().map(b -> b.rows().size()).toList();
  }
}
