package io.mssqlcdc.sink.tables;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.sink.SharedDeltaSpark;
import java.nio.file.Path;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table's newest version ({@link DeltaTables#version}) is read from Delta's log without a Spark
 * job, for a path and for a name in the session catalog, and is as fresh as the history.
 */
@Tag("spark")
class DeltaTablesVersionTest {
  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();

  @Test
  void aPathTablesVersionIsTheHistorysNewestWithoutAJob() {
    TableRef t = TableRef.of(tmp.resolve("t").toString());
    spark.range(3).write().format("delta").save(t.text());
    assertThat(jobs(() -> DeltaTables.version(spark, t))).isEqualTo(new long[] {0, 0});

    // Another writer's commits (another DataFrame, not through DeltaTables) are seen at once.
    spark.range(2).write().format("delta").mode("append").save(t.text());
    spark.sql("DELETE FROM delta.`" + t.text() + "` WHERE id = 0");
    long[] v = jobs(() -> DeltaTables.version(spark, t));
    assertThat(v[0]).isEqualTo(2).isEqualTo(history(t));
    assertThat(v[1]).as("Spark jobs").isZero();
  }

  @Test
  void aNamedTablesVersionIsTheHistorysNewestWithoutAJob() {
    String name = "delta_tables_version_" + Math.abs(tmp.hashCode());
    try {
      spark.sql("CREATE TABLE " + name + " (id BIGINT) USING delta LOCATION '" + tmp.resolve("n") + "'");
      spark.sql("INSERT INTO " + name + " VALUES (1)");
      TableRef t = TableRef.of(name);
      long[] v = jobs(() -> DeltaTables.version(spark, t));
      assertThat(v[0]).isEqualTo(1).isEqualTo(history(t));
      assertThat(v[1]).as("Spark jobs").isZero();
      TableRef qualified = TableRef.of("default." + name);
      assertThat(DeltaTables.version(spark, qualified)).isEqualTo(1);
    } finally {
      spark.sql("DROP TABLE IF EXISTS " + name);
    }
  }

  private long history(TableRef t) {
    return DeltaTables.table(spark, t).history(1).select("version").first().getLong(0);
  }

  /** The value and the Spark jobs computing it started. */
  private long[] jobs(LongSupplier work) {
    AtomicInteger started = new AtomicInteger();
    SparkListener l = new SparkListener() {
      @Override
      public void onJobStart(SparkListenerJobStart e) {
        started.incrementAndGet();
      }
    };
    drain();
    spark.sparkContext().addSparkListener(l);
    try {
      long value = work.getAsLong();
      drain();
      return new long[] {value, started.get()};
    } finally {
      spark.sparkContext().removeSparkListener(l);
    }
  }

  private void drain() {
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty(60_000);
    } catch (TimeoutException e) {
      throw new IllegalStateException(e);
    }
  }
}
