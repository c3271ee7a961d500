package io.mssqlcdc.silver;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.StageInfo;
import org.apache.spark.sql.SparkSession;

/**
 * Counts the Spark jobs something runs (a listener on the session's context, the bus drained
 * before and after), with where each was started: its result stage's name, Spark's short call
 * site ({@code collectAsList at ApplyRun.java:187}).
 */
final class SparkJobs {
  /** What ran and the jobs it started, in order. */
  record Run<T>(T value, List<String> jobs) {
    int count() {
      return jobs.size();
    }

    /** The jobs one per line, for assertion messages. */
    String listing() {
      return String.join("\n", jobs);
    }
  }

  private SparkJobs() {}

  static <T> Run<T> count(SparkSession spark, Supplier<T> work) {
    List<String> jobs = Collections.synchronizedList(new ArrayList<>());
    SparkListener l = new SparkListener() {
      @Override
      public void onJobStart(SparkListenerJobStart e) {
        List<StageInfo> stages = new ArrayList<>(scala.jdk.javaapi.CollectionConverters.asJava(e.stageInfos()));
        String where = stages.stream().max(Comparator.comparingInt(StageInfo::stageId)).map(StageInfo::name)
            .orElse("?");
        String description = e.properties() == null ? null : e.properties().getProperty("spark.job.description");
        jobs.add("job " + e.jobId() + ": " + where + (description == null ? "" : " (" + description + ")"));
      }
    };
    drain(spark);
    spark.sparkContext().addSparkListener(l);
    try {
      T v = work.get();
      drain(spark);
      return new Run<>(v, List.copyOf(jobs));
    } finally {
      spark.sparkContext().removeSparkListener(l);
    }
  }

  private static void drain(SparkSession spark) {
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty(60_000);
    } catch (TimeoutException e) {
      throw new IllegalStateException("Spark's listener bus did not drain", e);
    }
  }
}
