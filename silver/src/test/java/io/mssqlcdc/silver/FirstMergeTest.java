package io.mssqlcdc.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.sink.SharedDeltaSpark;
import io.mssqlcdc.sink.tables.TableRef;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FirstMerge}, the first call's MERGE where {@link FirstWrite} does not apply (ApplyHistory's first
 * call, a silver whose files hold no row): insert only into an empty target, and the full MERGE too when
 * another writer committed between the emptiness read and the insert-only MERGE.
 */
@Tag("spark")
class FirstMergeTest {
  private static final StructType SCHEMA = new StructType().add("id", DataTypes.IntegerType);

  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();

  private TableRef empty(String name) {
    String path = tmp.resolve(name).toString();
    spark.createDataFrame(List.of(), SCHEMA).write().format("delta").save(path);
    return TableRef.of(path);
  }

  private void append(TableRef t, int id) {
    spark.createDataFrame(List.of(RowFactory.create(id)), SCHEMA).write().format("delta").mode("append")
        .save(t.text());
  }

  @Test
  void anEmptyTargetTakesTheInsertOnlyMergeAndAnotherWritersCommitAddsTheFullOne() {
    // Alone: the insert-only MERGE is the one run.
    TableRef alone = empty("alone");
    List<Boolean> runs = new ArrayList<>();
    FirstMerge.run(spark, alone, true, () -> { }, insertOnly -> {
      runs.add(insertOnly);
      append(alone, 1);
      return RowFactory.create(1L);
    });
    assertThat(runs).containsExactly(true);

    // Another writer commits after the emptiness was read: the full MERGE runs after the insert-only one.
    TableRef raced = empty("raced");
    List<Boolean> racedRuns = new ArrayList<>();
    Row m = FirstMerge.run(spark, raced, true, () -> append(raced, 7), insertOnly -> {
      racedRuns.add(insertOnly);
      append(raced, 1);
      return RowFactory.create(racedRuns.size());
    });
    assertThat(racedRuns).containsExactly(true, false);
    assertThat(m.getInt(0)).as("the full MERGE's metrics").isEqualTo(2);

    // A target with a row, or not a first call: the full MERGE alone.
    List<Boolean> full = new ArrayList<>();
    FirstMerge.run(spark, raced, true, () -> { }, insertOnly -> {
      full.add(insertOnly);
      return RowFactory.create(0L);
    });
    FirstMerge.run(spark, empty("later"), false, () -> { }, insertOnly -> {
      full.add(insertOnly);
      return RowFactory.create(0L);
    });
    assertThat(full).containsExactly(false, false);
  }
}
