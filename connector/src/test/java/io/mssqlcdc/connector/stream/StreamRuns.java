package io.mssqlcdc.connector.stream;

import io.mssqlcdc.connector.SharedSpark;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;

/** Runs {@code format("mssql_cdc")} with Trigger.AvailableNow into a recording foreachBatch sink. */
final class StreamRuns {
  private StreamRuns() {}

  /** One micro-batch as the sink saw it. */
  record Batch(long id, List<Row> rows, Optional<BatchReport> report) {
    int size() {
      return rows.size();
    }
  }

  /** Result of one run: its batches and the query. */
  record Run(List<Batch> batches, StreamingQuery query) {
    List<Integer> sizes() {
      return batches.stream().map(Batch::size).toList();
    }

    List<Row> rows() {
      List<Row> all = new ArrayList<>();
      batches.forEach(b -> all.addAll(b.rows()));
      return all;
    }
  }

  static Map<String, String> options(String fakePath, String captureInstance, String... kv) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("backend", "fake");
    o.put("fakePath", fakePath);
    o.put("captureInstance", captureInstance);
    for (int i = 0; i < kv.length; i += 2) {
      o.put(kv[i], kv[i + 1]);
    }
    return o;
  }

  static Run availableNow(Map<String, String> options, Path checkpoint) {
    return availableNow(options, checkpoint, (df, id) -> {});
  }

  /** Runs the query; {@code beforeRead} runs in foreachBatch after planning, before the batch is read. */
  static Run availableNow(Map<String, String> options, Path checkpoint,
      org.apache.spark.api.java.function.VoidFunction2<Dataset<Row>, Long> beforeRead) {
    return availableNow(options, checkpoint, beforeRead, () -> {});
  }

  /** As above; {@code afterLoad} runs after {@code load()} (schema inferred), before the query starts. */
  static Run availableNow(Map<String, String> options, Path checkpoint,
      org.apache.spark.api.java.function.VoidFunction2<Dataset<Row>, Long> beforeRead, Runnable afterLoad) {
    List<Batch> batches = Collections.synchronizedList(new ArrayList<>());
    Dataset<Row> df = SharedSpark.spark().readStream().format("mssql_cdc").options(options).load();
    afterLoad.run();
    StreamingQuery q;
    try {
      q = df.writeStream()
          .foreachBatch((Dataset<Row> batch, Long id) -> {
            beforeRead.call(batch, id);
            List<Row> rows = batch.collectAsList();
            batches.add(new Batch(id, rows, BatchEvents.forBatch(id)));
          })
          .trigger(Trigger.AvailableNow())
          .option("checkpointLocation", checkpoint.toString())
          .start();
      q.awaitTermination();
    } catch (TimeoutException | StreamingQueryException e) {
      throw new RuntimeException(e.getMessage(), e);
    }
    return new Run(List.copyOf(batches), q);
  }

  /** The root cause's message of a failed run. */
  static Throwable rootCause(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c;
  }
}
