package io.mssqlcdc.sink.tables;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.sink.SharedDeltaSpark;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StateWarmup} computes a table's state ahead under the caller's description, so that an UPDATE
 * right after it runs no state job of its own; on a table it cannot read it ends quietly.
 */
@Tag("spark")
class StateWarmupTest {
  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();

  @Test
  void theUpdateAfterAWarmupComputesNoStateOfItsOwn() throws Exception {
    String p = tmp.resolve("t").toString();
    spark.sql("SELECT * FROM VALUES (1, 'a'), (2, 'b') AS t(id, v)").write().format("delta").save(p);
    spark.sql("SELECT * FROM VALUES (3, 'c') AS t(id, v)").write().format("delta").mode("append").save(p);
    List<String> jobs = new CopyOnWriteArrayList<>();
    SparkListener l = new SparkListener() {
      @Override
      public void onJobStart(SparkListenerJobStart e) {
        jobs.add(String.valueOf(e.properties().getProperty("spark.job.description")));
      }
    };
    spark.sparkContext().addSparkListener(l);
    try {
      StateWarmup.start(spark, TableRef.of(p), "warm-up of t").await(120);
      spark.sql("UPDATE delta.`" + p + "` SET v = 'z' WHERE id = 2");
      spark.sparkContext().listenerBus().waitUntilEmpty(60_000);
    } finally {
      spark.sparkContext().removeSparkListener(l);
    }
    assertThat(jobs).as("jobs: %s", jobs).anyMatch(j -> j.contains("warm-up of t") && j.contains("Compute snapshot"))
        .noneMatch(j -> !j.contains("warm-up of t") && j.contains("Compute snapshot"));
    assertThat(spark.read().format("delta").load(p).where("id = 2").first().<String>getAs("v")).isEqualTo("z");
  }

  @Test
  void aTableThatIsNotThereEndsTheWarmupQuietly() {
    StateWarmup w = StateWarmup.start(spark, TableRef.of(tmp.resolve("none").toString()), "warm-up of nothing");
    w.await(120);
    StateWarmup.NONE.await(1);
  }
}
