package io.mssqlcdc.sink.tables;

import java.util.List;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * Spark work on a thread of the library's own (the facts committer, a state warm-up): such a thread
 * inherits Spark's local properties from the thread that made it, which may be inside a streaming query's
 * batch or an SQL execution; its jobs must not claim that query's batch, execution or call site.
 */
public final class SparkThreads {
  /** The local properties that tie jobs to the caller's query, batch, SQL execution and call site. */
  private static final List<String> INHERITED = List.of("spark.sql.execution.id", "spark.sql.execution.root.id",
      "streaming.sql.batchId", "sql.streaming.queryId", "callSite.short", "callSite.long",
      "spark.job.interruptOnCancel");

  private SparkThreads() {}

  /**
   * Detaches the current thread's Spark work from whatever it inherited, names its jobs
   * {@code description} (the Spark UI's job list) and makes {@code spark} its active session.
   */
  public static void detach(SparkSession spark, String description) {
    SparkContext sc = spark.sparkContext();
    sc.clearJobGroup();
    sc.clearJobTags();
    for (String p : INHERITED) {
      sc.setLocalProperty(p, null);
    }
    sc.setJobDescription(description);
    SparkSession.setActiveSession(spark);
  }
}
