package io.mssqlcdc.silver;

import java.util.function.Supplier;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * Names the Spark jobs of one step of a call ({@code spark.job.description}: the Spark UI's job
 * list, the bench's job log, {@code ApplyChangesJobsTest}'s listing), e.g. {@code ApplyChanges
 * silver.orders: ranking}. Delta's own jobs keep the descriptions Delta gives them; the caller's
 * description is restored after the step. Each step's wall time is logged at DEBUG
 * ({@code io.mssqlcdc.silver.JobLabel}), for finding where a call's time goes.
 */
final class JobLabel {
  private static final String KEY = "spark.job.description";
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(JobLabel.class);

  private JobLabel() {}

  static <T> T of(SparkSession spark, String silver, String step, Supplier<T> work) {
    SparkContext sc = spark.sparkContext();
    String before = sc.getLocalProperty(KEY);
    sc.setLocalProperty(KEY, text(silver, step));
    long started = System.nanoTime();
    try {
      return work.get();
    } finally {
      sc.setLocalProperty(KEY, before);
      LOG.debug("{}: {} ms", text(silver, step), (System.nanoTime() - started) / 1_000_000);
    }
  }

  /** The description of {@code step}'s jobs. */
  static String text(String silver, String step) {
    return "ApplyChanges " + silver + ": " + step;
  }

  static void run(SparkSession spark, String silver, String step, Runnable work) {
    of(spark, silver, step, () -> {
      work.run();
      return null;
    });
  }
}
