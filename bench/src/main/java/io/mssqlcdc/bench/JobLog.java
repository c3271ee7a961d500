package io.mssqlcdc.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.SparkSession;

/**
 * The Spark jobs a run started, with where in the code each was started ({@code callSite.short})
 * and how long it took: where a path's time goes (docs/PERFORMANCE.md names each path's
 * bottleneck from these). One listener per session.
 */
public final class JobLog extends SparkListener {
  /**
   * One finished job; {@code batchId} the micro-batch that started it (Spark's
   * {@code streaming.sql.batchId} local property, set while a micro-batch runs), -1 outside a stream.
   */
  public record Job(int id, String callSite, long startMs, long endMs, int tasks, long batchId, boolean offPath) {
    public long millis() {
      return endMs - startMs;
    }
  }

  /** The local property Spark's micro-batch execution sets to the running batch's id. */
  static final String BATCH_ID_PROPERTY = "streaming.sql.batchId";
  /** The local property DeltaSink's facts commits made off the batch's path carry: the batch they belong to. */
  static final String OFF_PATH_PROPERTY = "mssql_cdc.facts.batchId";

  private final Map<Integer, Job> started = new ConcurrentHashMap<>();
  private final List<Job> finished = Collections.synchronizedList(new ArrayList<>());

  /** Registers a log on {@code spark}. */
  public static JobLog on(SparkSession spark) {
    JobLog log = new JobLog();
    spark.sparkContext().addSparkListener(log);
    return log;
  }

  @Override
  public void onJobStart(SparkListenerJobStart e) {
    // Spark's short call site when the code set one; else the job's description (Delta names its jobs: "MERGE
    // operation - scanning files for matches"); else the result stage's name
    String site = e.properties() == null ? null : e.properties().getProperty("callSite.short");
    if (site == null && e.properties() != null) {
      site = e.properties().getProperty("spark.job.description");
    }
    int tasks = 0;
    String lastStage = "?";
    int lastId = -1;
    for (var s : scala.jdk.javaapi.CollectionConverters.asJava(e.stageInfos())) {
      tasks += s.numTasks();
      if (s.stageId() > lastId) {
        lastId = s.stageId();
        lastStage = s.name();
      }
    }
    if (site == null) {
      site = lastStage;
    }
    String batch = e.properties() == null ? null : e.properties().getProperty(BATCH_ID_PROPERTY);
    String offPath = e.properties() == null ? null : e.properties().getProperty(OFF_PATH_PROPERTY);
    if (batch == null && offPath != null) {
      batch = offPath;
    }
    started.put(e.jobId(), new Job(e.jobId(), site, e.time(), -1, tasks, batch == null ? -1 : Long.parseLong(batch),
        offPath != null));
  }

  @Override
  public void onJobEnd(SparkListenerJobEnd e) {
    Job j = started.remove(e.jobId());
    if (j != null) {
      finished.add(new Job(j.id(), j.callSite(), j.startMs(), e.time(), j.tasks(), j.batchId(), j.offPath()));
    }
  }

  /** Jobs that started at or after {@code fromMs} and ended by {@code toMs}. */
  public List<Job> between(long fromMs, long toMs) {
    synchronized (finished) {
      return finished.stream().filter(j -> j.startMs() >= fromMs && j.endMs() <= toMs).toList();
    }
  }

  /**
   * Jobs per micro-batch of a run's steady batches: the jobs started by micro-batches 1 on (by their
   * {@code streaming.sql.batchId}), divided by how many such batches there were; {@code Double.NaN}
   * when there were none.
   */
  public static double perSteadyBatch(List<Job> jobs, long lastBatchId) {
    return perSteadyBatch(jobs, lastBatchId, false);
  }

  /**
   * Jobs per steady micro-batch run off the batch's path (DeltaSink's facts commits on its own
   * thread, marked with the batch they belong to), counted like {@link #perSteadyBatch}.
   */
  public static double offPathPerSteadyBatch(List<Job> jobs, long lastBatchId) {
    return perSteadyBatch(jobs, lastBatchId, true);
  }

  private static double perSteadyBatch(List<Job> jobs, long lastBatchId, boolean offPath) {
    if (lastBatchId < 1) {
      return Double.NaN;
    }
    long n = jobs.stream().filter(j -> j.batchId() >= 1 && j.offPath() == offPath).count();
    return (double) n / lastBatchId;
  }

  /** The jobs micro-batch 0 started (on its path). */
  public static long firstBatch(List<Job> jobs) {
    return jobs.stream().filter(j -> j.batchId() == 0 && !j.offPath()).count();
  }

  /** Milliseconds per call site, summed, in first-seen order. */
  public static Map<String, Long> byCallSite(List<Job> jobs) {
    Map<String, Long> m = new LinkedHashMap<>();
    for (Job j : jobs) {
      m.merge(j.callSite(), j.millis(), Long::sum);
    }
    return m;
  }
}
