package io.mssqlcdc.sink;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.SparkSession;

/**
 * Counts the Spark jobs each micro-batch of one query started, by the local properties Spark
 * sets on the query's thread ({@code sql.streaming.queryId}, {@code streaming.sql.batchId}): a
 * job the sink starts inside {@code foreachBatch} (Delta's own jobs too) carries them. Keeps each
 * job's description (Delta's, e.g. {@code Compute snapshot for version: 3}) and the plan
 * operators of its stages, so a failing bound says which jobs ran. Remove it with {@link #close()}.
 */
final class BatchJobs extends SparkListener implements AutoCloseable {
  private final SparkSession spark;
  private final Map<String, Map<Long, List<String>>> byQuery = new ConcurrentHashMap<>();
  /** Jobs of facts commits made off the batches' path ({@link FactsCommitter}), by batch id. */
  private final Map<Long, List<String>> offPath = new ConcurrentHashMap<>();

  private BatchJobs(SparkSession spark) {
    this.spark = spark;
  }

  static BatchJobs on(SparkSession spark) {
    BatchJobs j = new BatchJobs(spark);
    spark.sparkContext().addSparkListener(j);
    return j;
  }

  @Override
  public void onJobStart(SparkListenerJobStart e) {
    if (e.properties() == null) {
      return;
    }
    String facts = e.properties().getProperty(FactsCommitter.JOB_PROPERTY);
    if (facts != null) {
      offPath.computeIfAbsent(Long.parseLong(facts), x -> java.util.Collections.synchronizedList(new ArrayList<>()))
          .add(e.properties().getProperty("spark.job.description", ""));
      return;
    }
    String q = e.properties().getProperty("sql.streaming.queryId");
    String b = e.properties().getProperty("streaming.sql.batchId");
    if (q == null || b == null) {
      return;
    }
    // Spark's streaming description ("id = ..., runId = ..., batch = N"), then Delta's, if any
    String description = e.properties().getProperty("spark.job.description", "").replaceAll("\\s+", " ")
        .replaceFirst("^.*batch = \\d+:? ?", "");
    Set<String> scopes = new TreeSet<>();
    for (var st : scala.jdk.javaapi.CollectionConverters.asJava(e.stageInfos())) {
      for (var r : scala.jdk.javaapi.CollectionConverters.asJava(st.rddInfos())) {
        if (r.scope().isDefined()) {
          scopes.add(r.scope().get().name().replaceFirst(" .*", ""));
        }
      }
    }
    String site = (description.isEmpty() ? "" : description + " ") + scopes;
    byQuery.computeIfAbsent(q, x -> new ConcurrentHashMap<>())
        .computeIfAbsent(Long.parseLong(b), x -> java.util.Collections.synchronizedList(new ArrayList<>()))
        .add(site);
  }

  /** The call sites of the jobs each batch of {@code queryId} started, by batch id (after the listener bus drained). */
  Map<Long, List<String>> of(String queryId) throws java.util.concurrent.TimeoutException {
    spark.sparkContext().listenerBus().waitUntilEmpty();
    Map<Long, List<String>> out = new TreeMap<>();
    byQuery.getOrDefault(queryId, Map.of()).forEach((b, sites) -> {
      synchronized (sites) {
        out.put(b, List.copyOf(sites));
      }
    });
    return out;
  }

  /** The jobs of the facts commits made off the batches' path, by batch id (after the listener bus drained). */
  Map<Long, List<String>> offPath() throws java.util.concurrent.TimeoutException {
    spark.sparkContext().listenerBus().waitUntilEmpty();
    Map<Long, List<String>> out = new TreeMap<>();
    offPath.forEach((b, sites) -> {
      synchronized (sites) {
        out.put(b, List.copyOf(sites));
      }
    });
    return out;
  }

  @Override
  public void close() {
    spark.sparkContext().removeSparkListener(this);
  }
}
